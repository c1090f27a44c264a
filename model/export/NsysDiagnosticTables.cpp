#include "model/export/NsysDiagnosticTables.h"

#include "model/core/DiagnosticLevel.h"
#include "model/core/NsysDiagnosticTypes.h"
#include "model/export/NsysEnums.h"
#include "model/export/TableScope.h"

namespace sl::exporter {
namespace {

using namespace nsys;  // severity ids

constexpr EnumRow kSeverity[] = {{0, "DIAGNOSTIC_SEVERITY_LEVEL_UNKNOWN", "Unknown"},
                                 {kDiagnosticInfo, "DIAGNOSTIC_SEVERITY_LEVEL_INFO", "Info"},
                                 {kDiagnosticWarning, "DIAGNOSTIC_SEVERITY_LEVEL_WARNING", "Warning"},
                                 {kDiagnosticError, "DIAGNOSTIC_SEVERITY_LEVEL_ERROR", "Error"},
                                 {kDiagnosticFatal, "DIAGNOSTIC_SEVERITY_LEVEL_FATAL", "Fatal"}};
// Sightline's diagnostics are counted when the report is made (the merge of a capture, an
// import), after the program ran: nsys's "Analysis" source.
constexpr int64_t kSourceAnalysis = 3;
constexpr EnumRow kSource[] = {{1, "DIAGNOSTIC_SOURCE_TYPE_INJECTION", "Injection"},
                               {2, "DIAGNOSTIC_SOURCE_TYPE_DAEMON", "Daemon"},
                               {kSourceAnalysis, "DIAGNOSTIC_SOURCE_TYPE_ANALYSIS", "Analysis"}};
// A diagnostic counts things over the whole session, so it carries no time of its own: its
// timestamp is the session start (0), as nsys gives its session-wide messages.
constexpr int64_t kTimestampSession = 2;
constexpr EnumRow kTimestampSource[] = {{1, "DIAGNOSTIC_TIMESTAMP_SOURCE_TARGET", "TargetTimestamp"},
                                        {kTimestampSession, "DIAGNOSTIC_TIMESTAMP_SOURCE_HOST", "HostTimestamp"}};

}  // namespace

Status emitNsysDiagnostics(const Report& report, RowSink& sink, ExportStats& stats) {
    if (report.diagnostics.empty()) return {};
    static constexpr ColumnDef d[] = {{"timestamp", "INTEGER NOT NULL"}, {"timestampType", "INTEGER NOT NULL"},
                                      {"source", "INTEGER NOT NULL"},    {"severity", "INTEGER NOT NULL"},
                                      {"text", "TEXT NOT NULL"},         {"globalPid", "INTEGER"},
                                      {"name", "TEXT"},                  {"count", "INTEGER"}};
    {
        TableScope t(sink, stats, "DIAGNOSTIC_EVENT", d);
        // A loss is a warning; a note (a frame without a symbol, a namespace pid kept) and what
        // the profiler said while capturing are information (DiagnosticLevel.h).
        if (t.open())
            for (const Diagnostic& diag : report.diagnostics) {
                Cell c[] = {Cell::of(0),
                            Cell::of(kTimestampSession),
                            Cell::of(kSourceAnalysis),
                            Cell::of(diagnosticLevel(diag.name) == DiagnosticLevel::Warning ? kDiagnosticWarning
                                                                                            : kDiagnosticInfo),
                            Cell::text(diag.reason),
                            diag.pid > 0 ? Cell::of(globalPid(diag.pid)) : Cell::null(),
                            Cell::text(diag.name),
                            Cell::of(diag.count)};
                t.row(c);
            }
        if (Status s = t.finish(); !s) return s;
    }
    if (Status s = emitNsysEnum(sink, stats, "ENUM_DIAGNOSTIC_SEVERITY_LEVEL", kSeverity); !s) return s;
    if (Status s = emitNsysEnum(sink, stats, "ENUM_DIAGNOSTIC_SOURCE_TYPE", kSource); !s) return s;
    return emitNsysEnum(sink, stats, "ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE", kTimestampSource);
}

}  // namespace sl::exporter
