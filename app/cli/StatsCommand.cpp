// `sightline stats`: nsys-compatible statistical reports over a report, printed as columns,
// a table, CSV, TSV or JSON, to the terminal or to one file per report.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/InputStem.h"
#include "app/cli/CommandLine.h"
#include "app/cli/RankedReports.h"
#include "app/cli/Command.h"
#include "model/analysis/CrossRank.h"
#include "model/analysis/DurationScan.h"
#include "model/analysis/StatsReports.h"
#include "model/analysis/TableFormatter.h"
#include "model/analysis/TimeRange.h"
#include "model/util/JsonWriter.h"
#include "app/cli/ReportInput.h"
#include "app/cli/TableOutputOptions.h"
#include "model/options/OptionParser.h"

namespace sl::cli {
namespace {

using namespace sl::analysis;

// --help-reports lists them all; --help-reports=NAME (a name or an old nsys name) just that one.
void printReportList(const ReportInfo* only) {
    std::printf("Available reports (default set marked *; old nsys names in brackets):\n\n");
    for (const auto& r : allReports()) {
        if (only && &r != only) continue;
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
    for (const auto& g : given)
        for (auto& item : options::splitCommaList(g)) out.push_back(std::move(item));
    if (out.empty())
        for (const ReportInfo* r : defaultReports()) out.emplace_back(r->name);
    return out;
}

// --per-rank: each input's ranks (the MPI rank of its processes; a report without one is
// numbered by its place on the command line), each spec run per rank, one cross-rank table per
// spec, printed like the others.
int runPerRank(const options::ParsedArgs& args, const std::vector<std::string>& inputs,
               const std::vector<std::string>& specs) {
    const ReadOptions ro = statsReadOptions(specs, !args.value("filter-nvtx").empty());
    auto opened = openRankedReports(inputs, ro, args.given("quiet"));
    if (!opened) return fail(opened.error());
    const std::vector<RankedReport>& ranked = *opened;
    const std::string timeUnit = args.value("timeunit");
    const std::vector<std::string> formats = flatten(args.values("format"));
    static const std::string kDefault = ".";
    const std::string formatName = nth(formats, 0, kDefault) == "." ? "column" : nth(formats, 0, kDefault);
    auto fmt = parseTableFormat(formatName);
    if (!fmt) return usageError("stats", "--format: '" + formatName + "' is not a format");
    const bool human = *fmt == TableFormat::Column || *fmt == TableFormat::Table;
    for (const std::string& spec : specs) {
        std::vector<Table> tables;
        tables.reserve(ranked.size());
        for (const auto& r : ranked) {
            StatsOptions opts;
            if (Status s = applyFilters(*r.report, args.value("filter-time"), args.value("filter-nvtx"), opts); !s)
                return usageError("stats", s.error());
            auto t = runReport(*r.report, spec, opts);
            if (!t) return usageError("stats", t.error());
            tables.push_back(std::move(*t));
        }
        std::vector<RankTable> in;
        for (size_t i = 0; i < ranked.size(); ++i) in.push_back({ranked[i].rank, &tables[i]});
        auto cross = crossRankTable(in);
        if (!cross) return fail(cross.error());
        if (!cross->skipped.empty()) {
            if (human) std::printf("\n** %s (%s):\n\nSKIPPED: %s\n", cross->title.c_str(), cross->name.c_str(), cross->skipped.c_str());
            continue;
        }
        if (human) std::printf("\n** %s (%s):\n\n", cross->title.c_str(), cross->name.c_str());
        std::fflush(stdout);
        writeTable(std::cout, *cross, FormatOptions{*fmt, timeUnit});
        std::cout.flush();
    }
    return 0;
}

int runStats(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("stats", argc, argv, &exitCode);
    if (!args) return exitCode;
    if (args->given("help-reports")) {
        const std::string name = args->value("help-reports");
        const ReportInfo* only = name == "true" || name == "ALL" ? nullptr : findReport(name);
        if (name != "true" && name != "ALL" && !only)
            return usageError("stats", "--help-reports: unknown report '" + name + "'");
        printReportList(only);
        return 0;
    }
    if (args->given("help-formats")) {
        printTableFormats();
        return 0;
    }
    const std::vector<std::string> inputs = reportPaths(args->positionals);
    const bool perRank = args->isTrue("per-rank");
    if (inputs.empty() || (inputs.size() != 1 && !perRank))
        return usageError("stats", "expected one REPORT (several with --per-rank)");
    const std::string timeUnit = args->value("timeunit");
    const bool quiet = args->given("quiet"), force = args->isTrue("force-overwrite");
    const std::vector<std::string> specs = reportSpecs(args->values("report"));
    for (const auto& s : specs)
        if (!findReport(s.substr(0, s.find(':'))))
            return usageError("stats", "unknown report '" + s + "' (see --help-reports)");
    std::vector<std::string> formats = flatten(args->values("format"));
    const std::vector<std::string> outputs = flatten(args->values("output"));
    for (const auto& o : outputs)
        if (!o.empty() && o[0] == '@')
            return usageError("stats", "--output " + o +
                                           ": piping to a command is not supported; use a shell "
                                           "pipe (sightline stats ... | command)");
    // '.' as an output: files named after the input, as nsys names them after its SQLite file.
    const std::string inputBase = inputStem(inputs[0]);

    if (perRank && !outputs.empty())
        return usageError("stats", "--per-rank prints its tables; --output is not supported with "
                                   "it (redirect the output, with --format csv for a file)");
    if (perRank) return runPerRank(*args, inputs, specs);
    // Kinds that the reports read only as per-name durations are folded from a .rep's chunks
    // instead of loaded (DurationScan.h).
    const bool nvtxFilter = !args->value("filter-nvtx").empty();
    KindSet scanned = sniffFileType(inputs[0]) == "rep" ? scannedKindsFor(specs, nvtxFilter) : KindSet{};
    std::unique_ptr<RepFile> scanFile;
    if (!scanned.empty()) {
        auto file = RepFile::open(inputs[0]);
        if (!file) return fail(file.error());
        scanFile = std::move(*file);
        // NVTX ranges of very many (domain, name) pairs group faster loaded.
        if (scanned.has(EventKind::NvtxRange) && !nvtxScanFits(scanFile->metadata()))
            scanned = scanned.without(KindSet{EventKind::NvtxRange});
    }
    auto loaded = openReportInput(inputs[0], statsReadOptions(specs, nvtxFilter, scanned));
    if (!loaded) return fail(loaded.error());
    const Report& report = **loaded;
    StatsOptions opts;
    if (Status s = applyFilters(report, args->value("filter-time"), args->value("filter-nvtx"), opts); !s)
        return usageError("stats", s.error());
    if (!scanned.empty()) {
        auto folded = scanKinds(*scanFile, scanned, opts);
        if (!folded) return fail(folded.error());
        opts.scanned = std::move(*folded);
    }
    opts.cache = std::make_shared<AnalysisCache>(report);
    static const std::string kConsole = "-", kDefault = ".";
    // Several reports as JSON on stdout: one object keyed by report name, so the output stays
    // one JSON document ({"skipped": reason} for a report whose data is absent).
    bool allJsonConsole = specs.size() > 1;
    for (size_t i = 0; i < specs.size(); ++i)
        allJsonConsole &= nth(formats, i, kDefault) == "json" && nth(outputs, i, kConsole) == "-";
    if (allJsonConsole) std::printf("{");
    bool first = true;
    for (size_t i = 0; i < specs.size(); ++i) {
        const std::string& spec = specs[i];
        const std::string& where = nth(outputs, i, kConsole);
        const bool toStdout = where == "-";
        std::string formatName = nth(formats, i, kDefault);
        if (formatName == ".") formatName = toStdout ? "column" : "csv";
        if (formatName == "hdoc" || formatName == "htable") formatName = "table";
        auto fmt = parseTableFormat(formatName);
        if (!fmt) return usageError("stats", "--format: '" + formatName + "' is not a format");
        FormatOptions fo{*fmt, timeUnit};
        const bool human = *fmt == TableFormat::Column || *fmt == TableFormat::Table;
        auto table = runReport(report, spec, opts);
        if (!table) return usageError("stats", table.error());
        const Table& t = *table;
        if (allJsonConsole) {
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
            else if (!quiet) std::fprintf(stderr, "%s (%s)\n", msg.c_str(), t.name.c_str());
            continue;
        }
        if (!toStdout) {
            const std::string base = where == "." ? inputBase : where;
            const std::string path = base + "_" + t.name + "." + std::string(formatExtension(*fmt));
            std::error_code ec;
            if (!force && std::filesystem::exists(path, ec))
                return fail(path + " already exists (use --force-overwrite true to replace it)");
            std::ofstream out(path, std::ios::binary);
            if (!out) return fail("cannot write " + path);
            writeTable(out, t, fo);
            out.close();
            if (!out) return fail("error writing " + path);
            if (!quiet) std::fprintf(stderr, "Wrote %s\n", path.c_str());
            continue;
        }
        if (human) std::printf("\n** %s (%s):\n\n", t.title.c_str(), t.name.c_str());
        else if (!first) std::printf("\n");
        std::fflush(stdout);
        writeTable(std::cout, t, fo);
        std::cout.flush();
        first = false;
    }
    if (allJsonConsole) std::printf("\n}\n");
    return 0;
}

const Registrar kStats({"stats", "print statistical reports (nsys stats compatible)", runStats, false, 60});

}  // namespace
}  // namespace sl::cli
