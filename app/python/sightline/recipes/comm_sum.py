"""NCCL and MPI time per rank and how unevenly it falls on the ranks.

NCCL's work is its kernels on the GPU (names containing "nccl", as the NCCL library names them:
ncclKernel_*, ncclDevKernel_*); with -t nccl the host-side NCCL calls are counted too. MPI's is
the time inside MPI calls (-t mpi). Communication time is NCCL kernel time plus MPI time; the
imbalance of a rank is (its time - the mean) / the mean: the rank far below the mean is usually
the straggler the others wait for, the ranks above it are the waiters.
"""
import numpy as np
import pandas as pd

import sightline
from sightline.recipes._common import imbalance

NAME = "comm_sum"
DESCRIPTION = "NCCL and MPI time per rank, with each rank's imbalance against the mean"
KINDS = [k for k in ("kernel", "mpi", "nccl") if k in sightline.kinds()]


def _durations(report, kind, name_filter=None):
    if kind not in report.kinds() or kind not in KINDS:
        return np.zeros(0, dtype=np.int64)
    ev = report.events(kind)
    d = ev["end"] - ev["start"]
    if name_filter is not None:
        ids = np.unique(ev["name"])
        keep = ids[[name_filter(s) for s in report.strings(ids)]]
        d = d[np.isin(ev["name"], keep)]
    return d


def map_report(report, params):
    nccl_kernels = _durations(report, "kernel", lambda name: "nccl" in name.lower())
    nccl_calls = _durations(report, "nccl")
    mpi = _durations(report, "mpi")
    return pd.DataFrame({
        "NCCL Kernels": [len(nccl_kernels)],
        "NCCL Kernel Time (ns)": [int(nccl_kernels.sum())],
        "NCCL Calls": [len(nccl_calls)],
        "NCCL Call Time (ns)": [int(nccl_calls.sum())],
        "MPI Calls": [len(mpi)],
        "MPI Time (ns)": [int(mpi.sum())],
        "Communication Time (ns)": [int(nccl_kernels.sum() + mpi.sum())],
    })


def reduce(frames, params):
    result = pd.concat(frames, ignore_index=True).sort_values("Rank", ignore_index=True)
    result["Imbalance"] = imbalance(result["Communication Time (ns)"].astype(float)).round(3)
    return result


def summary(result, params):
    return result[["Rank", "NCCL Kernel Time (ns)", "MPI Time (ns)", "Communication Time (ns)", "Imbalance"]]
