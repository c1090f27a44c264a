#include "model/options/OptionDef.h"

#include <algorithm>

#include "model/options/OptionParser.h"

namespace sl::options {

namespace {

const std::vector<OptionDef>& allOptions() {
    static const std::vector<OptionDef> all = [] {
        std::vector<OptionDef> v;
        addProfileOptions(v);
        addReportOptions(v);
        addOtherOptions(v);
        return v;
    }();
    return all;
}

constexpr std::string_view kNoCuda =
    "this build has no CUDA capture (the CUDA toolkit was missing when it was built): CUDA is not "
    "traced";

}  // namespace

const std::vector<CommandDef>& commandDefs() {
    static const std::vector<CommandDef> all = {
        {"profile", "sightline profile [options] <program> [program arguments...]",
         "Runs a program, traces it and its whole process tree (CUDA, NVTX, OS runtime calls,\n"
         "processes, threads, CPU usage, scheduling, CPU samples with call stacks) and writes a\n"
         ".rep report. Options and values follow nsys profile; those nsys has that Sightline does\n"
         "not are accepted with a warning.",
         "the program and its arguments", true},
        {"stats", "sightline stats [options] REPORT",
         "Prints nsys-compatible statistical reports (same names, columns and definitions).\n"
         "Without -r, runs the default set: nvtx_sum, osrt_sum, cuda_api_sum, cuda_gpu_kern_sum,\n"
         "cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum.",
         "REPORT: a .rep file, an nsys SQLite export or a Chrome/Kineto trace"},
        {"export", "sightline export --type sqlite|json|csv [options] REPORT",
         "Exports a report. sqlite: the nsys export schema (CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS,\n"
         "OSRT_API, SCHED_EVENTS, StringIds, ThreadNames, PROCESSES, TARGET_INFO_*, GPU_METRICS,\n"
         "COMPOSITE_EVENTS and SAMPLING_CALLCHAINS, ENUM_*, META_DATA_EXPORT), so queries written\n"
         "for nsys exports run unchanged. json: Chrome Trace Event format for Perfetto UI and\n"
         "chrome://tracing. csv: the sqlite tables as one CSV file per table in a directory.",
         "REPORT: a .rep file, an nsys SQLite export or a Chrome/Kineto trace"},
        {"analyze", "sightline analyze [options] REPORT",
         "Runs expert-system rules over a report (nsys analyze).",
         "REPORT: a .rep file, an nsys SQLite export or a Chrome/Kineto trace"},
        {"status", "sightline status [-e|--environment]",
         "Checks whether this machine can capture: perf events (CPU sampling, context switches),\n"
         "kernel symbols, LD_PRELOAD, the CUDA driver, CUPTI and NVML, containers and PID\n"
         "namespaces, free disk space. Each line is OK, WARN or FAIL with the fix.",
         ""},
        {"import", "sightline import [options] [INPUT]",
         "Converts a trace from another tool into a Sightline report: an Nsight Systems SQLite export\n"
         "(nsys export --type=sqlite) or a Chrome trace JSON such as the PyTorch profiler's (.json,\n"
         ".json.gz). The format is recognized by content. What cannot be mapped is listed in the\n"
         "report's diagnostics (sightline info). A directory is a capture that `sightline profile`\n"
         "kept because its report could not be written (or because the profiler was killed): it is\n"
         "merged into the report it would have made. Without INPUT, lists the kept captures.",
         "INPUT: an nsys .sqlite export, a Chrome/Kineto .json[.gz] trace or a kept capture directory"},
        {"info", "sightline info [options] REPORT",
         "Shows the session, processes, threads, GPUs, event counts per kind and per track, and\n"
         "diagnostics of a report. With --event, one event's details instead, the fields the GUI's\n"
         "Details panel shows (--event 12:0, the first event of track 12; --event NAME).",
         "REPORT: a .rep file (or anything the importers read)"},
        {"diff", "sightline diff [options] A.rep B.rep",
         "Compares two reports: for each kernel, CUDA API function, NVTX range and memory-operation\n"
         "kind, count, total and average time in A and B, the delta (B - A) and percent change,\n"
         "largest absolute delta first; items found on one side only are marked. A header compares\n"
         "session durations and GPU busy time. With CPU samples in either report, a third table\n"
         "compares each function's share of the samples (self and total %, change in points). The\n"
         "last table compares the findings of `sightline analyze`'s rules: count and time on each\n"
         "side and whether the problem got better or worse.",
         "A.rep B.rep: the baseline and the comparison (.rep, or anything the importers read)"},
        {"remote", "sightline remote list|fetch|stop|status|ls|version --remote USER@HOST [ID|DIR]",
         "Works with the captures `sightline profile --remote` started on a remote machine (over\n"
         "SSH, in ~/.cache/sightline/remote there): list them, fetch a report (a capture whose\n"
         "connection was lost goes on there), stop one. status: the remote machine's environment\n"
         "checks; ls: a directory listing there; version: this sightline's versions as JSON.",
         "list | fetch ID | stop ID | status | ls [DIR] | version"},
        {"recipe", "sightline recipe NAME --input DIR [options]",
         "Runs a recipe over every report in DIR (one per rank) as Dask tasks, on a local\n"
         "dask.distributed cluster or on the scheduler --scheduler names, and writes its table (CSV or\n"
         "Parquet) and prints a summary. Recipes: cuda_gpu_kern_sum (kernel time per rank), nvtx_sum\n"
         "(NVTX range time per rank), comm_sum (NCCL and MPI time and imbalance per rank),\n"
         "cuda_gpu_time_util_map (GPU utilization per rank over time bins), or the path of your own\n"
         "recipe's .py file (docs/python.md). Needs python3 with the sightline module, dask and\n"
         "distributed.",
         "NAME: a shipped recipe or a recipe .py file"},
        {"generate", "sightline generate [options] -o OUT.rep",
         "Writes a synthetic report with realistic shapes (a training loop on several threads\n"
         "launching kernels and copies on two GPUs, nested NVTX ranges, metric samples),\n"
         "deterministic from a seed.",
         ""},
    };
    return all;
}

const CommandDef* findCommand(std::string_view name) {
    for (const auto& c : commandDefs())
        if (c.name == name) return &c;
    return nullptr;
}

std::vector<const OptionDef*> optionsOf(std::string_view command) {
    std::vector<const OptionDef*> out;
    for (const auto& o : allOptions())
        if (o.command == command) out.push_back(&o);
    return out;
}

const OptionDef* findOption(std::string_view command, std::string_view longName) {
    for (const auto& o : allOptions())
        if (o.command == command && o.name == longName) return &o;
    return nullptr;
}

Support effectiveSupport(const OptionDef& o, const BuildFeatures& f) {
    return o.needsCuda && !f.cuda ? Support::Unavailable : o.support;
}

Support effectiveSupport(const ValueDef& v, const BuildFeatures& f) {
    return v.needsCuda && !f.cuda ? Support::Unavailable : v.support;
}

std::string effectiveNote(const OptionDef& o, const BuildFeatures& f) {
    return std::string(o.needsCuda && !f.cuda ? kNoCuda : o.note);
}

std::string effectiveNote(const ValueDef& v, const BuildFeatures& f) {
    return std::string(v.needsCuda && !f.cuda ? kNoCuda : v.note);
}

bool Condition::holds(std::string_view current) const {
    if (option.empty()) return true;
    switch (test) {
        case Test::Is:
            return current == value;
        case Test::IsNot:
            return current != value;
        case Test::Has: {  // a comma-separated list with an item equal to `value`
            const std::vector<std::string> items = splitCommaList(current);
            return std::find(items.begin(), items.end(), value) != items.end();
        }
    }
    return true;
}

std::string_view supportName(Support s) {
    switch (s) {
        case Support::Implemented:
            return "implemented";
        case Support::Different:
            return "different";
        case Support::Unavailable:
            return "not available";
    }
    return "";
}

std::string_view kindName(ValueKind k) {
    switch (k) {
        case ValueKind::Switch:
            return "switch";
        case ValueKind::Choice:
            return "choice";
        case ValueKind::List:
            return "list";
        case ValueKind::Integer:
            return "integer";
        case ValueKind::Seconds:
            return "seconds";
        case ValueKind::Text:
            return "text";
        case ValueKind::Flag:
            return "flag";
    }
    return "";
}

}  // namespace sl::options
