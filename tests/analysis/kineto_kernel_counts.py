#!/usr/bin/env python3
"""Counts in a Kineto (PyTorch profiler) trace, worked out without Sightline, for the golden
tests of the kernel rules: kernels, kernels shorter than THRESHOLD_US microseconds, and kernels
whose launching runtime or driver call (same args.correlation) began no later than the kernel.
Usage: kineto_kernel_counts.py TRACE[.gz] [THRESHOLD_US]  ->  "KERNELS SHORT LAUNCHED"
"""
import gzip
import json
import sys

path = sys.argv[1]
threshold = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
    doc = json.load(f)
events = doc["traceEvents"] if isinstance(doc, dict) else doc
complete = [e for e in events if e.get("ph") == "X"]
kernels = [e for e in complete if str(e.get("cat", "")).lower() == "kernel"]
calls = {}
for e in complete:
    if str(e.get("cat", "")).lower() in ("cuda_runtime", "runtime", "cuda_driver"):
        corr = e.get("args", {}).get("correlation")
        if corr is not None:
            calls[corr] = e
short = sum(1 for k in kernels if float(k["dur"]) < threshold)
launched = 0
for k in kernels:
    call = calls.get(k.get("args", {}).get("correlation"))
    if call is not None and float(k["ts"]) >= float(call["ts"]):
        launched += 1
print(len(kernels), short, launched)
