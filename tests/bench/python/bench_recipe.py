#!/usr/bin/python3
"""A recipe over many rank reports on Dask, against the CLI one report at a time (issue #20).

Generates REPORTS reports of EVENTS events each (`sightline generate`, a different seed per
rank; kept between runs), then side by side:
  recipe     `sightline recipe NAME --input DIR --workers W` (a local Dask cluster)
  baseline   `sightline stats -r NAME --format csv` on each report in turn (same table, no Dask)
and prints the wall time of each and its peak memory: the largest resident set of any one
process (the runner, a Dask nanny or worker, or the stats process), and the peak of a recipe
task as the runner reports it.

    /usr/bin/python3 tests/bench/python/bench_recipe.py --cli build/app/cli/sightline \
        --reports 64 --events 1000000 --work /tmp/slrecipe
"""
import argparse
import os
import re
import subprocess
import time


def run(cmd, **kw):
    """Runs cmd; returns (wall seconds, peak MiB of the largest process of its tree, stdout).
    wait4's usage of a child covers the descendants it waited for (Dask's nannies and workers)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, **kw)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode})")
    return time.perf_counter() - t0, usage.ru_maxrss / 1024, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--reports", type=int, default=64)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--recipe", default="cuda_gpu_kern_sum")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--work", default="/tmp/sightline-recipe-bench")
    a = ap.parse_args()
    reports = os.path.join(a.work, f"{a.reports}x{a.events}")
    os.makedirs(reports, exist_ok=True)
    t0 = time.perf_counter()
    for r in range(a.reports):
        path = os.path.join(reports, f"rank{r}.rep")
        if not os.path.exists(path):
            subprocess.run([a.cli, "generate", "-n", str(a.events), "-s", str(r + 1), "-o", path],
                           check=True, stderr=subprocess.DEVNULL)
    print(f"{a.reports} reports of {a.events:,} events ready in {time.perf_counter() - t0:.1f} s; "
          f"{os.cpu_count()} cpus; recipe {a.recipe} on {a.workers} workers")
    out = os.path.join(a.work, "result.csv")
    recipe_wall, recipe_peak, printed = run([a.cli, "recipe", a.recipe, "--input", reports, "--workers",
                                             str(a.workers), "-o", out, "-f", "true"])
    task_peak = re.search(r"peak task memory (\d+) MiB", printed)
    base_wall, base_peak = 0.0, 0.0
    for r in range(a.reports):
        w, m, _ = run([a.cli, "stats", "-q", "-r", a.recipe, "--format", "csv", os.path.join(reports, f"rank{r}.rep")])
        base_wall, base_peak = base_wall + w, max(base_peak, m)
    print(f"  recipe on Dask     {recipe_wall:8.2f} s  largest process {recipe_peak:6.0f} MiB  "
          f"peak task {task_peak.group(1) if task_peak else '?'} MiB")
    print(f"  stats one by one   {base_wall:8.2f} s  largest process {base_peak:6.0f} MiB")
    print(printed.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
