// `sightline diff A.rep B.rep`: what changed between two runs, per kernel, CUDA API function,
// NVTX range and memory-operation kind, largest change first.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include "app/cli/CommandLine.h"
#include "app/cli/Command.h"
#include "model/analysis/ReportDiff.h"
#include "model/analysis/SampleDiff.h"
#include "model/analysis/TableFormatter.h"
#include "model/analysis/rules/FindingsDiff.h"
#include "app/cli/ReportInput.h"
#include "model/util/Format.h"
#include "model/util/JsonWriter.h"

namespace sl::cli {
namespace {

using namespace sl::analysis;

// `samples`: the CPU-sample comparison, or nullptr when not asked for or neither side has samples;
// `rules`: the analyze rules' findings side by side, or nullptr when not asked for.
void writeDiff(std::ostream& out, const DiffResult& d, const Table* samples, const Table* rules, const FormatOptions& fo,
               const std::string& a, const std::string& b) {
    const Table summary = diffSummaryTable(d), items = diffItemsTable(d);
    switch (fo.format) {
        case TableFormat::Json:
        {
            std::string qa, qb;
            JsonWriter::escape(qa, a);
            JsonWriter::escape(qb, b);
            out << "{\"baseline\": " << qa << ", \"comparison\": " << qb << ",\n\"summary\": ";
            writeTable(out, summary, fo);
            out << ",\n\"items\": ";
            writeTable(out, items, fo);
            if (samples) {
                out << ",\n\"samples\": ";
                writeTable(out, *samples, fo);
            }
            if (rules) {
                out << ",\n\"rules\": ";
                writeTable(out, *rules, fo);
            }
            out << "}\n";
            return;
        }
        case TableFormat::Csv:
        case TableFormat::Tsv:
            writeTable(out, summary, fo);
            out << "\n";
            writeTable(out, items, fo);
            if (samples) {
                out << "\n";
                writeTable(out, *samples, fo);
            }
            if (rules) {
                out << "\n";
                writeTable(out, *rules, fo);
            }
            return;
        case TableFormat::Column:
        case TableFormat::Table:
            out << "A (baseline):   " << a << "\nB (comparison): " << b << "\n\n";
            out << "  Duration   A " << formatDuration(d.baseline.durationNs) << ", B " << formatDuration(d.comparison.durationNs)
                << "\n  GPU busy   A " << formatDuration(d.baseline.gpuBusyNs) << ", B " << formatDuration(d.comparison.gpuBusyNs)
                << "\n\n";
            writeTable(out, summary, fo);
            out << "\n";
            writeTable(out, items, fo);
            if (samples) {
                out << "\n" << samples->title << ":\n\n";
                writeTable(out, *samples, fo);
            }
            if (rules) {
                out << "\n" << rules->title << " (sightline analyze):\n\n";
                if (rules->rowCount() == 0)
                    out << "No rule found anything in either report.\n";
                else
                    writeTable(out, *rules, fo);
            }
            return;
    }
}

int runDiff(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("diff", argc, argv, &exitCode);
    if (!args) return exitCode;
    const std::string reports = args->value("report"), format = args->value("format"),
                      match = args->value("match"), output = args->value("output"),
                      timeUnit = args->value("timeunit");
    const std::vector<std::string> inputs = reportPaths(args->positionals);
    if (inputs.size() != 2) return usageError("diff", "expected two reports, A and B");
    auto fmt = parseTableFormat(format);
    if (!fmt) return usageError("diff", "--format must be column, table, csv, tsv or json");
    if (!timeUnitNs(timeUnit)) return usageError("diff", "--timeunit must be ns, us, ms or s");
    DiffOptions o;
    // "samples" is not a DiffCategory (samples are counts, not durations): taken out here.
    bool wantSamples = false, wantRules = false;
    std::string timed;
    for (size_t b = 0; b <= reports.size();) {
        size_t e = reports.find(',', b);
        if (e == std::string::npos) e = reports.size();
        const std::string w = reports.substr(b, e - b);
        if (w == "samples" || w == "all") wantSamples = true;
        if (w == "rules" || w == "all") wantRules = true;
        if (w != "samples" && w != "rules") timed += (timed.empty() ? "" : ",") + w;
        b = e + 1;
    }
    if (timed.empty()) {
        o.categories.clear();
    } else {
        auto cats = parseDiffCategories(timed);
        if (!cats) {
            std::string msg = cats.error();
            if (const auto at = msg.find("memops or all"); at != std::string::npos) msg.replace(at, 13, "memops, samples, rules or all");
            return usageError("diff", "-r: " + msg);
        }
        o.categories = *cats;
    }
    if (match == "base") o.match = DiffMatch::Base;
    else if (match != "demangled") return usageError("diff", "--match must be demangled or base");
    ReadOptions read;
    read.levelOfDetail = false;  // the comparison draws nothing
    auto a = openReportInput(inputs[0], read);
    if (!a) return fail(a.error());
    auto b = openReportInput(inputs[1], read);
    if (!b) return fail(b.error());
    const DiffResult d = diffReports(**a, **b, o);
    std::optional<Table> samples;
    if (wantSamples && (hasCpuSamples(**a) || hasCpuSamples(**b))) samples = diffSamplesTable(**a, **b);
    const Table* samplesTable = samples ? &*samples : nullptr;
    std::optional<Table> rules;
    if (wantRules) {
        std::vector<std::string> all;
        for (const auto& r : allRules()) all.emplace_back(r.name);
        auto findings = [&](const Report& r) {
            std::vector<Finding> out;
            for (auto& f : runRules(r, all, StatsOptions{}))
                if (f) out.push_back(std::move(*f));
            return out;
        };
        rules = findingsDiffTable(pairFindings(findings(**a), findings(**b)));
    }
    const Table* rulesTable = rules ? &*rules : nullptr;
    FormatOptions fo{*fmt, timeUnit};
    if (output.empty() || output == "-") {
        writeDiff(std::cout, d, samplesTable, rulesTable, fo, inputs[0], inputs[1]);
        return 0;
    }
    std::ofstream out(output, std::ios::binary);
    if (!out) return fail("cannot write " + output);
    writeDiff(out, d, samplesTable, rulesTable, fo, inputs[0], inputs[1]);
    out.close();
    if (!out) return fail("error writing " + output);
    return 0;
}

const Registrar kDiff({"diff", "compare two reports (kernels, API, NVTX, memory operations, samples, analyze rules)",
                       runDiff, false, 65});

}  // namespace
}  // namespace sl::cli
