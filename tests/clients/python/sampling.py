"""A pure-Python program whose hot function is known, for --python-sampling
(tests/capture/PythonCaptureTest.cpp): the main thread spends about 1 s in hot_inner (called
by hot), a thread named "waiter" sleeps 0.4 s in waiter, and a forked child spends 0.3 s in
child_hot."""
import os
import threading
import time


def hot_inner(n):
    s = 0
    for i in range(n):
        s += i * i  # the hot line
    return s


def hot(n):
    return hot_inner(n)


def waiter():
    time.sleep(0.4)


def child_hot():
    t0 = time.monotonic()
    while time.monotonic() - t0 < 0.3:
        hot_inner(1000)


def main():
    t = threading.Thread(target=waiter, name="waiter")
    t.start()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 1.0:
        hot(20000)
    t.join()
    pid = os.fork()
    if pid == 0:
        child_hot()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert status == 0, status
    print("sampling done")


if __name__ == "__main__":
    main()
