// `sightline export`: writes a report as an SQLite database in the nsys export schema, as
// Chrome Trace Event JSON (Perfetto UI, chrome://tracing) or as CSV files (one per table).
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "app/cli/CommandLine.h"
#include "app/cli/Command.h"
#include "app/cli/ExportName.h"
#include "model/analysis/StatsCommon.h"
#include "model/analysis/TimeRange.h"
#include "model/export/ChromeTraceExporter.h"
#include "model/export/CsvExporter.h"
#include "model/export/SqliteExporter.h"
#include "app/cli/ReportInput.h"
#include "model/util/Format.h"

namespace sl::cli {
namespace {

// text and info: what `sightline info` prints, to a file or stdout.
int exportSummary(const std::string& input, const std::string& type, const std::string& output,
                  bool force) {
    std::error_code ec;
    if (output != "-" && !force && std::filesystem::exists(output, ec))
        return fail(output + " already exists (use --force-overwrite true to replace it)");
    std::vector<std::string> args = {"info"};
    if (type == "info") args.insert(args.end(), {"--format", "json"});
    args.push_back(input);
    return output == "-" ? runCommand(args) : runCommandToFile(args, output);
}

int runExport(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("export", argc, argv, &exitCode);
    if (!args) return exitCode;
    const std::string type = args->value("type"), times = args->value("times"),
                      tables = args->value("tables");
    std::string output = args->value("output");
    const bool force = args->isTrue("force-overwrite"), quiet = args->isTrue("quiet");
    const std::vector<std::string> inputs = reportPaths(args->positionals);
    if (type != "sqlite" && type != "json" && type != "csv" && type != "text" && type != "info")
        return usageError("export", "--type " + type + " is not written here; use sqlite, json, csv, text or info");
    if (inputs.size() != 1) return usageError("export", "expected one REPORT");
    if (!tables.empty() && type != "sqlite" && type != "csv")
        return usageError("export", "--tables applies to sqlite and csv");
    if (output == "-" && type != "json" && type != "text" && type != "info")
        return usageError("export", "only --type json, text or info can be written to stdout ('-o -')");
    if (output.empty()) output = exportFileName(inputs[0], type);
    if (type == "text" || type == "info") return exportSummary(inputs[0], type, output, force);
    exporter::ExportOptions o;
    o.overwrite = force;
    o.tablesRegex = tables;
    std::pair<int64_t, int64_t> window{INT64_MIN, INT64_MAX};
    if (!times.empty()) {
        auto w = analysis::parseTimeRange(times);
        if (!w) return usageError("export", "--times: " + w.error());
        window = *w;
    }
    ReadOptions read;
    read.levelOfDetail = false;  // exports draw nothing
    auto loaded = openReportInput(inputs[0], read);
    if (!loaded) return fail(loaded.error());
    const Report& report = **loaded;
    const int64_t origin = report.timeOrigin();
    if (window.first != INT64_MIN) o.start = origin + window.first;
    if (window.second != INT64_MAX) o.end = origin + window.second;

    const auto t0 = std::chrono::steady_clock::now();
    Result<exporter::ExportStats> r = type == "sqlite" ? exporter::exportSqlite(report, output, o)
                                    : type == "json"   ? exporter::exportChromeTrace(report, output, o)
                                                       : exporter::exportCsv(report, output, o);
    if (!r) return fail(r.error());
    if (quiet) return 0;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "Exported %s rows in %zu tables in %.2f s (%s rows/s): %s\n", formatCount(r->rows).c_str(),
                 r->tables.size(), s, formatCount(static_cast<uint64_t>(s > 0 ? static_cast<double>(r->rows) / s : 0)).c_str(),
                 output.c_str());
    return 0;
}

const Registrar kExport({"export", "export a report as nsys-schema SQLite, Chrome-trace JSON or CSV", runExport, false, 70});

}  // namespace
}  // namespace sl::cli
