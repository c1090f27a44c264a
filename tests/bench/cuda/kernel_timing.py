"""Where a traced loop's time goes, from an nsys-schema SQLite export of its report:

    python3 kernel_timing.py EXPORT.sqlite [LABEL]

Prints, for the CUDA API calls, the median duration per function and thread (the thread's name
after "@": in PyTorch the main thread's calls have Python frames, autograd's have none); for the kernels, how busy the
GPU was over the span of the kernels (busy = union of kernel intervals / span), the median gap
between one kernel's end and the next one's start on the same stream, and the median delay from
the end of the launching call to the kernel's start. A loop whose GPU is busy most of the span
and whose kernels start long after their launch returned is GPU-bound: there, what tracing adds
to each kernel on the GPU is what the loop loses. A loop whose GPU is mostly idle and whose
kernels start right after their launch is launch-bound: there the launching calls' own cost is.
"""
import sqlite3
import statistics
import sys


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    db = sqlite3.connect(sys.argv[1])
    label = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
    tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}

    thread_names = {}
    if "ThreadNames" in tables:
        thread_names = dict(db.execute(
            "select t.globalTid, s.value from ThreadNames t join StringIds s on s.id = t.nameId"))
    api = {}
    for table in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"):
        if table not in tables:
            continue
        for name, tid, start, end in db.execute(
                f"select s.value, a.globalTid, a.start, a.end from {table} a "
                f"join StringIds s on s.id = a.nameId"):
            thread = thread_names.get(tid, str(tid & 0xFFFFFF)).replace(" ", "_")
            api.setdefault(f"{name}@{thread}", []).append(end - start)
    for name, durations in sorted(api.items(), key=lambda kv: -len(kv[1]))[:16]:
        print(f"{label}: api {name:<50} calls {len(durations):7d}  median {median(durations):9.0f} ns")

    if "CUPTI_ACTIVITY_KIND_KERNEL" not in tables:
        print(f"{label}: no kernels")
        return
    kernels = db.execute(
        "select start, end, streamId, correlationId from CUPTI_ACTIVITY_KIND_KERNEL order by start").fetchall()
    if not kernels:
        print(f"{label}: no kernels")
        return
    busy, cur_start, cur_end = 0, None, None
    for start, end, _, _ in kernels:
        if cur_end is None or start > cur_end:
            if cur_end is not None:
                busy += cur_end - cur_start
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    busy += cur_end - cur_start
    span = max(k[1] for k in kernels) - kernels[0][0]
    gaps, last_end = [], {}
    for start, end, stream, _ in kernels:
        if stream in last_end:
            gaps.append(start - last_end[stream])
        last_end[stream] = end
    launch_end = {}
    for table in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"):
        if table in tables:
            for corr, end in db.execute(f"select correlationId, end from {table}"):
                launch_end[corr] = end
    delays = [k[0] - launch_end[k[3]] for k in kernels if k[3] in launch_end]
    durations = [k[1] - k[0] for k in kernels]
    print(f"{label}: kernels {len(kernels)}  span {span / 1e6:.1f} ms  GPU busy {100 * busy / span:.1f}%  "
          f"median kernel {median(durations):.0f} ns  median gap on a stream {median(gaps):.0f} ns  "
          f"median launch-return-to-start {median(delays):.0f} ns ({len(delays)} joined)")


if __name__ == "__main__":
    main()
