"""`sightline recipe NAME --input DIR`: a recipe over every report in DIR as Dask tasks.

app/cli/RecipeCommand.cpp parses and checks the options (model/options is their one
definition) and runs this module with Debian's python3; it can also be run directly:
    python3 -m sightline.recipe_runner NAME --input DIR [--scheduler ADDRESS] [-o OUT] ...
Each report is one task on a dask.distributed cluster (a LocalCluster unless --scheduler names
a running scheduler): the task opens the report, tells its rank and runs the recipe's
map_report; only the small per-report tables travel back, and the recipe's reduce and summary
run here.
"""
import argparse
import importlib.util
import os
import resource
import sys
import time

REPORT_SUFFIXES = (".rep", ".sqlite", ".json", ".json.gz")
SHIPPED_PREFIX = "sightline.recipes."


class RecipeError(Exception):
    """A problem the user can fix (missing package, bad recipe, bad input); printed without a traceback."""


def _require(module, package):
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise RecipeError(f"recipes need the Python package {module} ({e}): "
                          f"apt install {package} (or pip install it into {sys.executable}'s environment)")


def load_recipe(name, source=None):
    """A shipped recipe by name, or a user's recipe from its .py file (or its source text, which
    is how a task receives it: workers on other machines need not see the file)."""
    from sightline import recipes
    if source is None and not name.endswith(".py"):
        try:
            return recipes.load(name)
        except KeyError:
            raise RecipeError(f"unknown recipe '{name}' (shipped: {', '.join(recipes.SHIPPED)}; "
                              "or give the path of your own recipe's .py file)") from None
    if source is None:
        try:
            with open(name) as f:
                source = f.read()
        except OSError as e:
            raise RecipeError(f"cannot read recipe {name}: {e.strerror}") from None
    module = type(sys)("sightline_user_recipe")
    module.__file__ = name
    try:
        exec(compile(source, name, "exec"), module.__dict__)
    except Exception as e:
        raise RecipeError(f"recipe {name} failed to load: {type(e).__name__}: {e}") from None
    if not callable(getattr(module, "map_report", None)):
        raise RecipeError(f"recipe {name} has no map_report(report, params) function (docs/python.md, Recipes)")
    return module


_loaded = {}


def run_one(recipe_name, source, path, params):
    """One Dask task: the recipe's tables of one report, each with its rank first (one per MPI
    rank when the report holds several, each from that rank's process's tracks alone)."""
    import sightline
    from sightline.ranks import ranks_in
    key = (recipe_name, source)
    if key not in _loaded:
        _loaded[key] = load_recipe(recipe_name, source)
    recipe = _loaded[key]
    kinds = getattr(recipe, "KINDS", None)
    report = sightline.open(path, kinds=kinds)
    parts = []
    for rank, how, pid in ranks_in(report, path):
        one = report if pid is None else sightline.open(path, kinds=kinds, pids=[pid])
        frame = recipe.map_report(one, dict(params))
        frame.insert(0, "Rank", rank)
        parts.append({"path": path, "rank": rank, "rank_from": how, "frame": frame})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    for p in parts:
        p["peak_rss"] = peak
    return parts


def find_reports(directory):
    if not os.path.exists(directory):
        raise RecipeError(f"--input {directory}: no such directory")
    if not os.path.isdir(directory):
        raise RecipeError(f"--input {directory}: not a directory (give the folder that holds the reports)")
    found = sorted(os.path.join(directory, n) for n in os.listdir(directory)
                   if n.endswith(REPORT_SUFFIXES) and os.path.isfile(os.path.join(directory, n)))
    if not found:
        raise RecipeError(f"--input {directory}: no reports (*{', *'.join(REPORT_SUFFIXES)}) in it")
    return found


def parse_params(items):
    params = {}
    for item in items:
        if "=" not in item:
            raise RecipeError(f"--param {item}: expected KEY=VALUE")
        k, v = item.split("=", 1)
        params[k.strip()] = v
    return params


def write_output(result, out, fmt):
    # run() checked beforehand that the file may be written and that Parquet can be.
    if fmt == "parquet":
        result.to_parquet(out, index=False)
    else:
        result.to_csv(out, index=False)


def start_client(scheduler, workers):
    distributed = _require("distributed", "python3-distributed")
    if scheduler:
        try:
            return distributed.Client(scheduler, timeout="20s"), None
        except (OSError, TimeoutError) as e:
            raise RecipeError(f"--scheduler {scheduler}: cannot connect ({e})") from None
    # Processes, not threads: map_report is Python (numpy and pandas), and one thread per worker
    # keeps a worker's memory to one report at a time.
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    return distributed.Client(cluster), cluster


def run(args):
    _require("dask", "python3-dask")
    pd = _require("pandas", "python3-pandas")
    recipe = load_recipe(args.recipe)
    source = None
    if args.recipe.endswith(".py"):
        with open(args.recipe) as f:
            source = f.read()
    params = parse_params(args.param)
    reports = find_reports(args.input)
    out = args.output or f"{getattr(recipe, 'NAME', 'recipe')}.{args.format}"
    if os.path.exists(out) and not args.force_overwrite:
        raise RecipeError(f"{out} already exists (use --force-overwrite true to replace it)")
    if args.format == "parquet":
        if not (importlib.util.find_spec("pyarrow") or importlib.util.find_spec("fastparquet")):
            raise RecipeError("--format parquet needs pyarrow or fastparquet (pip install pyarrow); "
                              "--format csv needs nothing more")
    t0 = time.perf_counter()
    client, cluster = start_client(args.scheduler, args.workers)
    started = time.perf_counter() - t0
    try:
        futures = client.map(run_one, [args.recipe] * len(reports), [source] * len(reports), reports,
                             [sorted(params.items())] * len(reports), pure=False)
        try:
            parts = [part for parts_of_one in client.gather(futures) for part in parts_of_one]
            tasks = time.perf_counter() - t0 - started
        except Exception as e:  # the task's own exception, re-raised here by distributed
            raise RecipeError(f"a task failed: {type(e).__name__}: {e}") from None
        workers = len(client.scheduler_info()["workers"])
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    from sightline.ranks import RankError, check_unique
    try:
        check_unique([(p["rank"], p["path"]) for p in parts])
    except RankError as e:
        raise RecipeError(str(e)) from None
    frames = [p["frame"] for p in sorted(parts, key=lambda p: p["rank"])]
    if hasattr(recipe, "reduce"):
        result = recipe.reduce(frames, params)
    else:
        result = pd.concat(frames, ignore_index=True)
    write_output(result, out, args.format)
    wall = time.perf_counter() - t0
    table = recipe.summary(result, params) if hasattr(recipe, "summary") else result
    if not args.quiet:
        print(f"** {getattr(recipe, 'DESCRIPTION', args.recipe)}\n")
        with pd.option_context("display.max_rows", 200, "display.max_columns", 30, "display.width", 200):
            print(table.to_string(index=False) if len(table) else "(no rows)")
        froms = sorted({p["rank_from"] for p in parts})
        peak = max(p["peak_rss"] for p in parts)
        print(f"\n{len(reports)} reports, {len(parts)} ranks (ranks from {', '.join(froms)}) on {workers} Dask workers in {wall:.2f} s """
              f"(cluster {'connected' if args.scheduler else 'started'} in {started:.2f} s, tasks {tasks:.2f} s); "
              f"peak task memory {peak / 2**20:.0f} MiB; wrote {out}")
    return 0


def parser():
    p = argparse.ArgumentParser(prog="sightline recipe", description=__doc__.split("\n")[0])
    p.add_argument("recipe", help="a shipped recipe's name or the path of a recipe .py file")
    p.add_argument("--input", required=True, help="the directory of reports, one per rank")
    p.add_argument("--scheduler", default="", help="address of a running dask.distributed scheduler")
    p.add_argument("-o", "--output", default="", help="output file (default: NAME.FORMAT here)")
    p.add_argument("--format", choices=("csv", "parquet"), default="csv")
    p.add_argument("--workers", type=int, default=max(1, min(os.cpu_count() or 1, 8)))
    p.add_argument("--param", action="append", default=[], help="KEY=VALUE for the recipe (repeatable)")
    p.add_argument("-f", "--force-overwrite", action="store_true")
    p.add_argument("-q", "--quiet", action="store_true")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return run(args)
    except RecipeError as e:
        print(f"sightline recipe: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
