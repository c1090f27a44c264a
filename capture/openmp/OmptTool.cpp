// libsightline-ompt.so: -t openmp. An OMPT tool (OpenMP 5 tools interface): the launcher names
// it in OMP_TOOL_LIBRARIES, an OpenMP runtime that implements OMPT (LLVM's libomp, Intel's, the
// NVIDIA HPC compilers') loads it when the program's first OpenMP construct initialises the
// runtime, and calls ompt_start_tool. Runtimes without OMPT (GCC's libgomp) never load it: the
// preloaded module notes such a process in the report (InjectMain.cpp).
//
// Recorded, as EventKind::OpenMp events on the thread the runtime calls back on:
// - parallel regions on the thread that starts them (requested threads),
// - each thread's implicit task in a region (its number in the team, the team size),
// - worksharing constructs (loops with their iteration count, sections, single, ...),
// - synchronisation regions (barriers, explicit and implicit, taskwait, taskgroup, reduction),
// - the intervals during which explicit tasks run (a task suspended at a scheduling point and
//   resumed later gives two intervals).
// Scope callbacks come in begin/end pairs on one thread, nested: a per-thread stack holds the
// start of each open scope. Records go through the preloaded module (ModuleEventApi.h).
//
// A worker's end of its implicit task and of the region's closing barrier come late: LLVM's
// libomp reports them when it next wakes the worker (the next region, or the program's exit,
// after our recording has stopped). So each worker publishes its open implicit task and
// barrier in the region's member table, and the master, at the region's end, records them for
// it with that end; the worker's late callbacks then only pop its stack.
// The OMPT header of an installed OpenMP runtime, by full path (CMake: SIGHTLINE_OMPT_HEADER):
// it may sit among a compiler's private headers that must not shadow the system ones.
#include SIGHTLINE_OMPT_HEADER

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "capture/common/Clock.h"
#include "capture/common/Export.h"
#include "capture/common/ModuleEventClient.h"
#include "model/core/EventColumns.h"


namespace sl::ompt {
namespace {

using capture::ModuleEventApi;

const ModuleEventApi* g_api = nullptr;
capture::LiteralNameIds g_names;
std::atomic<uint64_t> g_nextParallel{1}, g_nextTask{1};
// Explicit tasks' ids carry this bit (in ompt_data_t::value), so the scheduling callback can tell
// them from implicit and initial tasks.
constexpr uint64_t kExplicitTask = 1ull << 63;

struct Open {
    int64_t start;
    uint64_t parallelId;
    int64_t count;  // given at the begin only: a loop's iterations, an implicit task's team size
    int32_t index;  // an implicit task's number in its team
};

// A worker's open scopes in a region, as its master reads them at the region's end. Regions in
// flight share a fixed pool (no allocation in callbacks): region id % kRegions, checked by id.
struct Member {
    std::atomic<uint64_t> region{0};  // the region the entry is for (0: none)
    std::atomic<int64_t> tid{0};
    std::atomic<int64_t> implicitStart{0};
    std::atomic<int64_t> barrierStart{0};  // an implicit barrier open now (0: none)
    std::atomic<uint64_t> taskId{0};
    std::atomic<int32_t> teamSize{0};
    std::atomic<bool> closed{false};  // the master recorded its ends
};
constexpr int kRegions = 64, kMembers = 256;
Member g_members[kRegions][kMembers];
thread_local Member* t_member = nullptr;  // this worker's entry in its current region
thread_local uint64_t t_memberRegion = 0;

Member* memberOf(uint64_t region, unsigned index) {
    if (region == 0 || index == 0 || index >= kMembers) return nullptr;  // index 0: the master
    return &g_members[region % kRegions][index];
}
// Whether this worker's scopes in its current region were already recorded by the master.
bool closedByMaster() {
    return t_member && t_member->region.load(std::memory_order_acquire) == t_memberRegion &&
           t_member->closed.load(std::memory_order_acquire);
}
constexpr int kMaxDepth = 64;
thread_local Open t_open[kMaxDepth];
thread_local int t_depth = 0;
// The explicit task running on this thread now, and since when.
thread_local uint64_t t_taskId = 0;
thread_local int64_t t_taskStart = 0;

void push(uint64_t parallelId, int64_t count = 0, int32_t index = -1) {
    if (t_depth < kMaxDepth) t_open[t_depth] = {capture::nowNs(), parallelId, count, index};
    ++t_depth;
}

// Closes the innermost open scope; false when there is none (an end without its begin: the tool
// started inside a construct) or the nesting went deeper than the stack.
bool pop(Open* out) {
    if (t_depth <= 0) return false;
    --t_depth;
    if (t_depth >= kMaxDepth) return false;
    *out = t_open[t_depth];
    return true;
}

void emit(const char* name, OpenMpEvent event, uint32_t kind, int64_t start, int64_t end,
          uint64_t parallelId, uint64_t taskId, int64_t count, int32_t index, const void* code) {
    if (!g_api->recording()) return;
    OpenMpConstruct e;  // its columns as the model defines them (EventColumns.h)
    e.event = event;
    e.kind = kind;
    e.parallelId = parallelId;
    e.taskId = taskId & ~kExplicitTask;
    e.count = count;
    e.index = index;
    e.codePtr = reinterpret_cast<uintptr_t>(code);
    const auto cols = columnsOf(e);
    g_api->emitThreadEvent(static_cast<uint8_t>(EventKind::OpenMp), start, end,
                           g_names.get(g_api, name), cols.data(), static_cast<int>(cols.size()));
}

uint64_t idOf(const ompt_data_t* d) { return d ? d->value : 0; }

bool isImplicitBarrier(ompt_sync_region_t k) {
    const int v = static_cast<int>(k);
    return v == 2 || v == 8 || v == 9;  // LLVM 14 reports every implicit barrier as 2
}

// At the region's end, on its master: the workers' implicit tasks and the closing barrier they
// wait in end now. `requested`: the threads the region asked for (its team is no larger).
void closeMembers(uint64_t region, int64_t end, int64_t requested) {
    if (!g_api->recording() || g_api->version < 2) return;
    const int64_t team = std::clamp<int64_t>(requested, 1, kMembers);
    for (int i = 1; i < team; ++i) {
        Member& m = g_members[region % kRegions][i];
        if (m.region.load(std::memory_order_acquire) != region ||
            m.closed.load(std::memory_order_acquire))
            continue;
        const int64_t tid = m.tid.load(std::memory_order_relaxed);
        const int64_t barrier = m.barrierStart.load(std::memory_order_acquire);
        OpenMpConstruct e;
        e.parallelId = region;
        e.taskId = m.taskId.load();
        if (barrier) {
            e.event = OpenMpEvent::Sync;
            e.kind = 2;
            const auto cols = columnsOf(e);
            g_api->emitEventOfThread(tid, static_cast<uint8_t>(EventKind::OpenMp), barrier, end,
                                     g_names.get(g_api, "implicit barrier"), cols.data(),
                                     static_cast<int>(cols.size()));
        }
        e.event = OpenMpEvent::ImplicitTask;
        e.kind = ompt_task_implicit;
        e.count = m.teamSize.load();
        e.index = i;
        const auto cols = columnsOf(e);
        g_api->emitEventOfThread(tid, static_cast<uint8_t>(EventKind::OpenMp),
                                 m.implicitStart.load(), end, g_names.get(g_api, "implicit task"),
                                 cols.data(), static_cast<int>(cols.size()));
        m.closed.store(true, std::memory_order_release);
    }
}

void onParallelBegin(ompt_data_t*, const ompt_frame_t*, ompt_data_t* parallel,
                     unsigned int requested, int, const void*) {
    parallel->value = g_nextParallel.fetch_add(1, std::memory_order_relaxed);
    push(parallel->value, requested);
}

void onParallelEnd(ompt_data_t* parallel, ompt_data_t* task, int, const void* code) {
    Open o;
    if (!pop(&o)) return;
    const int64_t end = capture::nowNs();
    closeMembers(o.parallelId, end, o.count);
    emit("parallel", OpenMpEvent::Parallel, 0, o.start, end, o.parallelId, idOf(task), o.count, -1,
         code);
    (void)parallel;
}

void onImplicitTask(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                    unsigned int teamSize, unsigned int index, int flags) {
    if (flags & ompt_task_initial) return;  // the program's initial task: not a region's work
    if (endpoint == ompt_scope_begin) {
        task->value = g_nextTask.fetch_add(1, std::memory_order_relaxed);
        push(idOf(parallel), teamSize, static_cast<int32_t>(index));
        t_member = memberOf(idOf(parallel), index);
        if (t_member && g_api->version >= 2) {
            t_memberRegion = idOf(parallel);
            t_member->closed.store(false, std::memory_order_relaxed);
            t_member->tid.store(g_api->threadId(), std::memory_order_relaxed);
            t_member->implicitStart.store(t_open[std::min(t_depth, kMaxDepth) - 1].start,
                                          std::memory_order_relaxed);
            t_member->barrierStart.store(0, std::memory_order_relaxed);
            t_member->taskId.store(task->value, std::memory_order_relaxed);
            t_member->teamSize.store(static_cast<int32_t>(teamSize), std::memory_order_relaxed);
            t_member->region.store(t_memberRegion, std::memory_order_release);
        } else {
            t_member = nullptr;
        }
        return;
    }
    Open o;
    if (!pop(&o)) return;
    const bool recorded = closedByMaster();
    // Ended before its master ended the region: nothing for the master to record.
    if (!recorded && t_member) t_member->region.store(0, std::memory_order_release);
    t_member = nullptr;
    if (recorded) return;
    emit("implicit task", OpenMpEvent::ImplicitTask, static_cast<uint32_t>(flags), o.start,
         capture::nowNs(), o.parallelId, idOf(task), o.count, o.index, nullptr);
}

const char* workName(ompt_work_t w) {
    switch (w) {
        case ompt_work_loop: return "loop";
        case ompt_work_sections: return "sections";
        case ompt_work_single_executor: return "single";
        case ompt_work_single_other: return "single (other threads)";
        case ompt_work_workshare: return "workshare";
        case ompt_work_distribute: return "distribute";
        case ompt_work_taskloop: return "taskloop";
        default: return "worksharing";
    }
}

void onWork(ompt_work_t type, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel,
            ompt_data_t* task, uint64_t count, const void* code) {
    if (endpoint == ompt_scope_begin) {
        push(idOf(parallel), static_cast<int64_t>(count));
        return;
    }
    Open o;
    if (!pop(&o)) return;
    emit(workName(type), OpenMpEvent::Work, static_cast<uint32_t>(type), o.start, capture::nowNs(),
         o.parallelId, idOf(task), o.count ? o.count : static_cast<int64_t>(count), -1, code);
}

const char* syncName(ompt_sync_region_t k) {
    switch (static_cast<int>(k)) {
        case 1: return "barrier";  // ompt_sync_region_barrier (OpenMP 5.0)
        case 2: return "implicit barrier";
        case 3: return "barrier";
        case 4: return "barrier (runtime)";
        case 5: return "taskwait";
        case 6: return "taskgroup";
        case 7: return "reduction";
        case 8: return "implicit barrier (worksharing)";
        case 9: return "implicit barrier (parallel)";
        case 10: return "barrier (teams)";
        default: return "synchronization";
    }
}

void onSyncRegion(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel,
                  ompt_data_t* task, const void* code) {
    if (endpoint == ompt_scope_begin) {
        push(idOf(parallel));
        if (t_member && isImplicitBarrier(kind))
            t_member->barrierStart.store(t_open[std::min(t_depth, kMaxDepth) - 1].start,
                                         std::memory_order_release);
        return;
    }
    Open o;
    if (!pop(&o)) return;
    if (t_member && isImplicitBarrier(kind)) {
        if (closedByMaster()) return;  // the region's closing barrier, recorded by the master
        t_member->barrierStart.store(0, std::memory_order_release);
    }
    emit(syncName(kind), OpenMpEvent::Sync, static_cast<uint32_t>(kind), o.start, capture::nowNs(),
         o.parallelId ? o.parallelId : idOf(parallel), idOf(task), 0, -1, code);
}

void onTaskCreate(ompt_data_t*, const ompt_frame_t*, ompt_data_t* task, int flags, int,
                  const void*) {
    if (flags & ompt_task_explicit)
        task->value = g_nextTask.fetch_add(1, std::memory_order_relaxed) | kExplicitTask;
}

void onTaskSchedule(ompt_data_t* prior, ompt_task_status_t, ompt_data_t* next) {
    const int64_t now = capture::nowNs();
    if (prior && (prior->value & kExplicitTask) && t_taskId == prior->value) {
        emit("task", OpenMpEvent::Task, ompt_task_explicit, t_taskStart, now, 0, prior->value, 0,
             -1, nullptr);
        t_taskId = 0;
    }
    if (next && (next->value & kExplicitTask)) {
        t_taskId = next->value;
        t_taskStart = now;
    }
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
    auto setCallback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
    if (!setCallback) return 0;  // 0: the runtime unloads the tool
    setCallback(ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(onParallelBegin));
    setCallback(ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(onParallelEnd));
    setCallback(ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(onImplicitTask));
    setCallback(ompt_callback_work, reinterpret_cast<ompt_callback_t>(onWork));
    setCallback(ompt_callback_sync_region, reinterpret_cast<ompt_callback_t>(onSyncRegion));
    setCallback(ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(onTaskCreate));
    setCallback(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(onTaskSchedule));
    return 1;
}

void finalize(ompt_data_t*) {}

ompt_start_tool_result_t g_result = {initialize, finalize, {0}};

}  // namespace
}  // namespace sl::ompt

SL_EXPORT ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char*) {
    // Without the preloaded module there is nowhere to record: decline, the program runs as is.
    sl::ompt::g_api = sl::capture::moduleEventApi();
    return sl::ompt::g_api ? &sl::ompt::g_result : nullptr;
}
