"""Signal dispositions under the profiler must be exactly the program's (issue #15).

Modes:
  dispositions  Python's own view at start (SIGINT: KeyboardInterrupt, SIGTERM/SIGHUP: default),
                then Ctrl+C as KeyboardInterrupt; exits 7 when all of it holds, 1 otherwise.
  forkserver    a multiprocessing Pool with the forkserver start method; exits 0 when it works.
  cleanup [SECONDS]
                waits for Ctrl+C, then cleans up for SECONDS (0.5): exits 0 when one SIGINT
                came (a second during the clean-up ends it by SIGINT), 1 when none came in 8 s.
  count SIGNAME SECONDS
                counts the SIGNAMEs (SIGTERM, SIGUSR2, ...) that come in SECONDS: prints and
                exits with that count.
"""
import multiprocessing
import os
import signal
import sys
import time


def dispositions():
    problems = []
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        problems.append("SIGINT is %r" % (signal.getsignal(signal.SIGINT),))
    for name in ("SIGTERM", "SIGHUP", "SIGSEGV", "SIGPIPE"):
        sig = getattr(signal, name)
        expected = signal.SIG_IGN if name == "SIGPIPE" else signal.SIG_DFL  # Python ignores SIGPIPE
        if signal.getsignal(sig) != expected:
            problems.append("%s is %r" % (name, signal.getsignal(sig)))
    # A handler set and read back, then the default again.
    signal.signal(signal.SIGUSR1, lambda *_: None)
    if signal.signal(signal.SIGUSR1, signal.SIG_DFL) is signal.SIG_DFL:
        problems.append("SIGUSR1 handler not read back")
    if signal.getsignal(signal.SIGUSR1) != signal.SIG_DFL:
        problems.append("SIGUSR1 not back to default")
    for p in problems:
        print("problem:", p, file=sys.stderr)
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    except KeyboardInterrupt:
        print("KeyboardInterrupt")
        return 1 if problems else 7
    return 1


def forkserver():
    with multiprocessing.get_context("forkserver").Pool(2) as pool:
        result = pool.map(abs, [-1, -2, -3])
    print(result)
    return 0 if result == [1, 2, 3] else 1


def cleanup():
    print("ready", flush=True)
    try:
        time.sleep(8)
    except KeyboardInterrupt:
        # The clean-up: a second SIGINT here is a second KeyboardInterrupt.
        time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0.5)
        print("cleanup complete", flush=True)
        return 0
    return 1


def count():
    name = sys.argv[2]
    seen = [0]
    signal.signal(getattr(signal, name), lambda *_: seen.__setitem__(0, seen[0] + 1))
    print("ready", flush=True)
    end = time.monotonic() + float(sys.argv[3])
    while time.monotonic() < end:
        time.sleep(0.02)
    print("%ss: %d" % (name, seen[0]), flush=True)
    return seen[0]


if __name__ == "__main__":
    sys.exit({"dispositions": dispositions, "forkserver": forkserver,
              "cleanup": cleanup, "count": count}[sys.argv[1]]())
