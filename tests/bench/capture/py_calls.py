"""The Python program of python_functions_trace.sh: N calls of json.dumps (listed in the
function-trace file) or of a function that is not listed, in a loop."""
import json
import sys


def unlisted(x):
    return x


def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    if mode == "listed":
        f = json.dumps
        for i in range(n):
            f(i)
    else:
        for i in range(n):
            unlisted(i)


main()
