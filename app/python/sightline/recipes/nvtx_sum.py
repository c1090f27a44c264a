"""NVTX range time per rank: every range's instances and time on each rank."""
from sightline.recipes._common import per_rank_summary, stats_kinds

NAME = "nvtx_sum"
DESCRIPTION = "NVTX range time per rank (each report's nvtx_sum, one row per rank and range)"
KINDS = stats_kinds("nvtx_sum")


def map_report(report, params):
    return report.stats("nvtx_sum")


def summary(result, params):
    return per_rank_summary(result, "Total Time (ns)", "Instances")
