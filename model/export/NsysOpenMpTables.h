#pragma once
// OpenMP events (-t openmp) in the nsys export schema: OPENMP_EVENT_KIND_PARALLEL (parallel
// regions), OPENMP_EVENT_KIND_TASK (implicit tasks and explicit task intervals),
// OPENMP_EVENT_KIND_WORKSHARE (loops, sections, single, ...) and OPENMP_EVENT_KIND_SYNC_REGION
// (barriers, taskwait, taskgroup, reduction), with ENUM_OPENMP_EVENT_KIND, ENUM_OPENMP_WORK,
// ENUM_OPENMP_SYNC_REGION and ENUM_OPENMP_TASK_FLAG.
#include "model/export/NsysTables.h"

namespace sl::exporter {

// `origin` is the report's time origin (timestamps are written relative to it). Writes
// nothing when the report has no OpenMP events.
Status emitOpenMpTables(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats, int64_t origin);

}  // namespace sl::exporter
