"""The recipes shipped with Sightline: each module here is one recipe (docs/python.md, "Recipes").

A recipe is a module (or a user's .py file) with:
    NAME, DESCRIPTION                   strings
    KINDS                               event kinds map_report reads (None: all)
    map_report(report, params)          -> pandas.DataFrame for one report (a Dask task)
    reduce(frames, params)              -> the result, from the per-report frames, each with a
                                           "Rank" column first (optional: concatenated by rank)
    summary(result, params)             -> the table printed at the end (optional: the result)
"""
import importlib
import pkgutil

SHIPPED = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load(name):
    if name not in SHIPPED:
        raise KeyError(name)
    return importlib.import_module(f"{__name__}.{name}")
