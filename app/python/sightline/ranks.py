"""Which rank a report is (issue #20): the MPI rank its process recorded, else RANK, LOCAL_RANK or
OMPI_COMM_WORLD_RANK (then PMI_RANK, PMIX_RANK, SLURM_PROCID) in its recorded environment (the
profiler keeps these from the environment the program inherited), else the last number in its file name.
`sightline stats --per-rank` (model/analysis) numbers reports without an MPI rank by their place
on the command line; a directory has no such order, so here the file name speaks instead."""
import os
import re

ENVIRONMENT_VARIABLES = ("RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                         "SLURM_PROCID")


class RankError(ValueError):
    """A report whose rank cannot be told, or two reports with one rank."""


def ranks_in(report, path=None):
    """[(rank, where it came from, pid)] of an opened report: one entry per MPI rank when its
    processes recorded several (`sightline profile mpirun ...`: the pid says whose tracks are
    that rank's), else one entry with pid None."""
    ranked = {}
    for p in report.processes:
        if p["mpi_rank"] is not None:
            if p["mpi_rank"] in ranked:
                raise RankError(f"{path or report.path}: MPI rank {p['mpi_rank']} is both process "
                                f"{ranked[p['mpi_rank']]} and {p['pid']}")
            ranked[p["mpi_rank"]] = p["pid"]
    if len(ranked) > 1:
        return [(rank, "MPI rank", pid) for rank, pid in sorted(ranked.items())]
    rank, how = rank_of(report, path)
    return [(rank, how, None)]


def rank_of(report, path=None):
    """(rank, where it came from) of an opened report of one rank."""
    ranks = sorted({p["mpi_rank"] for p in report.processes if p["mpi_rank"] is not None})
    if len(ranks) == 1:
        return ranks[0], "MPI rank"
    if len(ranks) > 1:
        raise RankError(f"{path or report.path} holds {len(ranks)} MPI ranks ({ranks[0]}..{ranks[-1]}): "
                        "use ranks_in() for one entry per rank")
    env = report.session["environment"]
    for name in ENVIRONMENT_VARIABLES:
        value = env.get(name, "").strip()
        if value.isdigit():
            return int(value), name
    name = os.path.basename(path or report.path)
    numbers = re.findall(r"\d+", name.split(".")[0])
    if numbers:
        return int(numbers[-1]), "file name"
    raise RankError(f"{name}: no MPI rank, no {'/'.join(ENVIRONMENT_VARIABLES)} in its environment and "
                    "no number in its file name: cannot tell its rank")


def check_unique(ranked):
    """ranked: [(rank, path)]; raises RankError naming both files when a rank repeats."""
    seen = {}
    for rank, path in ranked:
        if rank in seen:
            raise RankError(f"rank {rank} is both {seen[rank]} and {path}: give each rank once")
        seen[rank] = path
