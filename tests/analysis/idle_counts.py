#!/usr/bin/env python3
"""GPU idle time between the operations of each stream, split as HTA splits it, worked out without
Sightline from an nsys SQLite export, for the golden test of gpu_idle_breakdown.

  idle_counts.py EXPORT.sqlite [KERNEL_WAIT_NS=30]  ->  "STREAMS HOST_NS KERNEL_NS OTHER_NS"

Per process, GPU and stream, operations (kernels, copies, memsets) in start order; each gap from
one's end to the next one's start is host wait when the API call that launched the next one
(same correlationId and process) began after the gap began, else kernel wait when shorter than
KERNEL_WAIT_NS, else other. STREAMS: the streams with any idle time.
"""
import sqlite3
import sys
from collections import defaultdict

path = sys.argv[1]
kernel_wait = int(sys.argv[2]) if len(sys.argv) > 2 else 30
db = sqlite3.connect(path)
tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
pid_of = lambda gpid: (gpid >> 24) & 0xFFFFFF
calls = {}
for t in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"):
    if t in tables:
        for start, gpid, corr in db.execute(f"SELECT start, globalTid, correlationId FROM {t}"):
            calls.setdefault((pid_of(gpid), corr), start)
streams = defaultdict(list)
for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
    if t in tables:
        for start, end, gpid, dev, stream, corr in db.execute(
                f"SELECT start, end, globalPid, deviceId, streamId, correlationId FROM {t} WHERE start > 0"):
            streams[(pid_of(gpid), dev, stream)].append((start, end, corr))
idle_streams = host = kernel = other = 0
for (pid, dev, stream), ops in streams.items():
    ops.sort(key=lambda o: o[0])
    idle = 0
    for prev, nxt in zip(ops, ops[1:]):
        gap = nxt[0] - prev[1]
        if gap <= 0:
            continue
        idle += gap
        call = calls.get((pid, nxt[2]))
        if call is not None and call > prev[1]:
            host += gap
        elif gap < kernel_wait:
            kernel += gap
        else:
            other += gap
    idle_streams += idle > 0
print(idle_streams, host, kernel, other)
