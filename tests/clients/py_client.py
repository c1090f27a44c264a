"""Test client: Python with threads, time.sleep, a subprocess and multiprocessing (fork and spawn).

Expected in the report (tests/capture asserts it):
  - two threads named "sleeper-0"/"sleeper-1" (Python names them itself only in Python's own
    table; the OS names come from the interpreter) each sleeping 0.2 s: clock_nanosleep or select calls >= 0.2 s
  - a subprocess "/bin/sleep 0.1" (exit 0)
  - a multiprocessing child made with fork, exit code 3
  - a multiprocessing child made with spawn (an exec'd python), exit code 4
"""
import multiprocessing
import subprocess
import sys
import threading
import time


def exit_with(code):
    time.sleep(0.05)
    sys.exit(code)


def main():
    threads = [threading.Thread(target=time.sleep, args=(0.2,), name=f"sleeper-{i}") for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    subprocess.run(["/bin/sleep", "0.1"], check=True)
    codes = []
    for method, code in (("fork", 3), ("spawn", 4)):
        ctx = multiprocessing.get_context(method)
        p = ctx.Process(target=exit_with, args=(code,))
        p.start()
        p.join()
        codes.append(p.exitcode)
    print("exit codes", codes)
    return 0 if codes == [3, 4] else 1


if __name__ == "__main__":
    sys.exit(main())
