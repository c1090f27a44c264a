"""The Python program of python_sampling.sh: a pure-Python loop of fixed work (N iterations),
run 30 calls deep so that each Python sample walks a stack of realistic depth."""
import sys


def work(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def deep(depth, n):
    if depth == 0:
        return work(n)
    return deep(depth - 1, n)


deep(30, int(sys.argv[1]))
