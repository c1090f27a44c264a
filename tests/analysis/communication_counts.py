#!/usr/bin/env python3
"""Communication share and overlap worked out without Sightline, for the golden test of the
`communication` rule on real timings.

  communication_counts.py EXPORT.sqlite OUT.sqlite STREAM[,STREAM...]
      ->  "NCCL_KERNELS EXPOSED_NS COMMUNICATION_NS OVERLAPPED_NS"

None of the real nsys exports we may ship has NCCL kernels, so this copies one and gives the
kernels of the named streams an NCCL kernel's name (as NCCL 2.19+ names them): their start, end,
device and stream stay the real ones, so their overlap with the other streams' kernels is as the
GPU ran it. It then reads the copy with plain SQL and interval merging, per process and GPU:
the NCCL kernels' time (the union of their intervals), the part of it that computation kernels
(any kernel neither NCCL nor a copy/set kernel) covered, and the rest (exposed).
"""
import shutil
import sqlite3
import sys
from collections import defaultdict

from intervals import merged

NCCL_NAME = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"


def overlap(a, b):
    """Length of the intersection of two merged interval lists."""
    total = i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def is_nccl(name):
    own = name[5:] if name.startswith("void ") else name
    low = name.lower()
    return own.startswith("nccl") or "ncclkernel" in low or "nccldevkernel" in low


def is_memory(name):
    low = name.lower()
    own = name[5:] if name.startswith("void ") else name
    return any(w in low for w in ("memcpy", "memset", "catarraybatchedcopy", "copy_kernel")) or own.startswith("dma")


def main(src, dst, streams):
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    new_id = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM StringIds").fetchone()[0]
    db.execute("INSERT INTO StringIds (id, value) VALUES (?, ?)", (new_id, NCCL_NAME))
    marks = ",".join("?" * len(streams))
    db.execute(f"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = ?, shortName = ?, mangledName = ? "
               f"WHERE streamId IN ({marks})", (new_id, new_id, new_id, *streams))
    db.commit()

    per_gpu = defaultdict(lambda: {"comm": [], "compute": []})
    nccl = 0
    for start, end, gpid, dev, name in db.execute(
            "SELECT k.start, k.end, k.globalPid, k.deviceId, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "JOIN StringIds s ON s.id = k.demangledName WHERE k.start > 0 AND k.end >= k.start"):
        key = ((gpid >> 24) & 0xFFFFFF, dev)
        if is_nccl(name):
            nccl += 1
            per_gpu[key]["comm"].append((start, end))
        elif not is_memory(name):
            per_gpu[key]["compute"].append((start, end))
    comm_ns = overlapped_ns = 0
    for g in per_gpu.values():
        comm = merged(g["comm"])
        comm_ns += sum(e - s for s, e in comm)
        overlapped_ns += overlap(comm, merged(g["compute"]))
    print(nccl, comm_ns - overlapped_ns, comm_ns, overlapped_ns)


main(sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",")])
