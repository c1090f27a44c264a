"""The Python program of python_backtrace.sh: N one-byte reads of /dev/zero (each an OS runtime
call, recorded with --osrt-threshold=0), made 30 calls deep so that each backtrace walks a stack
of realistic depth."""
import os
import sys


def reads(n):
    fd = os.open("/dev/zero", os.O_RDONLY)
    read = os.read
    for _ in range(n):
        read(fd, 1)
    os.close(fd)


def deep(depth, n):
    if depth == 0:
        return reads(n)
    return deep(depth - 1, n)


deep(30, int(sys.argv[1]))
