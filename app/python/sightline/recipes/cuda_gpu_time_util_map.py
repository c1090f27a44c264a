"""GPU utilization per rank over time: for each rank and GPU, the share of each time bin during
which at least one kernel ran (overlapping kernels on several streams count once).

Bins split each report's own span, from its session start (the time shown as 0) to its last
event, into `bins` equal parts (--param bins=N, default 20): ranks of one job start together, so
bin k of every rank is about the same moment.
"""
import numpy as np
import pandas as pd

NAME = "cuda_gpu_time_util_map"
DESCRIPTION = "GPU utilization (%) per rank and GPU over time bins (--param bins=N, default 20)"
KINDS = ["kernel"]


def merged_intervals(start, end):
    """The union of [start, end) intervals as sorted, disjoint (starts, ends)."""
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)
    # A new busy period begins where a kernel starts after everything before it ended.
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(s)) - 1
    return s[first], reach[last]


def busy_before(starts, ends, x):
    """Busy time of the disjoint sorted intervals before each time in x."""
    lengths = np.concatenate([[0], np.cumsum(ends - starts)])
    k = np.searchsorted(starts, x, side="right")  # intervals that began before x
    busy = lengths[k].astype(np.float64)
    partial = k > 0
    j = k[partial] - 1
    busy[partial] -= np.maximum(ends[j] - x[partial], 0)  # the unfinished part of the last one
    return busy


def map_report(report, params):
    bins = int(params.get("bins", 20))
    if bins < 1:
        raise ValueError("bins must be at least 1")
    origin, stop = report.time_origin, report.t_max
    edges = np.linspace(origin, max(stop, origin + bins), bins + 1).round().astype(np.int64)
    rows = []
    if "kernel" in report.kinds():
        ev = report.events("kernel")
        devices = np.array([t.owner.get("device", -1) for t in report.tracks])
        device_of = devices[ev["track"]] if len(ev["track"]) else np.zeros(0, dtype=np.int64)
        for device in np.unique(device_of):
            sel = device_of == device
            s, e = merged_intervals(ev["start"][sel], ev["end"][sel])
            busy = np.diff(busy_before(s, e, edges))
            width = np.diff(edges)
            for b in range(bins):
                rows.append((int(device), b, int(edges[b] - origin), int(width[b]), 100.0 * busy[b] / width[b]))
    return pd.DataFrame(rows, columns=["Device", "Bin", "Start (ns)", "Duration (ns)", "Utilization (%)"])


def summary(result, params):
    if result.empty:
        return result
    table = result.pivot_table(index=["Rank", "Device"], columns="Bin", values="Utilization (%)")
    table.columns = [f"b{c}" for c in table.columns]
    table.insert(0, "Mean (%)", table.mean(axis=1))
    return table.round(1).reset_index()
