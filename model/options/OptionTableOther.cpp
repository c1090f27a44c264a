// `sightline status` (nsys status) and Sightline's own commands: import, info, diff, generate.
#include "model/options/OptionBuilder.h"
#include "model/options/RemoteOptionRows.h"

namespace sl::options {

namespace {
using K = ValueKind;
}  // namespace

void addOtherOptions(std::vector<OptionDef>& out) {
    auto add = [&](Opt o) { out.push_back(std::move(o)); };

    constexpr std::string_view St = "status";
    add(Opt(St, "environment", 'e', K::Flag, "", "",
            "check whether this machine can capture, each check OK, WARN or FAIL with the fix"));
    add(Opt(St, "all", 0, K::Flag, "", "", "every check (the same as --environment here)")
            .differs("there is one environment to check"));
    add(Opt(St, "network", 'n', K::Flag, "", "", "check network profiling")
            .unavailable("network devices are not sampled; the environment is checked instead"));
    add(Opt(St, "session", 0, K::Text, "NAME", "", "the status of an interactive session")
            .unavailable("there are no interactive sessions"));
    add(Opt(St, "format", 0, K::Choice, "text|json", "text", "output format")
            .values({val("text"), val("json")})
            .extension());

    constexpr std::string_view I = "import";
    add(Opt(I, "output", 'o', K::Text, "FILE", "", "output report (default: INPUT with .rep; for a kept capture directory, the first free "
                "reportN.rep here, as profile names reports)")
            .extension());
    add(Opt(I, "force-overwrite", 'f', K::Switch, "", "false", "replace an existing output file")
            .extension());
    add(Opt(I, "quiet", 'q', K::Switch, "", "false", "print nothing on success").extension());

    constexpr std::string_view In = "info";
    add(Opt(In, "format", 0, K::Choice, "text|json", "text", "output format")
            .values({val("text"), val("json")})
            .extension());
    add(Opt(In, "verify", 0, K::Switch, "", "false",
            "also decode every event chunk and verify checksums")
            .extension());
    add(Opt(In, "event", 0, K::Text, "TRACK:INDEX|NAME", "",
            "show one event's details (as the GUI's details panel): TRACK as numbered under "
            "Tracks, INDEX from 0 in start order; or a NAME, its first event in time")
            .extension());

    constexpr std::string_view D = "diff";
    add(Opt(D, "report", 'r', K::List, "WHAT", "all", "what to compare")
            .values({val("kernels"), val("api"), val("nvtx"), val("memops"), val("samples"),
                     val("rules"), val("all")})
            .extension());
    add(Opt(D, "format", 'f', K::Choice, "FORMAT", "column", "output format")
            .values({val("column"), val("table"), val("csv"), val("tsv"), val("json")})
            .extension());
    add(Opt(D, "match", 0, K::Choice, "demangled|base", "demangled",
            "match kernels by full demangled name or base name")
            .values({val("demangled"), val("base")})
            .extension());
    add(Opt(D, "timeunit", 0, K::Choice, "UNIT", "ns", "unit of the time columns")
            .values({val("ns"), val("us"), val("ms"), val("s")})
            .extension());
    add(Opt(D, "output", 'o', K::Text, "FILE", "", "write to FILE instead of stdout").extension());

    constexpr std::string_view R = "remote";
    addRemoteConnectionOptions(out, R);
    add(Opt(R, "output", 'o', K::Text, "FILE", "",
            "fetch: the local report (the same %-patterns as profile -o; default: report%n)")
            .extension());
    add(Opt(R, "force-overwrite", 'f', K::Switch, "", "false", "fetch: replace an existing file")
            .extension());
    add(Opt(R, "format", 0, K::Choice, "text|json", "text", "output format of list, status and ls")
            .values({val("text"), val("json")})
            .extension());
    add(Opt(R, "quiet", 'q', K::Switch, "", "false", "fetch: print nothing on success").extension());

    // `sightline recipe` (issue #20): nsys recipe's --input/--output/--force-overwrite; the rest
    // are ours (nsys picks its Dask mode with --mode and recipe options by name).
    constexpr std::string_view Rc = "recipe";
    add(Opt(Rc, "input", 0, K::Text, "DIR", "", "the directory of reports, one per rank (required)"));
    add(Opt(Rc, "output", 'o', K::Text, "FILE", "",
            "the result table (default: NAME.csv or NAME.parquet in the current directory)")
            .differs("one file (CSV or Parquet), not a directory with a notebook"));
    add(Opt(Rc, "force-overwrite", 'f', K::Switch, "", "false", "replace an existing output file"));
    add(Opt(Rc, "scheduler", 0, K::Text, "ADDRESS", "",
            "a running dask.distributed scheduler (tcp://host:8786); default: a local cluster")
            .extension());
    add(Opt(Rc, "workers", 0, K::Integer, "N", "0",
            "workers of the local cluster (0: one per core, at most 8)")
            .range(0, 1024)
            .extension());
    add(Opt(Rc, "format", 0, K::Choice, "csv|parquet", "csv", "the output format (parquet needs pyarrow)")
            .values({val("csv"), val("parquet")})
            .extension());
    add(Opt(Rc, "param", 0, K::Text, "KEY=VALUE", "", "a parameter of the recipe (bins=40)")
            .repeatable()
            .extension());
    add(Opt(Rc, "quiet", 'q', K::Switch, "", "false", "print no summary").extension());

    constexpr std::string_view G = "generate";
    add(Opt(G, "events", 'n', K::Integer, "N", "1000000", "approximate number of events")
            .range(1, 10'000'000'000)
            .extension());
    add(Opt(G, "seed", 's', K::Integer, "N", "1", "random seed")
            .range(0, INT64_MAX)
            .extension());
    add(Opt(G, "threads", 0, K::Integer, "N", "4", "CPU threads launching work")
            .range(1, 1024)
            .extension());
    add(Opt(G, "gpus", 0, K::Integer, "N", "2", "GPUs").range(1, 64).extension());
    add(Opt(G, "rank", 0, K::Integer, "N", "-1", "the process's MPI rank (-1: none)")
            .range(-1, INT32_MAX)
            .extension());
    add(Opt(G, "host-gap", 0, K::Integer, "US", "0",
            "more host time after each training step, in microseconds (a straggler: its GPUs idle longer)")
            .range(0, 10'000'000)
            .extension());
    add(Opt(G, "zstd-level", 0, K::Integer, "N", "1", "zstd compression level")
            .range(-7, 22)
            .extension());
    add(Opt(G, "output", 'o', K::Text, "FILE", "", "output report (required)").extension());
    add(Opt(G, "force-overwrite", 'f', K::Switch, "", "false", "replace an existing output file")
            .extension());
}

}  // namespace sl::options
