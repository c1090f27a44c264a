"""Every call form of the `nvtx` package from PyPI, with known counts and attributes; checked by
tests/capture/PythonCaptureTest.cpp. Argument: the multiprocessing start method for the child
part ("fork", "spawn", "forkserver"), or "none"."""
import multiprocessing
import sys
import threading

import nvtx


@nvtx.annotate()
def bare():  # range named after the function, default color
    pass


@nvtx.annotate("decorated", color="blue", domain="demo", category="io", payload=7)
def decorated():
    pass


def child_work(i):
    with nvtx.annotate("child_range", color="green", domain="demo", payload=i):
        return i * i


def main():
    method = sys.argv[1] if len(sys.argv) > 1 else "none"
    for _ in range(3):
        bare()
    for _ in range(2):
        decorated()
    # Context manager, nested, colors by name and by value, int and float payloads.
    with nvtx.annotate("outer", color="red", payload=42):
        with nvtx.annotate("inner", color=0xFF00FF, payload=1.5):
            pass
    # Push/pop in the default domain and in a named one; category by number.
    nvtx.push_range("pushed", color="rapids", category=3)
    nvtx.push_range("pushed_demo", domain="demo")
    nvtx.pop_range(domain="demo")
    nvtx.pop_range()
    # Start here, end on another thread.
    rid = nvtx.start_range("across_threads", color="yellow", domain="demo")
    t = threading.Thread(target=nvtx.end_range, args=(rid,), name="ender")
    t.start()
    t.join()
    # Marks.
    nvtx.mark("a_mark", color="purple", payload=9)
    nvtx.mark("demo_mark", domain="demo", category="io")
    # The Domain API with registered strings and prebuilt attributes.
    d = nvtx.get_domain("fast")
    attrs = d.get_event_attributes(message="fast_range", color="orange")
    for _ in range(4):
        d.push_range(attrs)
        d.pop_range()
    d.mark(d.get_event_attributes(message="fast_mark"))
    fid = d.start_range(d.get_event_attributes(message="fast_startend"))
    d.end_range(fid)
    # Ranges on four threads at once.
    def worker(n):
        for _ in range(n):
            with nvtx.annotate("threaded", domain="demo"):
                pass
    threads = [threading.Thread(target=worker, args=(5,)) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    # nvtx.Profile (what `python -m nvtx` uses): a range per Python function call.
    profiler = nvtx.Profile()
    profiler.enable()
    profiled_function()
    profiler.disable()
    if method != "none":
        ctx = multiprocessing.get_context(method)
        with ctx.Pool(2) as pool:
            squares = pool.map(child_work, range(6))
        assert squares == [i * i for i in range(6)], squares
    print("nvtx_package done", method)


def profiled_function():
    return sum(range(10))


if __name__ == "__main__":
    main()
