// `sightline stats`, `export` and `analyze`: the options of `nsys stats`, `nsys export` and
// `nsys analyze` (NVIDIA Nsight Systems CLI reference), with their status here.
#include "model/options/OptionBuilder.h"

namespace sl::options {

namespace {

using K = ValueKind;

constexpr std::string_view kNoSqliteNeeded =
    "reports are read directly, no SQLite export is made or needed; the option is ignored";

std::vector<ValueDef> tableFormats() {
    return {val("column"), val("table"), val("csv"), val("tsv"), val("json"),
            differs("hdoc", "written as table"), differs("htable", "written as table"),
            val(".")};
}

std::vector<ValueDef> timeUnits() {
    return {val("ns"),
            val("us"),
            val("ms"),
            val("s"),
            alias("nsec", "ns"),
            alias("nanoseconds", "ns"),
            alias("usec", "us"),
            alias("microseconds", "us"),
            alias("msec", "ms"),
            alias("milliseconds", "ms"),
            alias("sec", "s"),
            alias("seconds", "s")};
}

// What stats and analyze share: nsys documents them once for both.
void addTableOutputOptions(std::vector<OptionDef>& out, std::string_view cmd) {
    auto add = [&](Opt o) { out.push_back(std::move(o)); };
    add(Opt(cmd, "format", 'f', K::List, "FORMAT[,...]", "column",
            "output format of each report, in order (the last repeats); '.' is the output's "
            "default: column on the console, csv in files")
            .values(tableFormats())
            .repeatable());
    add(Opt(cmd, "output", 'o', K::Text, "-|.|BASE[,...]", "-",
            "where each report goes, in order (the last repeats): - the console, . a file named "
            "after the input, BASE a file BASE_<report>.<ext>")
            .repeatable());
    add(Opt(cmd, "timeunit", 0, K::Choice, "UNIT", "ns", "unit of the time columns")
            .values(timeUnits()));
    add(Opt(cmd, "filter-time", 0, K::Text, "START/END", "",
            "only events inside this window (from the session start; 10ms/2s)"));
    add(Opt(cmd, "filter-nvtx", 0, K::Text, "RANGE[@DOMAIN][/N]", "",
            "only events inside the N-th (0-based) instance of an NVTX range"));
    add(Opt(cmd, "force-overwrite", 0, K::Switch, "", "false", "replace existing output files"));
    add(Opt(cmd, "force-export", 0, K::Switch, "", "false", "export the SQLite file again")
            .differs(kNoSqliteNeeded));
    add(Opt(cmd, "sqlite", 0, K::Text, "FILE", "", "the SQLite export to use or create")
            .differs(kNoSqliteNeeded));
    add(Opt(cmd, "quiet", 'q', K::Flag, "", "", "only errors, no messages"));
    add(Opt(cmd, "help-formats", 0, K::Flag, "", "", "list the output formats and exit"));
}

}  // namespace

void addReportOptions(std::vector<OptionDef>& out) {
    auto add = [&](Opt o) { out.push_back(std::move(o)); };

    constexpr std::string_view S = "stats";
    add(Opt(S, "report", 'r', K::Text, "NAME[:ARGS][,...]", "",
            "reports to run, in order (see --help-reports); default: nvtx_sum, osrt_sum, "
            "cuda_api_sum, cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum")
            .repeatable());
    addTableOutputOptions(out, S);
    add(Opt(S, "help-reports", 0, K::Flag, "", "", "list the reports (=NAME: one) and exit"));
    add(Opt(S, "per-rank", 0, K::Switch, "", "false",
            "one table per summary report over every rank: several REPORTs (a report per rank) "
            "or one that holds every rank; each rank's total per name, min, median, max, the "
            "slowest rank and the imbalance"));
    add(Opt(S, "report-dir", 0, K::Text, "DIR", "", "more folders of report scripts")
            .unavailable("the reports are built in; there are no report scripts")
            .repeatable());

    constexpr std::string_view E = "export";
    add(Opt(E, "type", 't', K::Choice, "TYPE", "sqlite", "the export format")
            .values({val("sqlite"),
                     differs("json", "Chrome Trace Event JSON (Perfetto, chrome://tracing), not "
                                     "nsys's JSON lines"),
                     ValueDef{"csv", Support::Implemented, "Sightline only: one CSV file per table"},
                     differs("text", "the report's summary as `sightline info` prints it"),
                     na("jsonlines", "not written; use json (Chrome trace) or sqlite"),
                     na("arrow", "not written; use sqlite"), na("arrowdir", "not written; use sqlite"),
                     na("parquetdir", "not written; use sqlite"), na("hdf", "not written; use sqlite"),
                     differs("info", "the report's summary as `sightline info --format json` prints it")}));
    add(Opt(E, "output", 'o', K::Text, "PATH", "",
            "output file (a folder for csv; - for json or text on stdout); default: the input "
            "with the type's extension"));
    add(Opt(E, "force-overwrite", 'f', K::Switch, "", "false", "replace an existing output"));
    add(Opt(E, "times", 0, K::Text, "START/END", "",
            "only events inside this window (from the session start; 10ms/2s)"));
    add(Opt(E, "tables", 0, K::Text, "REGEX", "", "only tables whose name matches (sqlite, csv)"));
    add(Opt(E, "quiet", 'q', K::Switch, "", "false", "no messages"));
    add(Opt(E, "lazy", 'l', K::Switch, "", "true", "create a table only when it has rows")
            .differs("the tables of what the report holds are always created"));
    add(Opt(E, "append", 0, K::Flag, "", "", "keep existing files of directory formats")
            .unavailable("there are no directory formats besides csv, which is written whole"));
    add(Opt(E, "dynamic-tables", 0, K::Text, "none|all|REGEX", "none",
            "NVTX payload schemas as tables")
            .unavailable("NVTX payloads are exported as values of NVTX_EVENTS"));
    add(Opt(E, "include-blobs", 0, K::Switch, "", "false", "NVTX payloads as binary data")
            .unavailable("NVTX payloads are exported as values"));
    add(Opt(E, "include-json", 0, K::Switch, "", "false", "also export JSON blocks of events")
            .unavailable("events are exported as table rows only"));
    add(Opt(E, "ts-normalize", 0, K::Switch, "", "false", "timestamps as UTC wall clock")
            .unavailable("timestamps stay on the report's clock"));
    add(Opt(E, "ts-shift", 0, K::Integer, "NS", "0", "shift every timestamp")
            .range(INT64_MIN / 2, INT64_MAX / 2)
            .unavailable("timestamps stay on the report's clock"));
    add(Opt(E, "separate-strings", 0, K::Switch, "", "false", "old nsys option of json/text exports")
            .unavailable("strings are written in place"));

    constexpr std::string_view A = "analyze";
    add(Opt(A, "rule", 'r', K::Text, "RULE[:OPTION=VALUE...][,...]", "all",
            "rules to run (see --help-rules): nsys's cuda_memcpy_async, cuda_memcpy_sync, "
            "cuda_memset_sync, cuda_api_sync, gpu_gaps, gpu_time_util, Sightline's "
            "gpu_idle_breakdown, nvtx_gpu_idle, copy_compute_overlap, communication, short_kernels, "
            "kernel_categories, launch_latency, or all")
            .repeatable());
    addTableOutputOptions(out, A);
    for (auto& o : out)
        if (o.command == A && o.name == "format")  // and "text", the findings in words (column)
            o.values.push_back(alias("text", "column"));
    add(Opt(A, "help-rules", 0, K::Flag, "", "", "list the rules (=RULE: one) and exit"));
}

}  // namespace sl::options
