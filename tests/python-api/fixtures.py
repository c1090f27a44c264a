"""Shared helpers of the Python API tests: the CLI, the fixture reports, a work directory."""
import json
import os
import shutil
import subprocess

CLI = os.environ["SIGHTLINE_CLI"]
DATA = os.environ["SIGHTLINE_TEST_DATA"]
SHARED = os.environ.get("SIGHTLINE_SHARED_FIXTURES", "")
WORK = os.environ["SIGHTLINE_TEST_WORK"]


def work_dir(name):
    path = os.path.join(WORK, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def cli(*args):
    """Runs `sightline ARGS`, returns stdout; a failure fails the test with its stderr."""
    p = subprocess.run([CLI, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"sightline {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return p.stdout


def info_json(rep):
    return json.loads(cli("info", "--format", "json", rep))


def fixture_inputs():
    """Every fixture trace: the .rep files of tests/data and the imports (nsys SQLite, Kineto)
    of tests/data/import and ../shared/fixtures (deduplicated by file name)."""
    seen, out = set(), []
    dirs = [os.path.join(DATA, "gpu"), os.path.join(DATA, "import")]
    if SHARED and os.path.isdir(SHARED):
        dirs += [os.path.join(SHARED, "nsys-sqlite"), os.path.join(SHARED, "kineto")]
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith((".rep", ".sqlite", ".json.gz", ".json")) and name not in seen:
                seen.add(name)
                out.append(os.path.join(d, name))
    return out


def as_rep(path, work):
    """The path itself for a .rep; else `sightline import` of it into `work` (info reads .rep only)."""
    if path.endswith(".rep"):
        return path
    base = os.path.basename(path).split(".")[0]
    out = os.path.join(work, base + ".rep")
    if not os.path.exists(out):
        cli("import", "-q", "-f", "true", "-o", out, path)
    return out


def generated(work, name="gen.rep", events=20000, seed=1):
    out = os.path.join(work, name)
    cli("generate", "-n", str(events), "-s", str(seed), "-f", "true", "-o", out)
    return out
