#!/usr/bin/python3
"""The Python API against `sightline export` for getting a kind's events into arrays (issue #20).

Generates a report (`sightline generate -n EVENTS`), then, REPEAT times each, side by side:
  api (kernel only)  sightline.open(path, kinds=["kernel"]) + report.events("kernel")
  api (whole report) sightline.open(path) + report.events("kernel")
  api track views    sightline.open(path, kinds=["kernel"]) + track.events() of every kernel track
  export csv         `sightline export --type csv --tables KERNEL` + pandas.read_csv of the table
  export sqlite      `sightline export --type sqlite --tables KERNEL` + SELECT into numpy
and prints the median wall time of each.

    PYTHONPATH=build/python /usr/bin/python3 tests/bench/python/bench_python_api.py \
        --cli build/app/cli/sightline --events 1000000 --work /tmp/slbench
"""
import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import time

import numpy as np
import pandas as pd

import sightline


def timed(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", default="/tmp/sightline-python-bench")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rep = os.path.join(a.work, "bench.rep")
    subprocess.run([a.cli, "generate", "-n", str(a.events), "-f", "true", "-o", rep], check=True)
    table = "CUPTI_ACTIVITY_KIND_KERNEL"

    def api_kernel_only():
        ev = sightline.open(rep, kinds=["kernel"]).events("kernel")
        return len(ev["start"])

    def api_whole():
        return len(sightline.open(rep).events("kernel")["start"])

    def api_views():
        r = sightline.open(rep, kinds=["kernel"])
        return sum(len(t.events()["start"]) for t in r.tracks if t.kind == "kernel")

    def export_csv():
        out = os.path.join(a.work, "csv")
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([a.cli, "export", "-q", "--type", "csv", "--tables", f"^{table}$", "-o", out, rep], check=True)
        return len(pd.read_csv(os.path.join(out, table + ".csv"))["start"].to_numpy())

    def export_sqlite():
        out = os.path.join(a.work, "bench.sqlite")
        subprocess.run([a.cli, "export", "-q", "-f", "true", "--type", "sqlite", "--tables", f"^{table}$", "-o", out, rep],
                       check=True)
        with sqlite3.connect(out) as db:
            rows = db.execute(f"SELECT start, end, correlationId, shortName FROM {table}").fetchall()
        return len(np.array(rows, dtype=np.int64)[:, 0])

    cases = [("api (kernel only)", api_kernel_only), ("api (whole report)", api_whole),
             ("api track views", api_views), ("export csv + read_csv", export_csv),
             ("export sqlite + SELECT", export_sqlite)]
    print(f"{a.events:,} events requested; median of {a.repeat}; cpus {os.cpu_count()}")
    counts = set()
    for name, fn in cases:
        t, n = timed(fn, a.repeat)
        counts.add(n)
        print(f"  {name:24s} {t * 1000:9.1f} ms  ({n:,} kernels)")
    if len(counts) != 1:
        raise SystemExit(f"the methods disagree on the kernel count: {sorted(counts)}")


if __name__ == "__main__":
    main()
