"""OS runtime calls and NVTX ranges made from known Python lines, for --python-backtrace
(tests/capture/PythonCaptureTest.cpp): the main thread reads a pipe that a thread fills after
50 ms (a blocking read() inside wait_for_data, called by main), and pushes an NVTX range in
annotated(); a forked child does the read again."""
import os
import threading
import time

try:
    import nvtx  # the test virtual environment has it; other interpreters skip the push
except ImportError:
    nvtx = None


def fill(w):
    time.sleep(0.05)
    os.write(w, b"x")


def wait_for_data(r):
    return os.read(r, 1)  # the blocking read: its backtrace names this line


def annotated():
    if nvtx is None:
        return
    nvtx.push_range("annotated")  # the push: its backtrace names this line
    nvtx.pop_range()


def main():
    for _ in range(2):
        r, w = os.pipe()
        t = threading.Thread(target=fill, args=(w,))
        t.start()
        wait_for_data(r)
        t.join()
        os.close(r)
        os.close(w)
    annotated()
    # join() returns before the joined thread's OS thread has gone; Python 3.12+ counts OS
    # threads at fork and warns when there are others. Wait for them to go (the test compares
    # the program's output with its own).
    def others():
        n = 0
        for task in os.listdir("/proc/self/task"):
            try:
                with open("/proc/self/task/%s/comm" % task) as f:
                    n += not f.read().startswith("sightline")  # the profiler's own leave at fork
            except OSError:
                pass
        return n - 1

    deadline = time.monotonic() + 2
    while others() > 0 and time.monotonic() < deadline:
        time.sleep(0.001)
    pid = os.fork()
    if pid == 0:
        r, w = os.pipe()
        t = threading.Thread(target=fill, args=(w,))
        t.start()
        wait_for_data(r)
        t.join()
        os._exit(0)
    os.waitpid(pid, 0)
    print("backtrace done")


if __name__ == "__main__":
    main()
