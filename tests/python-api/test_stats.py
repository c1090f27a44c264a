"""Report.stats(): every stats report, as a DataFrame, equals `sightline stats --format csv`."""
import csv
import io
import math
import os
import unittest

import numpy as np
import pandas as pd

import sightline
from fixtures import as_rep, cli, fixture_inputs, generated, work_dir


def cli_table(rep, spec):
    text = cli("stats", "-q", "-r", spec, "--format", "csv", rep)
    return list(csv.reader(io.StringIO(text)))


class StatsMatchCli(unittest.TestCase):
    def compare(self, report, rep, spec):
        df = report.stats(spec)
        self.assertIsInstance(df, pd.DataFrame)
        rows = cli_table(rep, spec)
        if df.attrs["skipped"]:
            self.assertEqual(rows, [], f"{spec}: skipped by Python ({df.attrs['skipped']}) but not by the CLI")
            return 0
        self.assertEqual(list(df.columns), rows[0], spec)
        self.assertEqual(len(df), len(rows) - 1, spec)
        table = report._stats(spec)
        for c, col in enumerate(table["columns"]):
            values = df.iloc[:, c].tolist()
            for r, cell in enumerate(row[c] for row in rows[1:]):
                v = values[r]
                where = f"{spec} row {r} column {col['header']!r}"
                if cell == "":  # CSV writes a null and an empty text alike
                    self.assertTrue(v is None or v == "" or (isinstance(v, float) and math.isnan(v)), where)
                elif col["type"] == "int":
                    self.assertEqual(int(v), int(cell), where)
                elif col["type"] == "real":
                    self.assertLessEqual(abs(float(v) - float(cell)), 0.5 * 10 ** -col["decimals"] + 1e-9 * abs(float(v)), where)
                else:
                    self.assertEqual(v, cell, where)
        return len(df)

    def run_all(self, rep, opened):
        compared = 0
        for info in sightline.stats_reports():
            with self.subTest(report=os.path.basename(rep), stats=info["name"]):
                compared += self.compare(opened, rep, info["name"]) > 0
        return compared

    def test_generated_every_report(self):
        rep = generated(work_dir("generated"))
        self.assertGreaterEqual(self.run_all(rep, sightline.open(rep)), 5)

    def test_fixtures_every_report(self):
        work = work_dir("fixtures")
        for path in fixture_inputs():
            rep = as_rep(path, work)
            self.run_all(rep, sightline.open(rep))

    def test_arguments_and_window(self):
        rep = generated(work_dir("args"))
        r = sightline.open(rep)
        self.compare(r, rep, "cuda_gpu_kern_sum:base")
        full = r.stats("cuda_gpu_kern_sum")
        half = r.stats("cuda_gpu_kern_sum", start=r.t_min, end=(r.t_min + r.t_max) // 2)
        self.assertLess(half["Instances"].sum(), full["Instances"].sum())
        self.assertGreater(half["Instances"].sum(), 0)

    def test_without_pandas_a_dict_of_arrays(self):
        rep = generated(work_dir("dict"))
        r = sightline.open(rep)
        d = r.stats("cuda_gpu_kern_sum", as_pandas=False)
        df = r.stats("cuda_gpu_kern_sum")
        self.assertEqual(list(d), list(df.columns))
        np.testing.assert_array_equal(d["Total Time (ns)"], df["Total Time (ns)"].to_numpy())

    def test_unknown_report(self):
        rep = generated(work_dir("unknown"))
        with self.assertRaisesRegex(sightline.ReportError, "unknown stats report 'no_such_sum'"):
            sightline.open(rep).stats("no_such_sum")


if __name__ == "__main__":
    unittest.main()
