// `sightline analyze`: the performance checklist over a report (nsys analyze's rules with nsys's
// meanings, and Sightline's own): each rule's finding (how often, how much time, what to do)
// and its table, as text, CSV/TSV/table, or one JSON document.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/Command.h"
#include "app/cli/CommandLine.h"
#include "app/cli/ReportInput.h"
#include "app/cli/TableOutputOptions.h"
#include "model/analysis/TableFormatter.h"
#include "model/analysis/rules/Rule.h"
#include "model/options/OptionParser.h"
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
    const std::vector<std::string>& inputs = args->positionals;
    if (inputs.size() != 1) return usageError("analyze", "expected one REPORT");
    const std::vector<std::string> specs = ruleSpecs(args->values("rule"));
    for (const auto& s : specs)
        if (!findRule(s.substr(0, s.find(':'))))
            return usageError("analyze", "unknown rule '" + s + "' (see --help-rules)");
    const std::vector<std::string> formats = flatten(args->values("format"));
    const std::vector<std::string> outputs = flatten(args->values("output"));
    const bool quiet = args->given("quiet"), force = args->isTrue("force-overwrite");
    const std::string inputBase = std::filesystem::path(inputs[0]).replace_extension().string();

    // The rules read GPU operations, CUDA API calls and NVTX ranges, and draw nothing.
    auto loaded = openReportInput(inputs[0], rulesReadOptions());
    if (!loaded) return fail(loaded.error());
    const Report& report = **loaded;
    StatsOptions window;
    if (Status s = applyFilters(report, args->value("filter-time"), args->value("filter-nvtx"), window); !s)
        return usageError("analyze", s.error());
    window.cache = std::make_shared<AnalysisCache>(report);
    std::vector<Finding> findings;
    for (auto& f : runRules(report, specs, window)) {
        if (!f) return usageError("analyze", f.error());
        findings.push_back(std::move(*f));
    }

    static const std::string kConsole = "-", kDefault = ".";
    // JSON on the console: one document with every finding (as the consumers read it).
    bool allJsonConsole = true;
    for (size_t i = 0; i < findings.size(); ++i)
        allJsonConsole &= nth(formats, i, kDefault) == "json" && nth(outputs, i, kConsole) == "-";
    const FormatOptions jsonTables{TableFormat::Json, args->value("timeunit")};
    if (allJsonConsole) {
        JsonWriter w(std::cout);
        w.beginObject();
        w.key("report").value(inputs[0]);
        w.key("findings").beginArray();
        for (const auto& f : findings) writeFindingJson(w, report, f, jsonTables);
        w.endArray();
        w.endObject();
        std::cout << "\n";
        return 0;
    }
    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        const std::string& where = nth(outputs, i, kConsole);
        const bool toStdout = where == "-";
        std::string formatName = nth(formats, i, kDefault);
        if (formatName == "." || formatName == "text") formatName = toStdout ? "column" : "csv";
        if (formatName == "hdoc" || formatName == "htable") formatName = "table";
        auto fmt = parseTableFormat(formatName);
        if (!fmt) return usageError("analyze", "--format: '" + formatName + "' is not a format");
        const FormatOptions fo{*fmt, args->value("timeunit")};
        const bool human = *fmt == TableFormat::Column || *fmt == TableFormat::Table;
        std::ostringstream text;
        if (*fmt == TableFormat::Json) {
            JsonWriter w(text);
            writeFindingJson(w, report, f, fo);
            text << "\n";
        } else if (human) {
            writeFindingText(text, f, fo);
        } else {
            writeTable(text, f.table, fo);
        }
        if (toStdout) {
            std::cout << text.str();
            continue;
        }
        const std::string base = where == "." ? inputBase : where;
        const std::string path = base + "_" + f.rule + "." + std::string(formatExtension(*fmt));
        std::error_code ec;
        if (!force && std::filesystem::exists(path, ec))
            return fail(path + " already exists (use --force-overwrite true to replace it)");
        std::ofstream out(path, std::ios::binary);
        out << text.str();
        out.close();
        if (!out) return fail("cannot write " + path);
        if (!quiet) std::fprintf(stderr, "Wrote %s\n", path.c_str());
    }
    return 0;
}

const Registrar kAnalyze({"analyze", "check a report against the performance checklist (nsys analyze rules and more)",
                          runAnalyze, false, 62});

}  // namespace
}  // namespace sl::cli
