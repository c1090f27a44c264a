// `sightline stats`: nsys-compatible statistical reports over a report, printed as columns,
// a table, CSV, TSV or JSON, to the terminal or to one file per report.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/ArgParser.h"
#include "app/cli/Command.h"
#include "model/analysis/StatsReports.h"
#include "model/analysis/TableFormatter.h"
#include "model/analysis/TimeRange.h"
#include "model/util/JsonWriter.h"
#include "app/cli/ReportInput.h"

namespace sl::cli {
namespace {

using namespace sl::analysis;

void printReportList() {
    std::printf("Available reports (default set marked *; old nsys names in brackets):\n\n");
    for (const auto& r : allReports()) {
        std::string name(r.name);
        if (!r.args.empty()) {
            std::string args;
            for (char c : r.args) args += c == ',' ? std::string("|:") : std::string(1, c);
            name += "[:" + args + "]";
        }
        std::printf("  %c %-36s %s%s\n", r.isDefault ? '*' : ' ', name.c_str(), std::string(r.description).c_str(),
                    r.alias.empty() ? "" : (" [" + std::string(r.alias) + "]").c_str());
    }
    std::printf("\nTimes are nanoseconds unless --timeunit says otherwise; Time (%%) is the share of the rows\n"
                "listed; Med is the middle value (mean of the two middle values for even counts); StdDev is\n"
                "the sample standard deviation.\n");
}

std::vector<std::string> reportSpecs(const std::vector<std::string>& given) {
    std::vector<std::string> out;
    for (const auto& g : given) {
        size_t b = 0;
        while (b <= g.size()) {
            size_t e = g.find(',', b);
            if (e == std::string::npos) e = g.size();
            if (e > b) out.push_back(g.substr(b, e - b));
            b = e + 1;
        }
    }
    if (out.empty())
        for (const ReportInfo* r : defaultReports()) out.emplace_back(r->name);
    return out;
}

// Resolves --filter-time and --filter-nvtx to an absolute window.
Status applyFilters(const Report& r, const std::string& time, const std::string& nvtx, StatsOptions& o) {
    if (!time.empty()) {
        auto w = parseTimeRange(time);
        if (!w) return makeError("--filter-time: " + w.error());
        const int64_t origin = r.timeOrigin();
        if (w->first != INT64_MIN) o.start = origin + w->first;
        if (w->second != INT64_MAX) o.end = origin + w->second;
    }
    if (!nvtx.empty()) {
        std::string range = nvtx, domain;
        size_t index = 0;
        if (size_t slash = range.rfind('/'); slash != std::string::npos) {
            try {
                index = std::stoul(range.substr(slash + 1));
            } catch (...) {
                return makeError("--filter-nvtx: '" + range.substr(slash + 1) + "' is not an instance number");
            }
            range.resize(slash);
        }
        if (size_t at = range.rfind('@'); at != std::string::npos) {
            domain = range.substr(at + 1);
            range.resize(at);
        }
        auto w = nvtxFilterWindow(r, range, domain, index);
        if (!w) return makeError("--filter-nvtx: " + w.error());
        o.start = std::max(o.start, w->first);
        o.end = std::min(o.end, w->second);
    }
    return {};
}

int runStats(int argc, char** argv) {
    std::vector<std::string> reports, inputs;
    std::string format = "column", output, timeUnit = "ns", filterTime, filterNvtx;
    bool helpReports = false;
    ArgParser p("sightline stats [options] REPORT",
                "Prints nsys-compatible statistical reports (same names, columns and definitions).\n"
                "Without -r, runs the default set: nvtx_sum, osrt_sum, cuda_api_sum, cuda_gpu_kern_sum,\n"
                "cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum.");
    p.multi('r', "report", "NAME[,NAME...]", "reports to run (NAME[:base|:mangled]); see --help-reports", &reports);
    p.option('f', "format", "FORMAT", "column, table, csv, tsv or json", &format, "column");
    p.option('o', "output", "PREFIX", "write PREFIX_<report>.<ext> per report instead of stdout ('-' for stdout)", &output);
    p.option(0, "timeunit", "UNIT", "ns, us, ms or s", &timeUnit, "ns");
    p.option(0, "filter-time", "START/END", "only events inside this window (from the session start; 10ms/2s)", &filterTime);
    p.option(0, "filter-nvtx", "RANGE[@DOMAIN][/N]", "only events inside the N-th (0-based) instance of an NVTX range",
             &filterNvtx);
    p.flag(0, "help-reports", "list the reports and exit", &helpReports);
    p.positionals("REPORT: a .rep file (or an nsys SQLite export / Chrome trace when importers are built)", &inputs);
    switch (p.parse(argc, argv)) {
        case ArgParser::Outcome::Help: std::printf("%s", p.help().c_str()); return 0;
        case ArgParser::Outcome::Error: return usageError("stats", p.error());
        case ArgParser::Outcome::Ok: break;
    }
    if (helpReports) {
        printReportList();
        return 0;
    }
    auto fmt = parseTableFormat(format);
    if (!fmt) return usageError("stats", "--format must be column, table, csv, tsv or json");
    if (!timeUnitNs(timeUnit)) return usageError("stats", "--timeunit must be ns, us, ms or s");
    if (inputs.size() != 1) return usageError("stats", "expected one REPORT");
    const std::vector<std::string> specs = reportSpecs(reports);
    for (const auto& s : specs)
        if (!findReport(s.substr(0, s.find(':')))) return usageError("stats", "unknown report '" + s + "' (see --help-reports)");

    auto loaded = openReportInput(inputs[0]);
    if (!loaded) return fail(loaded.error());
    const Report& report = **loaded;
    StatsOptions opts;
    if (Status s = applyFilters(report, filterTime, filterNvtx, opts); !s) return usageError("stats", s.error());
    opts.cache = std::make_shared<AnalysisCache>(report);
    FormatOptions fo{*fmt, timeUnit};
    const bool human = *fmt == TableFormat::Column || *fmt == TableFormat::Table;
    const bool toStdout = output.empty() || output == "-";
    // Several reports as JSON on stdout: one object keyed by report name, so the output stays
    // one JSON document ({"skipped": reason} for a report whose data is absent).
    const bool jsonObject = *fmt == TableFormat::Json && toStdout && specs.size() > 1;
    if (jsonObject) std::printf("{");
    bool first = true;
    for (const auto& spec : specs) {
        auto table = runReport(report, spec, opts);
        if (!table) return usageError("stats", table.error());
        const Table& t = *table;
        if (jsonObject) {
            std::string key;
            JsonWriter::escape(key, t.name);
            std::printf("%s\n%s: ", first ? "" : ",", key.c_str());
            first = false;
            if (!t.skipped.empty()) {
                std::string reason;
                JsonWriter::escape(reason, t.skipped);
                std::printf("{\"skipped\": %s}", reason.c_str());
                continue;
            }
            std::fflush(stdout);
            std::ostringstream one;
            writeTable(one, t, fo);
            std::string text = one.str();
            while (!text.empty() && text.back() == '\n') text.pop_back();
            std::cout << text;
            std::cout.flush();
            continue;
        }
        if (!t.skipped.empty()) {
            std::string msg = "SKIPPED: " + inputs[0] + " " + t.skipped;
            if (human && toStdout) std::printf("\n** %s (%s):\n\n%s\n", t.title.c_str(), t.name.c_str(), msg.c_str());
            else std::fprintf(stderr, "%s (%s)\n", msg.c_str(), t.name.c_str());
            continue;
        }
        if (!toStdout) {
            const std::string path = output + "_" + t.name + "." + std::string(formatExtension(*fmt));
            std::ofstream out(path, std::ios::binary);
            if (!out) return fail("cannot write " + path);
            writeTable(out, t, fo);
            out.close();
            if (!out) return fail("error writing " + path);
            std::fprintf(stderr, "Wrote %s\n", path.c_str());
            continue;
        }
        if (human) std::printf("\n** %s (%s):\n\n", t.title.c_str(), t.name.c_str());
        else if (!first) std::printf("\n");
        std::fflush(stdout);
        writeTable(std::cout, t, fo);
        std::cout.flush();
        first = false;
    }
    if (jsonObject) std::printf("\n}\n");
    return 0;
}

const Registrar kStats({"stats", "print statistical reports (nsys stats compatible)", runStats, false, 60});

}  // namespace
}  // namespace sl::cli
