#!/usr/bin/env python3
"""The NVTX ranges open while the GPU was idle, worked out without Sightline from an nsys SQLite
export, for the golden test of nvtx_gpu_idle.

  nvtx_idle_counts.py EXPORT.sqlite [GAP_US=100]  ->  "NAMES TOP_IDLE_NS INSTANCES"

Idle: per process and GPU, the gaps of at least GAP_US between the union of its kernels, copies
and memsets; a process's gaps on all its GPUs together. For each push/pop or start/end range of
that process's threads, the idle time inside it, summed by range name. NAMES: the names with
idle time inside; TOP_IDLE_NS: the largest sum; INSTANCES: the ranges with idle time inside.
"""
import sqlite3
import sys
from collections import defaultdict

from intervals import merged

path = sys.argv[1]
gap = (int(sys.argv[2]) if len(sys.argv) > 2 else 100) * 1000
db = sqlite3.connect(path)
tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
pid_of = lambda g: (g >> 24) & 0xFFFFFF


busy = defaultdict(list)
for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
    if t in tables:
        for s, e, g, dev in db.execute(f"SELECT start, end, globalPid, deviceId FROM {t} WHERE start > 0"):
            busy[(pid_of(g), dev)].append((s, e))
idle = defaultdict(list)
for (pid, dev), ops in busy.items():
    m = merged(ops)
    idle[pid] += [(a[1], b[0]) for a, b in zip(m, m[1:]) if b[0] - a[1] >= gap]
idle = {pid: merged(v) for pid, v in idle.items()}
names = defaultdict(int)
instances = 0
strings = dict(db.execute("SELECT id, value FROM StringIds")) if "StringIds" in tables else {}
for s, e, text, text_id, g in db.execute(
        "SELECT start, end, text, textId, globalTid FROM NVTX_EVENTS "
        "WHERE eventType IN (59, 60) AND end IS NOT NULL AND end >= start"):
    inside = sum(max(0, min(e, b) - max(s, a)) for a, b in idle.get(pid_of(g), []))
    if inside > 0:
        names[text if text is not None else strings.get(text_id, "")] += inside
        instances += 1
print(len(names), max(names.values(), default=0), instances)
