#!/usr/bin/env python3
"""Copy/compute overlap worked out without Sightline, for the golden test of copy_compute_overlap.

  overlap_counts.py EXPORT.sqlite  ->  "EXPOSED_COPIES EXPOSED_NS"

From an nsys SQLite export: per process and GPU, the copy time no kernel covered (the union of
the copies minus its part under the union of the kernels), and the copies of which some part ran
with no kernel running.
"""
import sqlite3
import sys
from collections import defaultdict

from intervals import merged


def covered(s, e, merged_intervals):
    return sum(max(0, min(e, b) - max(s, a)) for a, b in merged_intervals)


def copies(path):
    db = sqlite3.connect(path)
    ops = defaultdict(lambda: {"copy": [], "kernel": []})
    for table, kind in (("CUPTI_ACTIVITY_KIND_MEMCPY", "copy"), ("CUPTI_ACTIVITY_KIND_KERNEL", "kernel")):
        for start, end, gpid, dev in db.execute(
                f"SELECT start, end, globalPid, deviceId FROM {table} WHERE start > 0 AND end >= start"):
            ops[((gpid >> 24) & 0xFFFFFF, dev)][kind].append((start, end))
    exposed_copies = exposed_ns = 0
    for o in ops.values():
        kernels = merged(o["kernel"])
        for s, e in merged(o["copy"]):
            exposed_ns += (e - s) - covered(s, e, kernels)
        for s, e in o["copy"]:
            if (e - s) - covered(s, e, kernels) > 0:
                exposed_copies += 1
    print(exposed_copies, exposed_ns)


copies(sys.argv[1])
