#include "model/export/NsysOpenMpTables.h"

#include "model/analysis/OpenMpConstruct.h"
#include "model/export/NsysEnums.h"
#include "model/export/TableScope.h"

namespace sl::exporter {
namespace {

using analysis::OpenMpConstruct;

Cell I(int64_t v) { return Cell::of(v); }
Cell N() { return Cell::null(); }
Cell idOrNull(uint64_t v) { return v != 0 ? I(static_cast<int64_t>(v)) : N(); }
Cell kindOrNull(uint32_t v) { return v != 0 ? I(v) : N(); }

constexpr int64_t kOpenMpEventClass = 78;  // ENUM_NSYS_EVENT_CLASS: TRACE_PROCESS_EVENT_OPENMP
// ENUM_OPENMP_EVENT_KIND ids of the four tables written.
constexpr int64_t kKindParallel = 28, kKindSyncRegion = 30, kKindTask = 31, kKindWorkshare = 36;

// nsys's ids. Names: nsys's for the event kinds; OMPT's for work, sync region and task flag
// values (their ids are OMPT's ompt_work_t, ompt_sync_region_t and ompt_task_flag_t).
constexpr EnumRow kEventKinds[] = {
    {15, "OPENMP_EVENT_KIND_TASK_CREATE", "Task create"},
    {16, "OPENMP_EVENT_KIND_TASK_SCHEDULE", "Task schedule"},
    {17, "OPENMP_EVENT_KIND_CANCEL", "Cancel"},
    {20, "OPENMP_EVENT_KIND_MUTEX_RELEASED", "Mutex released"},
    {21, "OPENMP_EVENT_KIND_LOCK_INIT", "Lock init"},
    {22, "OPENMP_EVENT_KIND_LOCK_DESTROY", "Lock destroy"},
    {25, "OPENMP_EVENT_KIND_DISPATCH", "Dispatch"},
    {26, "OPENMP_EVENT_KIND_FLUSH", "Flush"},
    {27, "OPENMP_EVENT_KIND_THREAD", "Thread"},
    {28, "OPENMP_EVENT_KIND_PARALLEL", "Parallel"},
    {29, "OPENMP_EVENT_KIND_SYNC_REGION_WAIT", "Sync region wait"},
    {30, "OPENMP_EVENT_KIND_SYNC_REGION", "Sync region"},
    {31, "OPENMP_EVENT_KIND_TASK", "Task"},
    {32, "OPENMP_EVENT_KIND_MASTER", "Master"},
    {33, "OPENMP_EVENT_KIND_REDUCTION", "Reduction"},
    {34, "OPENMP_EVENT_KIND_MUTEX_WAIT", "Mutex wait"},
    {35, "OPENMP_EVENT_KIND_CRITICAL_SECTION", "Critical section"},
    {36, "OPENMP_EVENT_KIND_WORKSHARE", "Workshare"},
};
constexpr EnumRow kWork[] = {
    {1, "ompt_work_loop", "Loop region"},
    {2, "ompt_work_sections", "Sections region"},
    {3, "ompt_work_single_executor", "Single region (executor)"},
    {4, "ompt_work_single_other", "Single region (waiting)"},
    {5, "ompt_work_workshare", "Workshare region"},
    {6, "ompt_work_distribute", "Distribute region"},
    {7, "ompt_work_taskloop", "Taskloop region"},
};
constexpr EnumRow kSyncRegion[] = {
    {1, "ompt_sync_region_barrier", "Barrier"},
    {2, "ompt_sync_region_barrier_implicit", "Implicit barrier"},
    {3, "ompt_sync_region_barrier_explicit", "Explicit barrier"},
    {4, "ompt_sync_region_barrier_implementation", "Implementation-dependent barrier"},
    {5, "ompt_sync_region_taskwait", "Taskwait"},
    {6, "ompt_sync_region_taskgroup", "Taskgroup"},
    {7, "ompt_sync_region_reduction", "Reduction"},
    {8, "ompt_sync_region_barrier_implicit_workshare", "Implicit barrier (worksharing)"},
    {9, "ompt_sync_region_barrier_implicit_parallel", "Implicit barrier (parallel)"},
    {10, "ompt_sync_region_barrier_teams", "Teams barrier"},
};
constexpr EnumRow kTaskFlag[] = {
    {1, "ompt_task_initial", "Initial task"},
    {2, "ompt_task_implicit", "Implicit task"},
    {4, "ompt_task_explicit", "Explicit task"},
    {8, "ompt_task_target", "Target task"},
};

constexpr ColumnDef kParallelCols[] = {
    {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"},   {"eventClass", "INTEGER NOT NULL"},
    {"globalTid", "INTEGER"},      {"correlationId", "INTEGER"},  {"nameId", "INTEGER NOT NULL"},
    {"eventKind", "INTEGER"},      {"parallelId", "INTEGER"},     {"parentTaskId", "INTEGER"}};
constexpr ColumnDef kSyncCols[] = {
    {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"},  {"eventClass", "INTEGER NOT NULL"},
    {"globalTid", "INTEGER"},      {"correlationId", "INTEGER"}, {"nameId", "INTEGER NOT NULL"},
    {"eventKind", "INTEGER"},      {"parallelId", "INTEGER"},    {"taskId", "INTEGER"},
    {"kind", "INTEGER"}};
constexpr ColumnDef kWorkCols[] = {
    {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"},  {"eventClass", "INTEGER NOT NULL"},
    {"globalTid", "INTEGER"},      {"correlationId", "INTEGER"}, {"nameId", "INTEGER NOT NULL"},
    {"eventKind", "INTEGER"},      {"kind", "INTEGER"},          {"parallelId", "INTEGER"},
    {"taskId", "INTEGER"},         {"count", "INTEGER"}};

// The events for which `pick` is true inside the window, in track order; `fill` writes the
// cells after start, end, eventClass, globalTid, correlationId (NULL: we have none), nameId
// and eventKind.
template <size_t Cols, class Pick, class Fill>
Status table(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats, int64_t origin,
             std::string_view name, const ColumnDef (&defs)[Cols], int64_t eventKind, Pick pick, Fill fill) {
    TableScope t(sink, stats, name, defs);
    if (!t.open()) return {};
    Cell c[Cols];
    for (const Track* tr : r.tracksOfKind(EventKind::OpenMp))
        for (size_t i = 0; i < tr->size(); ++i) {
            if (!o.inWindow(tr->start[i], tr->end[i])) continue;
            const OpenMpConstruct e = analysis::openMpAt(*tr, i);
            if (!pick(e)) continue;
            c[0] = I(tr->start[i] - origin);
            c[1] = I(tr->end[i] - origin);
            c[2] = I(kOpenMpEventClass);
            c[3] = I(globalTid(tr->key.pid, tr->key.tid));
            c[4] = N();
            c[5] = I(tr->name[i]);
            c[6] = I(eventKind);
            fill(e, c);
            t.row(c);
        }
    return t.finish();
}

}  // namespace

Status emitOpenMpTables(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats, int64_t origin) {
    // Written together whenever the report has OpenMP events (an empty table says "traced,
    // none of these").
    if (r.eventCount(EventKind::OpenMp) == 0) return {};
    Status s = table(r, o, sink, stats, origin, "OPENMP_EVENT_KIND_PARALLEL", kParallelCols, kKindParallel,
                     [](const OpenMpConstruct& e) { return e.event == OpenMpEvent::Parallel; },
                     [](const OpenMpConstruct& e, Cell* c) {
                         c[7] = idOrNull(e.parallelId);
                         c[8] = idOrNull(e.taskId);  // the task that started the region
                     });
    if (!s) return s;
    // Implicit tasks and the intervals explicit tasks ran; kind: their task flags.
    s = table(r, o, sink, stats, origin, "OPENMP_EVENT_KIND_TASK", kSyncCols, kKindTask,
              [](const OpenMpConstruct& e) {
                  return e.event == OpenMpEvent::ImplicitTask || e.event == OpenMpEvent::Task;
              },
              [](const OpenMpConstruct& e, Cell* c) {
                  c[7] = idOrNull(e.parallelId);
                  c[8] = idOrNull(e.taskId);
                  c[9] = kindOrNull(e.kind);
              });
    if (!s) return s;
    s = table(r, o, sink, stats, origin, "OPENMP_EVENT_KIND_WORKSHARE", kWorkCols, kKindWorkshare,
              [](const OpenMpConstruct& e) { return e.event == OpenMpEvent::Work; },
              [](const OpenMpConstruct& e, Cell* c) {
                  c[7] = kindOrNull(e.kind);
                  c[8] = idOrNull(e.parallelId);
                  c[9] = idOrNull(e.taskId);
                  c[10] = e.count > 0 ? I(e.count) : N();
              });
    if (!s) return s;
    s = table(r, o, sink, stats, origin, "OPENMP_EVENT_KIND_SYNC_REGION", kSyncCols, kKindSyncRegion,
              [](const OpenMpConstruct& e) { return e.event == OpenMpEvent::Sync; },
              [](const OpenMpConstruct& e, Cell* c) {
                  c[7] = idOrNull(e.parallelId);
                  c[8] = idOrNull(e.taskId);
                  c[9] = kindOrNull(e.kind);
              });
    if (!s) return s;
    const std::pair<std::string_view, std::span<const EnumRow>> enums[] = {
        {"ENUM_OPENMP_EVENT_KIND", kEventKinds},
        {"ENUM_OPENMP_WORK", kWork},
        {"ENUM_OPENMP_SYNC_REGION", kSyncRegion},
        {"ENUM_OPENMP_TASK_FLAG", kTaskFlag}};
    for (const auto& [name, rows] : enums)
        if (s = emitNsysEnum(sink, stats, name, rows); !s) return s;
    return {};
}

}  // namespace sl::exporter
