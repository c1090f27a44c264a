"""sightline.open on the fixtures: metadata and counts equal `sightline info`, event arrays equal
`sightline export` rows, zero-copy views keep the report alive, bad input raises clear errors."""
import csv
import gc
import os
import unittest

import numpy as np

import sightline
from fixtures import as_rep, cli, fixture_inputs, generated, info_json, work_dir


class CountsMatchInfo(unittest.TestCase):
    def check(self, opened, rep):
        info = info_json(rep)
        self.assertEqual(len(opened.processes), len(info["processes"]))
        self.assertEqual([p["pid"] for p in opened.processes], [p["pid"] for p in info["processes"]])
        self.assertEqual([p.get("mpi_rank") for p in opened.processes],
                         [p.get("mpi_rank") for p in info["processes"]])
        self.assertEqual(len(opened.threads), len(info["threads"]))
        self.assertEqual(len(opened.gpus), len(info["gpus"]))
        self.assertEqual([(d["name"], d["count"]) for d in opened.diagnostics],
                         [(d["name"], d["count"]) for d in info["diagnostics"]])
        self.assertEqual(opened.event_count(), info["events"]["total"])
        for kind, count in info["events"]["by_kind"].items():
            self.assertEqual(opened.event_count(kind), count, kind)
            self.assertEqual(len(opened.events(kind)["start"]), count, kind)
        self.assertEqual(sorted(opened.kinds()), sorted(info["events"]["by_kind"]))
        self.assertEqual(len(opened.tracks), len(info["tracks"]))
        for t, ti in zip(opened.tracks, info["tracks"]):
            self.assertEqual((t.kind, t.title, len(t), t.lanes), (ti["kind"], ti["title"], ti["events"], ti["lanes"]))
            for field, value in t.owner.items():
                self.assertEqual(value, ti[field], (t.title, field))

    def test_fixtures(self):
        work = work_dir("counts")
        inputs = fixture_inputs()
        self.assertGreaterEqual(len(inputs), 5, inputs)
        for path in inputs:
            with self.subTest(path=os.path.basename(path)):
                rep = as_rep(path, work)
                self.check(sightline.open(rep), rep)
                if rep != path:  # the import itself, read on the fly like `sightline stats` does
                    self.check(sightline.open(path), rep)

    def test_generated(self):
        rep = generated(work_dir("generated"))
        self.check(sightline.open(rep), rep)


class ArraysMatchExport(unittest.TestCase):
    """Kernels and NVTX ranges against the nsys-schema CSV export (times from the session start)."""

    @classmethod
    def setUpClass(cls):
        work = work_dir("export")
        cls.rep = generated(work)
        cls.out = os.path.join(work, "csv")
        cli("export", "--type", "csv", "-o", cls.out, cls.rep)
        with open(os.path.join(cls.out, "StringIds.csv")) as f:
            cls.strings = {int(r["id"]): r["value"] for r in csv.DictReader(f)}
        cls.report = sightline.open(cls.rep)
        cls.origin = int(cls.report.session["start_monotonic_ns"] or cls.report.time_origin)

    def rows(self, table):
        with open(os.path.join(self.out, table + ".csv")) as f:
            return list(csv.DictReader(f))

    def test_kernels(self):
        ev = self.report.events("kernel")
        rows = self.rows("CUPTI_ACTIVITY_KIND_KERNEL")
        self.assertEqual(len(rows), len(ev["start"]))
        by_corr = {int(r["correlationId"]): r for r in rows}
        names = self.report.strings(ev["name"])
        picked = np.linspace(0, len(ev["start"]) - 1, 25).astype(int)
        for i in picked:
            r = by_corr[int(ev["correlation"][i])]
            self.assertEqual(int(r["start"]), ev["start"][i] - self.origin)
            self.assertEqual(int(r["end"]), ev["end"][i] - self.origin)
            self.assertIn(names[i], (self.strings[int(r["demangledName"])], self.strings[int(r["shortName"])]))
            track = self.report.tracks[int(ev["track"][i])]
            self.assertEqual((int(r["deviceId"]), int(r["streamId"])), (track.owner["device"], track.owner["stream"]))

    def test_nvtx_ranges(self):
        ev = self.report.events("nvtx_range")
        rows = [r for r in self.rows("NVTX_EVENTS") if r["end"]]
        exported = sorted((int(r["start"]), int(r["end"]), r["text"] or self.strings[int(r["textId"])]) for r in rows)
        names = self.report.strings(ev["name"])
        ours = sorted((int(s) - self.origin, int(e) - self.origin, n) for s, e, n in zip(ev["start"], ev["end"], names))
        self.assertEqual(ours, exported)

    def test_track_views_equal_kind_copy(self):
        ev = self.report.events("kernel")
        for t in self.report.tracks:
            if t.kind != "kernel":
                continue
            mine = t.events()
            sel = ev["track"] == t.index
            for col in ("start", "end", "name", "correlation", "launch"):
                np.testing.assert_array_equal(mine[col], ev[col][sel], err_msg=col)


class ZeroCopy(unittest.TestCase):
    def test_views_are_read_only_and_keep_the_report(self):
        rep = generated(work_dir("zerocopy"))
        r = sightline.open(rep)
        track = next(t for t in r.tracks if t.kind == "kernel")
        ev = track.events()
        expected = ev["start"].copy()
        self.assertFalse(ev["start"].flags.writeable)
        self.assertFalse(ev["start"].flags.owndata)  # a view, not a copy
        with self.assertRaises(ValueError):
            ev["start"][0] = 1
        del r, track
        gc.collect()
        np.testing.assert_array_equal(ev["start"], expected)

    def test_instants_end_is_start(self):
        rep = generated(work_dir("instants"))
        r = sightline.open(rep)
        metric = next(t for t in r.tracks if t.kind == "metric")
        ev = metric.events()
        self.assertFalse(sightline.schema("metric")["has_end"])
        np.testing.assert_array_equal(ev["end"], ev["start"])
        self.assertEqual(ev["value"].dtype, np.float64)


class CallStacks(unittest.TestCase):
    def test_cpu_sample_stacks_name_their_frames(self):
        """A real capture's CPU samples: each `stack` id gives its frames, leaf first, with the
        text the CLI's sample reports show; an id past the table is an IndexError."""
        work = work_dir("stacks")
        rep = os.path.join(work, "sh.rep")
        cli("profile", "-q", "true", "-f", "true", "-s", "process-tree", "--sampling-frequency", "2000",
            "-o", rep, "/bin/sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
        r = sightline.open(rep)
        ev = r.events("cpu_sample")
        self.assertGreater(len(ev["stack"]), 10)
        modules = set()
        for stack in set(ev["stack"].tolist()):
            frames = r.call_stack(stack)
            self.assertGreater(len(frames), 0)
            for f in frames:
                self.assertEqual(set(f), {"function", "module", "offset", "python", "text"})
                self.assertFalse(f["python"])
                modules.add(os.path.basename(f["module"]))
        self.assertIn("dash", modules)  # /bin/sh is dash on Debian
        self.assertLessEqual(max(ev["stack"]), r.call_stack_count - 1)
        with self.assertRaisesRegex(IndexError, "call stack"):
            r.call_stack(r.call_stack_count)


class Errors(unittest.TestCase):
    def test_missing_file(self):
        with self.assertRaisesRegex(FileNotFoundError, "no-such.rep"):
            sightline.open(os.path.join(work_dir("missing"), "no-such.rep"))

    def test_corrupt_file(self):
        work = work_dir("corrupt")
        rep = generated(work)
        data = open(rep, "rb").read()
        bad = os.path.join(work, "truncated.rep")
        with open(bad, "wb") as f:
            f.write(data[: len(data) // 2])
        with self.assertRaises(sightline.ReportError) as e:
            sightline.open(bad)
        self.assertIn("truncated.rep", str(e.exception))
        garbage = os.path.join(work, "garbage.json")
        with open(garbage, "w") as f:
            f.write("{ not json")
        with self.assertRaisesRegex(sightline.ReportError, "garbage.json"):
            sightline.open(garbage)

    def test_unknown_kind_and_unloaded_kind(self):
        rep = generated(work_dir("kinds"))
        with self.assertRaisesRegex(ValueError, "unknown event kind 'kernels'"):
            sightline.open(rep).events("kernels")
        r = sightline.open(rep, kinds=["kernel"])
        self.assertGreater(len(r.events("kernel")["start"]), 0)
        # One kind may be given alone (it was iterated letter by letter: "unknown event kind 'k'").
        alone = sightline.open(rep, kinds="kernel")
        self.assertEqual(alone.event_count("kernel"), r.event_count("kernel"))
        with self.assertRaisesRegex(sightline.ReportError, "nvtx_range.*not loaded"):
            r.events("nvtx_range")
        with self.assertRaisesRegex(sightline.ReportError, "not loaded"):
            r.stats("nvtx_sum")

    def test_pids_filter(self):
        from test_recipes import two_ranks_export
        work = work_dir("pids")
        job = os.path.join(work, "job.sqlite")
        cli("export", "-q", "--type", "sqlite", "-o", job, generated(work))
        pid, pid2 = two_ranks_export(job)
        whole = sightline.open(job)
        self.assertEqual([p["mpi_rank"] for p in whole.processes], [0, 1])
        first, second = sightline.open(job, pids=[pid]), sightline.open(job, pids=[pid2])
        self.assertEqual(sightline.open(job, pids=pid).event_count("kernel"), first.event_count("kernel"))
        self.assertEqual(first.event_count("kernel") + second.event_count("kernel"), whole.event_count("kernel"))
        self.assertEqual(second.stats("cuda_gpu_kern_sum")["Total Time (ns)"].sum(),
                         2 * first.stats("cuda_gpu_kern_sum")["Total Time (ns)"].sum())
        other = next(t for t in first.tracks if t.kind == "kernel" and t.owner["pid"] == pid2)
        with self.assertRaisesRegex(sightline.ReportError, f"process {pid2} were not loaded"):
            other.events()
        with self.assertRaisesRegex(sightline.ReportError, "no process 999999"):
            sightline.open(job, pids=[999999])

    def test_kinds_come_from_the_schema_table(self):
        kinds = sightline.kinds()
        for k in ("kernel", "nvtx_range", "cuda_api", "metric"):
            self.assertIn(k, kinds)
        self.assertEqual(len(kinds), len(set(kinds)))
        for k in kinds:
            self.assertEqual(sightline.schema(k)["id"], k)


if __name__ == "__main__":
    unittest.main()
