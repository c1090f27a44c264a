// `sightline export`: writes a report as an SQLite database in the nsys export schema, as
// Chrome Trace Event JSON (Perfetto UI, chrome://tracing) or as CSV files (one per table).
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "app/cli/ArgParser.h"
#include "app/cli/Command.h"
#include "model/analysis/StatsCommon.h"
#include "model/analysis/TimeRange.h"
#include "model/export/ChromeTraceExporter.h"
#include "model/export/CsvExporter.h"
#include "model/export/SqliteExporter.h"
#include "app/cli/ReportInput.h"
#include "model/util/Format.h"

namespace sl::cli {
namespace {

std::string defaultOutput(const std::string& input, const std::string& type) {
    std::filesystem::path p(input);
    p.replace_extension();
    if (type == "sqlite") return p.string() + ".sqlite";
    if (type == "json") return p.string() + ".json";
    return p.string() + "_csv";
}

int runExport(int argc, char** argv) {
    std::string type, output, times, tables;
    bool force = false;
    std::vector<std::string> inputs;
    ArgParser p("sightline export --type sqlite|json|csv [options] REPORT",
                "Exports a report. sqlite: the nsys export schema (CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, OSRT_API,\n"
                "StringIds, ThreadNames, PROCESSES, TARGET_INFO_*, GPU_METRICS, COMPOSITE_EVENTS and\n"
                "SAMPLING_CALLCHAINS for CPU samples, ENUM_*, META_DATA_EXPORT), so queries written for nsys\n"
                "exports run unchanged. json: Chrome Trace Event format for Perfetto UI and chrome://tracing\n"
                "(CPU samples as instants and as \"samples\" + \"stackFrames\"). csv: the sqlite tables as one\n"
                "CSV file per table in a directory.");
    p.option('t', "type", "TYPE", "sqlite, json or csv", &type);
    p.option('o', "output", "PATH", "output file (a directory for csv; '-' for json on stdout)", &output,
             "REPORT with .sqlite, .json or _csv");
    p.option(0, "times", "START/END", "only events inside this window (from the session start; 10ms/2s)", &times);
    p.option(0, "tables", "REGEX", "only tables whose name matches (sqlite, csv)", &tables);
    p.flag('f', "force-overwrite", "replace an existing output", &force);
    p.positionals("REPORT: a .rep file (or an nsys SQLite export / Chrome trace when importers are built)", &inputs);
    switch (p.parse(argc, argv)) {
        case ArgParser::Outcome::Help: std::printf("%s", p.help().c_str()); return 0;
        case ArgParser::Outcome::Error: return usageError("export", p.error());
        case ArgParser::Outcome::Ok: break;
    }
    if (type != "sqlite" && type != "json" && type != "csv") return usageError("export", "--type must be sqlite, json or csv");
    if (inputs.size() != 1) return usageError("export", "expected one REPORT");
    if (!tables.empty() && type == "json") return usageError("export", "--tables applies to sqlite and csv");
    if (output == "-" && type != "json") return usageError("export", "only --type json can be written to stdout ('-o -')");
    exporter::ExportOptions o;
    o.overwrite = force;
    o.tablesRegex = tables;
    std::pair<int64_t, int64_t> window{INT64_MIN, INT64_MAX};
    if (!times.empty()) {
        auto w = analysis::parseTimeRange(times);
        if (!w) return usageError("export", "--times: " + w.error());
        window = *w;
    }
    auto loaded = openReportInput(inputs[0]);
    if (!loaded) return fail(loaded.error());
    const Report& report = **loaded;
    const int64_t origin = report.timeOrigin();
    if (window.first != INT64_MIN) o.start = origin + window.first;
    if (window.second != INT64_MAX) o.end = origin + window.second;
    if (output.empty()) output = defaultOutput(inputs[0], type);

    const auto t0 = std::chrono::steady_clock::now();
    Result<exporter::ExportStats> r = type == "sqlite" ? exporter::exportSqlite(report, output, o)
                                    : type == "json"   ? exporter::exportChromeTrace(report, output, o)
                                                       : exporter::exportCsv(report, output, o);
    if (!r) return fail(r.error());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "Exported %s rows in %zu tables in %.2f s (%s rows/s): %s\n", formatCount(r->rows).c_str(),
                 r->tables.size(), s, formatCount(static_cast<uint64_t>(s > 0 ? static_cast<double>(r->rows) / s : 0)).c_str(),
                 output.c_str());
    return 0;
}

const Registrar kExport({"export", "export a report as nsys-schema SQLite, Chrome-trace JSON or CSV", runExport, false, 70});

}  // namespace
}  // namespace sl::cli
