// `sightline analyze`: the performance checklist over a report (nsys analyze's rules with nsys's
// meanings, and Sightline's own): each rule's finding (how often, how much time, what to do)
// and its table, as text, CSV/TSV/table, or one JSON document. Over several ranks (several
// reports, or one holding every rank of an MPI job) each rank's findings and the cross-rank
// summary: where each rule fired, its spread and worst rank, and the straggler.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/Command.h"
#include "app/cli/CommandLine.h"
#include "app/cli/RankedReports.h"
#include "app/cli/ReportInput.h"
#include "app/cli/TableOutputOptions.h"
#include "model/analysis/CrossRankFindings.h"
#include "model/analysis/TableFormatter.h"
#include "model/analysis/rules/Rule.h"
#include "model/options/OptionParser.h"
#include "model/util/Format.h"
#include "model/util/JsonWriter.h"

namespace sl::cli {
namespace {

using namespace sl::analysis;

void printRuleList(const RuleInfo* only) {
    std::printf("Available rules (nsys's marked *, with nsys's meaning; options as RULE:OPTION=VALUE):\n\n");
    for (const auto& r : allRules()) {
        if (only && &r != only) continue;
        std::printf("  %c %-22s %s\n", r.fromNsys ? '*' : ' ', std::string(r.name).c_str(),
                    std::string(r.description).c_str());
        for (const auto& o : r.options)
            std::printf("      %-14s %s (default %lld)\n", std::string(o.name).c_str(), std::string(o.help).c_str(),
                        static_cast<long long>(o.defaultValue));
    }
    std::printf("\nEvery rule reports a severity (none, info, warning), how many instances it found, the time\n"
                "they account for, what to do, the worst instances and a table of them. docs/analysis.md\n"
                "says how each is computed.\n");
}

std::vector<std::string> ruleSpecs(const std::vector<std::string>& given) {
    std::vector<std::string> out;
    for (const auto& g : given)
        for (auto& item : options::splitCommaList(g)) {
            if (item == "all") {
                for (const auto& r : allRules()) out.emplace_back(r.name);
            } else {
                out.push_back(std::move(item));
            }
        }
    if (out.empty())
        for (const auto& r : allRules()) out.emplace_back(r.name);
    return out;
}

// Where an example is, as a person reads it: its row's title, or the GPU for a time region.
std::string exampleTrack(const Report& r, const FindingExample& e) {
    if (e.track < r.tracks.size()) return r.trackTitle(r.tracks[e.track]);
    return "GPU " + std::to_string(e.device) + " (process " + std::to_string(e.pid) + ")";
}

// One finding as a JSON object: the rule's figures, its examples and its table's rows.
void writeFindingJson(JsonWriter& w, const Report& r, const Finding& f, const FormatOptions& tableFormat) {
    const int64_t origin = r.timeOrigin();
    w.beginObject();
    w.key("rule").value(f.rule);
    w.key("title").value(f.title);
    w.key("severity").value(severityName(f.severity));
    w.key("count").value(f.count);
    w.key("total_ns").value(f.totalNs);
    w.key("summary").value(f.summary);
    w.key("advice").value(f.advice);
    w.key("examples").beginArray();
    for (const auto& e : f.examples) {
        w.beginObject();
        w.key("track").value(exampleTrack(r, e));
        w.key("start").value(e.start - origin);
        w.key("end").value(e.end - origin);
        w.key("name").value(e.name);
        w.endObject();
    }
    w.endArray();
    // The table as the stats reports' JSON (an array of row objects), parsed back in place.
    std::ostringstream rows;
    writeTable(rows, f.table, {TableFormat::Json, tableFormat.timeUnit});
    w.key("rows").raw(rows.str().empty() ? "[]" : rows.str());
    w.endObject();
}

void writeFindingText(std::ostream& out, const Finding& f, const FormatOptions& fo) {
    out << "\n** " << f.title << " (" << f.rule << "): " << severityName(f.severity) << "\n\n" << f.summary << "\n";
    if (!f.advice.empty()) out << "\nAdvice: " << f.advice << "\n";
    if (f.table.rowCount() > 0) {
        out << "\n";
        writeTable(out, f.table, fo);
    }
}

// What each finding is written as, and where: the --format and --output given for its place in
// the rule list ("." as an output: files named after the input, as nsys names them).
struct Placement {
    std::vector<std::string> formats, outputs;
    std::string timeUnit;
    bool quiet = false, force = false;
    std::string inputBase;

    static const inline std::string kConsole = "-", kDefault = ".";
    const std::string& where(size_t i) const { return nth(outputs, i, kConsole); }
    Result<TableFormat> format(size_t i) const {
        std::string name = nth(formats, i, kDefault);
        if (name == "." || name == "text") name = where(i) == "-" ? "column" : "csv";
        if (name == "hdoc" || name == "htable") name = "table";
        auto fmt = parseTableFormat(name);
        if (!fmt) return makeError("--format: '" + name + "' is not a format");
        return *fmt;
    }
    // Every finding as JSON on the console: one document (as the consumers read it).
    bool allJsonConsole(size_t findings) const {
        bool all = true;
        for (size_t i = 0; i < findings; ++i) all &= nth(formats, i, kDefault) == "json" && where(i) == "-";
        return all;
    }
};

bool isHuman(TableFormat f) { return f == TableFormat::Column || f == TableFormat::Table; }

// Text to the console, or to BASE_SUFFIX.EXT; 0, or the exit code of the failure.
int emit(const Placement& p, size_t i, const std::string& suffix, TableFormat fmt, const std::string& text) {
    const std::string& where = p.where(i);
    if (where == "-") {
        std::cout << text;
        return 0;
    }
    const std::string base = where == "." ? p.inputBase : where;
    const std::string path = base + "_" + suffix + "." + std::string(formatExtension(fmt));
    std::error_code ec;
    if (!p.force && std::filesystem::exists(path, ec))
        return fail(path + " already exists (use --force-overwrite true to replace it)");
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) return fail("cannot write " + path);
    if (!p.quiet) std::fprintf(stderr, "Wrote %s\n", path.c_str());
    return 0;
}

// The findings of one report (or one rank), each in its format and place; `prefix` goes before
// the rule in file names ("rank3_" over several ranks).
int writeFindings(const Placement& p, const Report& report, const std::vector<Finding>& findings,
                  const std::string& prefix) {
    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        auto fmt = p.format(i);
        if (!fmt) return usageError("analyze", fmt.error());
        const FormatOptions fo{*fmt, p.timeUnit};
        std::ostringstream text;
        if (*fmt == TableFormat::Json) {
            JsonWriter w(text);
            writeFindingJson(w, report, f, fo);
            text << "\n";
        } else if (isHuman(*fmt)) {
            writeFindingText(text, f, fo);
        } else {
            writeTable(text, f.table, fo);
        }
        if (int rc = emit(p, i, prefix + f.rule, *fmt, text.str())) return rc;
    }
    return 0;
}

// The rules over one report (or one rank's view of it), in the window of --filter-time and
// --filter-nvtx.
Result<std::vector<Finding>> analyzeReport(const Report& report, const options::ParsedArgs& args,
                                           const std::vector<std::string>& specs) {
    StatsOptions window;
    if (Status s = applyFilters(report, args.value("filter-time"), args.value("filter-nvtx"), window); !s)
        return makeError(s.error());
    window.cache = std::make_shared<AnalysisCache>(report);
    std::vector<Finding> findings;
    for (auto& f : runRules(report, specs, window)) {
        if (!f) return makeError(f.error());
        findings.push_back(std::move(*f));
    }
    return findings;
}

void writeCrossRankJson(JsonWriter& w, const CrossRankSummary& s, const std::string& timeUnit) {
    w.beginObject();
    w.key("ranks").beginArray();
    for (int r : s.ranks) w.value(r);
    w.endArray();
    w.key("straggler");
    if (s.straggler >= 0) w.value(s.straggler); else w.null();
    w.key("summary").value(stragglerSentence(s));
    for (const Table& t : {ruleSpreadTable(s), rankImbalanceTable(s)}) {
        std::ostringstream rows;
        writeTable(rows, t, {TableFormat::Json, timeUnit});
        w.key(t.name == "cross_rank" ? "rules" : "imbalances").raw(rows.str().empty() ? "[]" : rows.str());
    }
    w.endObject();
}

void writeCrossRankText(std::ostream& out, const CrossRankSummary& s, const FormatOptions& fo) {
    std::string ranks;
    for (int r : s.ranks) ranks += (ranks.empty() ? "" : " ") + std::to_string(r);
    out << "\n==== Across " << s.ranks.size() << " ranks (" << ranks << ") ====\n";
    const Table spread = ruleSpreadTable(s), imbalance = rankImbalanceTable(s);
    out << "\n** " << spread.title << " (" << spread.name << "):\n\n";
    writeTable(out, spread, fo);
    out << "\n** " << imbalance.title << " (" << imbalance.name << "):\n\n";
    if (s.imbalances.empty()) {
        const ImbalanceThresholds th;
        char text[200];
        std::snprintf(text, sizeof text,
                      "The ranks agree: no rank's time for a rule is %.1fx the ranks' median and %s above it.\n",
                      th.factor, formatDuration(th.minExcessNs).c_str());
        out << text;
        return;
    }
    out << stragglerSentence(s) << "\n\n";
    for (const RankImbalance& m : s.imbalances) out << m.summary << "\n";
    out << "\n";
    writeTable(out, imbalance, fo);
}

// Several ranks: each rank's findings (as analyze of that rank alone prints them), then the
// cross-rank summary.
int analyzeRanks(const Placement& p, const options::ParsedArgs& args, const std::vector<std::string>& specs,
                 const std::vector<RankedReport>& ranked) {
    std::vector<std::vector<Finding>> findings;
    for (const RankedReport& r : ranked) {
        auto f = analyzeReport(*r.report, args, specs);
        if (!f) return usageError("analyze", r.from + ": " + f.error());
        findings.push_back(std::move(*f));
    }
    std::vector<RankFindings> in;
    for (size_t i = 0; i < ranked.size(); ++i) in.push_back({ranked[i].rank, &findings[i]});
    auto summary = crossRankFindings(in);
    if (!summary) return fail(summary.error());
    // Sections in rank order, whatever the order of the files.
    std::vector<size_t> order(ranked.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ranked[a].rank < ranked[b].rank; });

    if (p.allJsonConsole(specs.size())) {
        const FormatOptions jsonTables{TableFormat::Json, p.timeUnit};
        JsonWriter w(std::cout);
        w.beginObject();
        w.key("reports").beginArray();
        for (const auto& path : args.positionals) w.value(path);
        w.endArray();
        w.key("ranks").beginArray();
        for (size_t i : order) {
            w.beginObject();
            w.key("rank").value(ranked[i].rank);
            w.key("report").value(ranked[i].from);
            w.key("findings").beginArray();
            for (const auto& f : findings[i]) writeFindingJson(w, *ranked[i].report, f, jsonTables);
            w.endArray();
            w.endObject();
        }
        w.endArray();
        w.key("cross_rank");
        writeCrossRankJson(w, *summary, p.timeUnit);
        w.endObject();
        std::cout << "\n";
        return 0;
    }
    auto fmt0 = p.format(0);
    if (!fmt0) return usageError("analyze", fmt0.error());
    const bool human = isHuman(*fmt0) && p.where(0) == "-";
    for (size_t i : order) {
        if (human) std::cout << "\n==== Rank " << ranked[i].rank << " (" << ranked[i].from << ") ====\n";
        const std::string prefix = "rank" + std::to_string(ranked[i].rank) + "_";
        if (int rc = writeFindings(p, *ranked[i].report, findings[i], prefix)) return rc;
    }
    // The summary in the first rule's format and place: words and two tables, or the tables.
    const FormatOptions fo{*fmt0, p.timeUnit};
    if (*fmt0 == TableFormat::Json) {
        std::ostringstream text;
        JsonWriter w(text);
        writeCrossRankJson(w, *summary, p.timeUnit);
        text << "\n";
        return emit(p, 0, "cross_rank", *fmt0, text.str());
    }
    if (isHuman(*fmt0)) {
        std::ostringstream text;
        writeCrossRankText(text, *summary, fo);
        return emit(p, 0, "cross_rank", *fmt0, text.str());
    }
    for (const Table& t : {ruleSpreadTable(*summary), rankImbalanceTable(*summary)}) {
        std::ostringstream text;
        writeTable(text, t, fo);
        if (int rc = emit(p, 0, t.name, *fmt0, text.str())) return rc;
    }
    return 0;
}

int runAnalyze(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("analyze", argc, argv, &exitCode);
    if (!args) return exitCode;
    if (args->given("help-rules")) {
        const std::string name = args->value("help-rules");
        const RuleInfo* only = name == "true" || name == "ALL" ? nullptr : findRule(name);
        if (name != "true" && name != "ALL" && !only)
            return usageError("analyze", "--help-rules: unknown rule '" + name + "'");
        printRuleList(only);
        return 0;
    }
    if (args->given("help-formats")) {
        printTableFormats();
        return 0;
    }
    const std::vector<std::string> inputs = reportPaths(args->positionals);
    if (inputs.empty()) return usageError("analyze", "expected a REPORT (several: one per rank)");
    const std::vector<std::string> specs = ruleSpecs(args->values("rule"));
    for (const auto& s : specs)
        if (!findRule(s.substr(0, s.find(':'))))
            return usageError("analyze", "unknown rule '" + s + "' (see --help-rules)");
    Placement p{flatten(args->values("format")), flatten(args->values("output")), args->value("timeunit"),
                args->given("quiet"), args->isTrue("force-overwrite"),
                std::filesystem::path(inputs[0]).replace_extension().string()};
    for (size_t i = 0; i < std::max<size_t>(1, specs.size()); ++i)
        if (auto fmt = p.format(i); !fmt) return usageError("analyze", fmt.error());

    // The rules read GPU operations, CUDA API calls and NVTX ranges, and draw nothing. One
    // report of one rank (or none) is analyzed as it always was; anything else rank by rank.
    auto ranked = openRankedReports(inputs, rulesReadOptions(), p.quiet || inputs.size() == 1);
    if (!ranked) return fail(ranked.error());
    if (ranked->size() > 1) return analyzeRanks(p, *args, specs, *ranked);
    const Report& report = *ranked->front().report;
    auto findings = analyzeReport(report, *args, specs);
    if (!findings) return usageError("analyze", findings.error());

    if (p.allJsonConsole(findings->size())) {
        JsonWriter w(std::cout);
        w.beginObject();
        w.key("report").value(inputs[0]);
        w.key("findings").beginArray();
        for (const auto& f : *findings) writeFindingJson(w, report, f, {TableFormat::Json, p.timeUnit});
        w.endArray();
        w.endObject();
        std::cout << "\n";
        return 0;
    }
    return writeFindings(p, report, *findings, "");
}

const Registrar kAnalyze({"analyze", "check a report against the performance checklist (nsys analyze rules and more)",
                          runAnalyze, false, 62});

}  // namespace
}  // namespace sl::cli
