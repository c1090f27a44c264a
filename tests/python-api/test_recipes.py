"""`sightline recipe`: every shipped recipe and a user's recipe on 8 generated rank reports, run on
a 2-worker local Dask cluster this test starts (passed with --scheduler), checked against each
report's own `sightline stats` and `sightline export` output; the rank rule; clear errors."""
import csv
import io
import json
import os
import subprocess
import types
import unittest

import numpy as np
import pandas as pd
from distributed import LocalCluster

from fixtures import CLI, cli, generated, work_dir
from sightline.ranks import RankError, check_unique, rank_of, ranks_in

RANKS = 8


def recipe(*args, env=None, check=True):
    p = subprocess.run([CLI, "recipe", *args], capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        raise AssertionError(f"sightline recipe {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return p


def stats_csv(rep, name):
    text = cli("stats", "-q", "-r", name, "--format", "csv", rep)
    return pd.read_csv(io.StringIO(text)) if text.strip() else pd.DataFrame()


class Recipes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = work_dir("recipes")
        cls.input = os.path.join(cls.work, "in")
        os.makedirs(cls.input)
        # Different seeds and sizes: the ranks differ, so a mix-up of ranks shows.
        cls.reps = {r: generated(cls.input, f"rank{r}.rep", events=8000 + 1000 * r, seed=r + 1) for r in range(RANKS)}
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                   silence_logs=40)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.close()

    def run_recipe(self, name, *extra):
        out = os.path.join(self.work, os.path.basename(name).split(".")[0] + ".csv")
        p = recipe(name, "--input", self.input, "--scheduler", self.cluster.scheduler_address, "-o", out,
                   "-f", "true", *extra)
        self.assertIn(f"{RANKS} reports, {RANKS} ranks (ranks from file name) on 2 Dask workers", p.stdout)
        return pd.read_csv(out), p.stdout

    def check_per_rank_stats(self, name):
        result, printed = self.run_recipe(name)
        self.assertEqual(sorted(result["Rank"].unique()), list(range(RANKS)))
        for rank, rep in self.reps.items():
            mine = result[result["Rank"] == rank].drop(columns="Rank").reset_index(drop=True)
            theirs = stats_csv(rep, name)
            self.assertEqual(list(mine.columns), list(theirs.columns))
            self.assertEqual(len(mine), len(theirs), rank)
            for col in theirs.columns:
                if theirs[col].dtype == object:
                    self.assertEqual(mine[col].tolist(), theirs[col].tolist(), (rank, col))
                else:  # the CSV prints reals rounded to their decimals
                    np.testing.assert_allclose(mine[col], theirs[col], atol=0.051, rtol=1e-9, err_msg=f"{rank} {col}")
        # The summary: one line per rank with its total.
        for rank in range(RANKS):
            total = int(result[result["Rank"] == rank]["Total Time (ns)"].sum())
            self.assertRegex(printed, rf"\n\s+{rank}\s+\d+\s+{total}\s")

    def test_kernel_time_per_rank(self):
        self.check_per_rank_stats("cuda_gpu_kern_sum")

    def test_nvtx_time_per_rank(self):
        self.check_per_rank_stats("nvtx_sum")

    def test_comm_time_per_rank(self):
        result, _ = self.run_recipe("comm_sum")
        self.assertEqual(result["Rank"].tolist(), list(range(RANKS)))
        for rank, rep in self.reps.items():
            kern = stats_csv(rep, "cuda_gpu_kern_sum")
            nccl = kern[kern["Name"].str.contains("nccl", case=False)]["Total Time (ns)"].sum()
            mpi = stats_csv(rep, "mpi_event_sum")
            mpi_total = mpi["Total Time (ns)"].sum() if "Total Time (ns)" in mpi else 0
            row = result[result["Rank"] == rank].iloc[0]
            self.assertEqual(row["NCCL Kernel Time (ns)"], nccl)
            self.assertEqual(row["MPI Time (ns)"], mpi_total)

    def test_comm_imbalance_on_nccl_kernels(self):
        # Kineto traces with NCCL kernels of known lengths: rank r's all-reduce takes (r+1)*100 us.
        work = work_dir("recipes_nccl")
        for r in range(4):
            events = [{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0,
                       "tid": 7, "ts": 1000.0, "dur": 100.0 * (r + 1), "args": {"device": 0, "stream": 7, "correlation": 1}},
                      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 2000.0, "dur": 50.0,
                       "args": {"device": 0, "stream": 7, "correlation": 2}}]
            with open(os.path.join(work, f"trace_rank{r}.json"), "w") as f:
                json.dump({"schemaVersion": 1, "traceEvents": events}, f)
        out = os.path.join(work, "comm.csv")
        recipe("comm_sum", "--input", work, "--scheduler", self.cluster.scheduler_address, "-o", out)
        result = pd.read_csv(out)
        self.assertEqual(result["NCCL Kernel Time (ns)"].tolist(), [100_000, 200_000, 300_000, 400_000])
        self.assertEqual(result["NCCL Kernels"].tolist(), [1, 1, 1, 1])
        # mean 250 us: rank 0 is 60 % below it, rank 3 60 % above.
        self.assertEqual(result["Imbalance"].tolist(), [-0.6, -0.2, 0.2, 0.6])

    def test_gpu_utilization_map(self):
        bins = 10
        result, _ = self.run_recipe("cuda_gpu_time_util_map", "--param", f"bins={bins}")
        for rank in (0, 5):
            rep = self.reps[rank]
            info = json.loads(cli("info", "--format", "json", rep))
            origin = info["session"]["start_monotonic_ns"]
            span = info["events"]["t_max_ns"] - origin
            out = os.path.join(self.work, f"export{rank}")
            cli("export", "-q", "-f", "true", "--type", "csv", "--tables", "^CUPTI_ACTIVITY_KIND_KERNEL$", "-o", out, rep)
            with open(os.path.join(out, "CUPTI_ACTIVITY_KIND_KERNEL.csv")) as f:
                rows = list(csv.DictReader(f))
            edges = [round(span * b / bins) for b in range(bins + 1)]
            for device in sorted({int(r["deviceId"]) for r in rows}):
                # The union of the device's kernels, merged by hand, clipped into each bin.
                spans = sorted((int(r["start"]), int(r["end"])) for r in rows if int(r["deviceId"]) == device)
                merged = []
                for s, e in spans:
                    if merged and s <= merged[-1][1]:
                        merged[-1][1] = max(merged[-1][1], e)
                    else:
                        merged.append([s, e])
                mine = result[(result["Rank"] == rank) & (result["Device"] == device)].sort_values("Bin")
                self.assertEqual(len(mine), bins)
                for b in range(bins):
                    lo, hi = edges[b], edges[b + 1]
                    busy = sum(max(0, min(e, hi) - max(s, lo)) for s, e in merged)
                    self.assertAlmostEqual(mine["Utilization (%)"].iloc[b], 100.0 * busy / (hi - lo), places=6)

    def test_report_holding_two_ranks(self):
        # One nsys export with two MPI ranks (as `sightline profile mpirun ...` gives): rank 1 is
        # rank 0's kernels again in another process, each twice as long.
        work = work_dir("recipes_two_ranks")
        job = os.path.join(work, "in", "job.sqlite")
        os.makedirs(os.path.dirname(job))
        cli("export", "-q", "--type", "sqlite", "-o", job, self.reps[0])
        two_ranks_export(job)
        out = os.path.join(work, "k.csv")
        p = recipe("cuda_gpu_kern_sum", "--input", os.path.dirname(job), "--scheduler",
                   self.cluster.scheduler_address, "-o", out)
        self.assertIn("1 reports, 2 ranks (ranks from MPI rank)", p.stdout)
        result = pd.read_csv(out)
        r0 = result[result["Rank"] == 0].set_index("Name")
        r1 = result[result["Rank"] == 1].set_index("Name")
        theirs = stats_csv(self.reps[0], "cuda_gpu_kern_sum").set_index("Name")
        self.assertEqual(r0["Total Time (ns)"].to_dict(), theirs["Total Time (ns)"].to_dict())
        self.assertEqual(r1["Instances"].to_dict(), theirs["Instances"].to_dict())
        self.assertEqual(r1["Total Time (ns)"].to_dict(), (2 * theirs["Total Time (ns)"]).to_dict())

    def test_user_recipe_file(self):
        path = os.path.join(self.work, "kernel_count.py")
        with open(path, "w") as f:
            f.write("import pandas as pd\n"
                    "NAME = 'kernel_count'\n"
                    "KINDS = ['kernel']\n"
                    "def map_report(report, params):\n"
                    "    return pd.DataFrame({'Kernels': [report.event_count('kernel')],\n"
                    "                         'Scale': [int(params.get('scale', 1))]})\n")
        result, _ = self.run_recipe(path, "--param", "scale=3")
        for rank, rep in self.reps.items():
            info = json.loads(cli("info", "--format", "json", rep))
            row = result[result["Rank"] == rank].iloc[0]
            self.assertEqual(row["Kernels"], info["events"]["by_kind"]["kernel"])
            self.assertEqual(row["Scale"], 3)

    def test_errors(self):
        p = recipe("no_such_recipe", "--input", self.input, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("unknown recipe 'no_such_recipe'", p.stderr)
        p = recipe("nvtx_sum", "--input", os.path.join(self.work, "nowhere"), check=False)
        self.assertIn("no such directory", p.stderr)
        p = recipe("nvtx_sum", "--input", os.path.join(self.input, os.listdir(self.input)[0]), check=False)
        self.assertIn("not a directory", p.stderr)
        p = recipe("nvtx_sum", check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--input DIR is required", p.stderr)
        p = recipe("nvtx_sum", "--input", self.input, env=dict(os.environ, SIGHTLINE_PYTHON="/nonexistent/python3"),
                   check=False)
        self.assertIn("/nonexistent/python3 not found", p.stderr)
        empty = work_dir("recipes_empty")
        self.assertIn("no reports", recipe("nvtx_sum", "--input", empty, check=False).stderr)
        out = os.path.join(self.work, "exists.csv")
        open(out, "w").close()
        p = recipe("nvtx_sum", "--input", self.input, "-o", out, check=False)
        self.assertIn("already exists", p.stderr)
        # A binary with no package beside it, and no PYTHONPATH: the module is missing.
        lone = os.path.join(work_dir("recipes_lone"), "sightline")  # a copy: /proc/self/exe sees through links
        bare = subprocess.run(["/usr/bin/python3", "-c", "import sightline"], capture_output=True,
                              env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
        if bare.returncode != 0:
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            p = subprocess.run(["/bin/sh", "-c", f"cp '{os.path.realpath(CLI)}' '{lone}' && exec '{lone}' "
                                f"recipe nvtx_sum --input '{self.input}'"], capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("the Python module sightline is not importable", p.stderr)
        import importlib.util
        if not (importlib.util.find_spec("pyarrow") or importlib.util.find_spec("fastparquet")):
            p = recipe("nvtx_sum", "--input", self.input, "--format", "parquet", "-o", out + ".parquet", check=False)
            self.assertIn("--format parquet needs pyarrow", p.stderr)


def two_ranks_export(path):
    """Adds a second process (MPI rank 1) to an nsys-schema export of one process (rank 0) whose
    kernels are the first's, each twice as long."""
    import sqlite3
    db = sqlite3.connect(path)
    (gpid, pid, name), = db.execute("SELECT globalPid, pid, name FROM PROCESSES").fetchall()
    pid2 = pid + 1000
    gpid2 = (gpid & ~(0xFFFFFF << 24)) | (pid2 << 24)  # nsys: pid in bits 24..47 of globalPid
    db.execute("INSERT INTO PROCESSES (globalPid, pid, name) VALUES (?, ?, ?)", (gpid2, pid2, name))
    cols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
    s, e, g = cols.index("start"), cols.index("end"), cols.index("globalPid")
    rows = []
    for r in db.execute(f"SELECT {', '.join(cols)} FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall():
        r = list(r)
        r[e], r[g] = r[s] + 2 * (r[e] - r[s]), gpid2
        rows.append(r)
    db.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                   rows)
    db.execute("CREATE TABLE MPI_RANKS (globalTid INTEGER, rank INTEGER)")
    db.execute("INSERT INTO MPI_RANKS VALUES (?, 0), (?, 1)", (gpid | pid, gpid2 | pid2))
    db.commit()
    db.close()
    return pid, pid2


class RankRule(unittest.TestCase):
    def fake(self, path, mpi_ranks=(), env=None):
        procs = [{"mpi_rank": r} for r in mpi_ranks] or [{"mpi_rank": None}]
        return types.SimpleNamespace(path=path, processes=procs, session={"environment": env or {}})

    def test_order_of_evidence(self):
        self.assertEqual(rank_of(self.fake("a9.rep", [3], {"RANK": "5"})), (3, "MPI rank"))
        self.assertEqual(rank_of(self.fake("a9.rep", [], {"RANK": "5", "LOCAL_RANK": "1"})), (5, "RANK"))
        self.assertEqual(rank_of(self.fake("a9.rep", [], {"LOCAL_RANK": "1", "OMPI_COMM_WORLD_RANK": "7"})),
                         (1, "LOCAL_RANK"))
        self.assertEqual(rank_of(self.fake("a9.rep", [], {"OMPI_COMM_WORLD_RANK": "7"})), (7, "OMPI_COMM_WORLD_RANK"))
        self.assertEqual(rank_of(self.fake("/d/node2_rank12.rep")), (12, "file name"))

    def test_ranks_in(self):
        two = types.SimpleNamespace(path="all.rep", processes=[{"mpi_rank": 1, "pid": 11}, {"mpi_rank": 0, "pid": 10}],
                                    session={"environment": {}})
        self.assertEqual(ranks_in(two), [(0, "MPI rank", 10), (1, "MPI rank", 11)])
        self.assertEqual(ranks_in(self.fake("r7.rep")), [(7, "file name", None)])

    def test_undecidable_and_duplicates(self):
        with self.assertRaisesRegex(RankError, "cannot tell its rank"):
            rank_of(self.fake("/d/report.rep"))
        with self.assertRaisesRegex(RankError, "holds 2 MPI ranks"):
            rank_of(self.fake("/d/all.rep", [0, 1]))
        with self.assertRaisesRegex(RankError, "MPI rank 1 is both process"):
            ranks_in(types.SimpleNamespace(path="x.rep", processes=[{"mpi_rank": 1, "pid": 5}, {"mpi_rank": 1, "pid": 6}],
                                           session={"environment": {}}))
        with self.assertRaisesRegex(RankError, "rank 3 is both a.rep and b.rep"):
            check_unique([(3, "a.rep"), (4, "c.rep"), (3, "b.rep")])


if __name__ == "__main__":
    unittest.main()
