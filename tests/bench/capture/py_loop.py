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

# The sampler thread's own CPU time against the process's (schedstat: ns on the CPU), printed
# when there is one: what the sampling costs besides the GIL hand-overs it causes.
import os

own = total = 0
for task in os.listdir("/proc/self/task"):
    try:
        with open("/proc/self/task/%s/schedstat" % task) as f:
            ns = int(f.read().split()[0])
        with open("/proc/self/task/%s/comm" % task) as f:
            comm = f.read().strip()
    except OSError:
        continue
    total += ns
    if comm == "sightline-py":
        own += ns
if own:
    print("sampler thread: %.1f ms of %.1f ms CPU (%.2f%%)" % (own / 1e6, total / 1e6, 100.0 * own / total))
