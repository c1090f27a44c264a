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
