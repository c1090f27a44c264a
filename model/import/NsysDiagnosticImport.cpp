// The DIAGNOSTIC_EVENT table of an nsys export: what the profiler itself said about the capture.
// nsys's warnings and errors ("Not all NVTX events might have been collected", lost CUPTI
// buffers) become diagnostics of the report, one per distinct message and process, so that a
// loss nsys saw stays visible after the import; its informational messages ("Profiling has
// started.") are not losses and are left out. A Sightline export's rows carry the diagnostic's
// own name and count, and come back exactly as they were.
#include <map>
#include <tuple>

#include "model/core/NsysDiagnosticTypes.h"
#include "model/import/ImportText.h"
#include "model/import/NsysSqliteImporter.h"

namespace sl::import {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return out;
}

}  // namespace

Status NsysSqliteImporter::readDiagnostics() {
    const std::string table = "DIAGNOSTIC_EVENT";
    if (!m_db.hasTable(table)) return Status::success();
    // Severity ids -> "warning", "error", ...; without the enum table, nsys's own ids are assumed.
    std::map<int64_t, std::string> severities = {{nsys::kDiagnosticInfo, "info"},
                                                 {nsys::kDiagnosticWarning, "warning"},
                                                 {nsys::kDiagnosticError, "error"},
                                                 {nsys::kDiagnosticFatal, "fatal"}};
    if (m_db.hasTable("ENUM_DIAGNOSTIC_SEVERITY_LEVEL")) {
        NsysColumns c(m_db, "ENUM_DIAGNOSTIC_SEVERITY_LEVEL");
        sqlite::Stmt st(m_db, buildSelect(c, {{"id"}, {"label", "name"}}));
        std::map<int64_t, std::string> fromTable;
        while (st.valid() && st.step())
            if (!st.isNull(0) && !st.isNull(1)) {
                std::string label = lower(st.text(1));
                if (auto at = label.rfind('_'); at != std::string::npos) label = label.substr(at + 1);
                fromTable[st.i64(0)] = label;  // "Warning", or DIAGNOSTIC_SEVERITY_LEVEL_WARNING
            }
        if (!fromTable.empty()) severities = std::move(fromTable);
    }
    NsysColumns columns(m_db, table);
    const bool ours = columns.has("name") && columns.has("count");
    // (severity, text, pid) -> messages; a Sightline row is taken as it is.
    std::map<std::tuple<std::string, std::string, int64_t>, int64_t> messages;
    m_readTables.insert(table);
    // Not forEachRow: a table of only (severity, text), as scripts and older exports write it,
    // is still read.
    // The table is optional: one that cannot be read (a view over a dropped table) costs its
    // messages, said as a diagnostic, not the import.
    sqlite::Stmt st(m_db, buildSelect(columns, {{"severity"}, {"text"}, {"globalPid"}, {"name"}, {"count"}}));
    if (!st.valid()) {
        m_b.addDiagnostic("nsys.diagnostics_unreadable", 1,
                          "nsys's own messages about its capture (DIAGNOSTIC_EVENT) could not be read: " +
                              st.prepareError());
        return Status::success();
    }
    while (st.step()) {
        const int64_t g = st.isNull(2) ? 0 : st.i64(2);
        const int64_t pid = g > 0 ? pidOf(g) : 0;
        std::string text = st.isNull(1) ? std::string() : sanitizeUtf8(st.text(1));
        if (text.empty()) text = "(a message without text)";
        if (ours && !st.isNull(3) && !st.text(3).empty()) {
            // A count below 1 is no count: one occurrence.
            const int64_t count = st.isNull(4) || st.i64(4) < 1 ? 1 : st.i64(4);
            m_b.report().diagnostics.push_back({sanitizeUtf8(st.text(3)), count, text, pid});
            continue;
        }
        const auto it = severities.find(st.isNull(0) ? 0 : st.i64(0));
        const std::string severity = it == severities.end() ? "unknown" : it->second;
        if (severity != "info" && severity != "verbose") ++messages[{severity, text, pid}];
    }
    if (!st.ok())
        m_b.addDiagnostic("nsys.diagnostics_unreadable", 1,
                          "nsys's own messages about its capture (DIAGNOSTIC_EVENT) were read only in part: " +
                              st.error());
    for (const auto& [key, count] : messages) {
        const auto& [severity, text, pid] = key;
        m_b.report().diagnostics.push_back({"nsys." + severity, count, text, pid});
    }
    return Status::success();
}

}  // namespace sl::import
