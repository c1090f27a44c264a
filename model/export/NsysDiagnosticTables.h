#pragma once
// The report's diagnostics as nsys's DIAGNOSTIC_EVENT table, with its three ENUM_DIAGNOSTIC_*
// tables, so that scripts which check an nsys export for warnings before trusting it
// (SELECT ... FROM DIAGNOSTIC_EVENT JOIN ENUM_DIAGNOSTIC_SEVERITY_LEVEL ...) see what the
// capture or import lost. Two columns nsys lacks, `name` and `count`, keep the diagnostic
// whole, so that importing the export gives the same diagnostics back.
#include "model/export/NsysTables.h"

namespace sl::exporter {

Status emitNsysDiagnostics(const Report& report, RowSink& sink, ExportStats& stats);

}  // namespace sl::exporter
