"""Kernel time per rank: every kernel's instances and time on each rank."""
from sightline.recipes._common import per_rank_summary, stats_kinds

NAME = "cuda_gpu_kern_sum"
DESCRIPTION = "CUDA kernel time per rank (each report's cuda_gpu_kern_sum, one row per rank and kernel)"
KINDS = stats_kinds("cuda_gpu_kern_sum")


def map_report(report, params):
    # The same table as `sightline stats -r cuda_gpu_kern_sum REPORT` (skipped: empty).
    return report.stats("cuda_gpu_kern_sum")


def summary(result, params):
    return per_rank_summary(result, "Total Time (ns)", "Instances")
