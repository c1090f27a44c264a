"""Read-only access to Sightline reports from Python (issue #20).

    import sightline
    r = sightline.open("run.rep")          # also nsys SQLite exports and Kineto/Chrome JSON
    r.processes, r.threads, r.gpus, r.diagnostics
    ev = r.events("kernel")                # numpy arrays: track, start, end, name, columns
    df = r.stats("cuda_gpu_kern_sum")      # a pandas DataFrame (a dict of arrays without pandas)

See docs/python.md for the whole interface.
"""
from . import _core
from ._core import Report, ReportError, Track, kinds, schema, stats_reports

__all__ = ["open", "Report", "ReportError", "Track", "kinds", "schema", "stats_reports", "table_to_frame"]


def open(path, kinds=None, pids=None):  # noqa: A001 (the name users expect: sightline.open)
    """Opens a report read-only. kinds: load only these event kinds (ids from sightline.kinds());
    pids: only the tracks of these processes (one rank of a report that holds several). One kind
    or one pid may be given alone: open(path, kinds="kernel")."""
    if isinstance(kinds, str):
        kinds = [kinds]
    if isinstance(pids, int):
        pids = [pids]
    return _core.open(path, kinds, pids)


def table_to_frame(table, pandas=True):
    """A stats table from Report._stats as a pandas DataFrame, or a dict of numpy arrays.

    Columns are named as `sightline stats --format csv` heads them ("Total Time (ns)"). Null
    cells are NaN in numeric columns and None in text columns.
    """
    import numpy as np
    columns = {}
    for c in table["columns"]:
        values = c["values"]
        if c["type"] == "text":
            values = np.array(values, dtype=object)
        nulls = c["nulls"]
        if nulls is not None and nulls.any():
            values = values.astype(object if c["type"] == "text" else np.float64)
            values[nulls] = None if c["type"] == "text" else np.nan
        columns[c["header"]] = values
    if not pandas:
        return columns
    import pandas as pd
    df = pd.DataFrame(columns, columns=[c["header"] for c in table["columns"]])
    df.attrs.update(name=table["name"], title=table["title"], skipped=table["skipped"])
    return df


def _stats(self, report, start=None, end=None, as_pandas=None):
    """A stats report (the same names, arguments and columns as `sightline stats -r`).

    report: "name" or "name:arg" (cuda_gpu_kern_sum:base). start, end: only events inside
    [start, end], in ns on the report's clock. Returns a pandas DataFrame when pandas is
    installed (as_pandas=False: a dict of numpy arrays). A report whose data is absent gives an
    empty table whose .attrs["skipped"] (or the "skipped" key of the dict form) says why.
    """
    table = self._stats(report, start, end)
    if as_pandas is None:
        try:
            import pandas  # noqa: F401
            as_pandas = True
        except ImportError:
            as_pandas = False
    out = table_to_frame(table, pandas=as_pandas)
    if not as_pandas and table["skipped"]:
        out = dict(out, skipped=table["skipped"])
    return out


def _mpi_rank(self):
    """The MPI rank of the report's process (None when no process recorded one)."""
    for p in self.processes:
        if p["mpi_rank"] is not None:
            return p["mpi_rank"]
    return None


Report.stats = _stats
Report.mpi_rank = property(_mpi_rank)

ReportError.__module__ = "sightline"  # shown as sightline.ReportError in tracebacks
