"""Helpers of the shipped recipes."""
import pandas as pd

import sightline


def stats_kinds(report_name):
    """The event kinds a stats report reads (what a recipe built on it loads)."""
    for info in sightline.stats_reports():
        if info["name"] == report_name:
            return info["reads"]
    raise KeyError(report_name)


def imbalance(values):
    """(value - mean) / mean of each rank's value: 0 is balanced, 0.25 is 25 % above the mean."""
    mean = values.mean()
    return (values - mean) / mean if mean else values * 0.0


def per_rank_summary(result, time_column, count_column):
    """Per rank: the count and total time of the rows, its share and its imbalance."""
    if result.empty or time_column not in result:
        return pd.DataFrame(columns=["Rank", count_column, time_column, "Imbalance"])
    s = result.groupby("Rank", sort=True).agg(**{count_column: (count_column, "sum"), time_column: (time_column, "sum")})
    s["Imbalance"] = imbalance(s[time_column].astype(float)).round(3)
    return s.reset_index()
