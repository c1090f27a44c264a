#pragma once
// One OpenMP event's columns (EventKind::OpenMp, -t openmp) read into a struct, with the words
// the stats reports, the exports, the event details and the viewer share: what the construct is
// ("worksharing (loop)") and what its count means (a loop's iterations, a parallel region's
// requested threads, an implicit task's team size).
#include <cstdint>
#include <string>
#include <string_view>

#include "model/core/Track.h"

namespace sl::analysis {

// OMPT's ompt_work_t, ompt_sync_region_t and ompt_task_flag_t values (OpenMP 5.1), as the
// capture stores them in the kind column.
enum : uint32_t {
    kOmpWorkLoop = 1, kOmpWorkSections = 2, kOmpWorkSingleExecutor = 3, kOmpWorkSingleOther = 4,
    kOmpWorkWorkshare = 5, kOmpWorkDistribute = 6, kOmpWorkTaskloop = 7,
};
enum : uint32_t { kOmpTaskInitial = 1, kOmpTaskImplicit = 2, kOmpTaskExplicit = 4, kOmpTaskTarget = 8 };

struct OpenMpConstruct {
    OpenMpEvent event = OpenMpEvent::Parallel;
    uint32_t kind = 0;        // ompt_work_t, ompt_sync_region_t or task flags; 0: none
    uint64_t parallelId = 0;  // 0: none
    uint64_t taskId = 0;      // a parallel region's: the task that started it; 0: none
    int64_t count = 0;        // iterations, requested threads, team size; 0: none
    int32_t index = -1;       // thread number in the team; -1: none
    uint64_t codePtr = 0;     // 0: none
};

inline OpenMpConstruct openMpAt(const Track& t, size_t i) {
    OpenMpConstruct c;
    const int64_t e = t.intAt(cols::OpenMp::Event, i);
    c.event = e >= 0 && e <= 4 ? static_cast<OpenMpEvent>(e) : OpenMpEvent::Sync;
    c.kind = static_cast<uint32_t>(t.intAt(cols::OpenMp::Kind, i));
    c.parallelId = static_cast<uint64_t>(t.intAt(cols::OpenMp::ParallelId, i));
    c.taskId = static_cast<uint64_t>(t.intAt(cols::OpenMp::TaskId, i));
    c.count = t.intAt(cols::OpenMp::Count, i);
    c.index = static_cast<int32_t>(t.intAt(cols::OpenMp::Index, i));
    c.codePtr = static_cast<uint64_t>(t.intAt(cols::OpenMp::CodePtr, i));
    return c;
}

// ompt_work_t in words ("loop", "sections", "single", ...); "" for an unknown value.
inline std::string_view openMpWorkName(uint32_t kind) {
    switch (kind) {
        case kOmpWorkLoop: return "loop";
        case kOmpWorkSections: return "sections";
        case kOmpWorkSingleExecutor: return "single (executor)";
        case kOmpWorkSingleOther: return "single (other threads)";
        case kOmpWorkWorkshare: return "workshare";
        case kOmpWorkDistribute: return "distribute";
        case kOmpWorkTaskloop: return "taskloop";
        default: return "";
    }
}

// ompt_sync_region_t in words; "" for an unknown value.
inline std::string_view openMpSyncName(uint32_t kind) {
    switch (kind) {
        case 1: return "barrier";
        case 2: return "implicit barrier";
        case 3: return "explicit barrier";
        case 4: return "implementation barrier";
        case 5: return "taskwait";
        case 6: return "taskgroup";
        case 7: return "reduction";
        case 8: return "implicit barrier, worksharing";
        case 9: return "implicit barrier, parallel";
        case 10: return "teams barrier";
        default: return "";
    }
}

// The task type of ompt_task_flag_t (its low bits): "initial", "implicit", "explicit", "target".
inline std::string_view openMpTaskTypeName(uint32_t flags) {
    if (flags & kOmpTaskInitial) return "initial";
    if (flags & kOmpTaskImplicit) return "implicit";
    if (flags & kOmpTaskExplicit) return "explicit";
    if (flags & kOmpTaskTarget) return "target";
    return "";
}

// What the event is, in words: "parallel region", "implicit task", "worksharing (loop)",
// "synchronization (taskwait)", "explicit task".
inline std::string openMpConstructText(const OpenMpConstruct& c) {
    auto with = [](std::string_view what, std::string_view detail) {
        return detail.empty() ? std::string(what) : std::string(what) + " (" + std::string(detail) + ")";
    };
    switch (c.event) {
        case OpenMpEvent::Parallel: return "parallel region";
        case OpenMpEvent::ImplicitTask: return "implicit task";
        case OpenMpEvent::Work: return with("worksharing", openMpWorkName(c.kind));
        case OpenMpEvent::Sync: return with("synchronization", openMpSyncName(c.kind));
        case OpenMpEvent::Task: {
            const std::string_view type = openMpTaskTypeName(c.kind);
            return type.empty() ? std::string("task") : std::string(type) + " task";
        }
    }
    return "OpenMP";
}

// What `count` is for this event ("Iterations", "Threads requested", "Team size", "Sections"),
// or "" when it has none.
inline std::string_view openMpCountLabel(const OpenMpConstruct& c) {
    switch (c.event) {
        case OpenMpEvent::Parallel: return "Threads requested";
        case OpenMpEvent::ImplicitTask: return "Team size";
        case OpenMpEvent::Work:
            if (c.kind == kOmpWorkSections) return "Sections";
            return c.kind == kOmpWorkLoop || c.kind == kOmpWorkDistribute || c.kind == kOmpWorkTaskloop
                       ? "Iterations"
                       : "Count";
        default: return "";
    }
}

}  // namespace sl::analysis
