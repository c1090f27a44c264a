"""Calls the functions that functions_trace.json lists, known numbers of times, on the main
thread, on 3 threads, and in a forked and a spawned child; checked by PythonCaptureTest.cpp.
json.dumps: 4 (main) + 3 x 2 (threads) + 2 + 2 (children); time.sleep: 2 + 3 + 1 + 1."""
import json
import multiprocessing
import sys
import threading
import time
from json import dumps  # bound after the trace started: still traced

import functions_trace_mod


def child(tag):
    json.dumps(tag)
    dumps(tag)
    time.sleep(0.01)


def worker():
    json.dumps([1])
    dumps([2])
    time.sleep(0.01)


def main():
    functions_trace_mod.Worker().run(3)  # 3 dumps + 3 loads, inside run
    functions_trace_mod.Worker.cm()
    functions_trace_mod.Worker.sm()
    assert list(functions_trace_mod.gen()) == [1, 2]
    dumps({"main": True})
    time.sleep(0.01)
    time.sleep(0.01)
    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for method in ("fork", "spawn"):
        p = multiprocessing.get_context(method).Process(target=child, args=(method,))
        p.start()
        p.join()
        assert p.exitcode == 0, (method, p.exitcode)
    print("functions_trace done", sys.version_info[:2])


if __name__ == "__main__":
    main()
