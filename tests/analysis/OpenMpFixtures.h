#pragma once
// A hand-built report of OpenMP events (EventKind::OpenMp, -t openmp): one parallel region of
// two threads in process 100, for the stats report, details, export and viewer tests. Times in
// ns on the report clock; the session starts at 1000, so relative times are these minus 1000.
// Nested constructs nest in time on each thread, as OMPT reports them.
//   thread 100 "main" (thread 0 of the team):
//     parallel                        [1100, 2000] region 1, parent task 1, 2 threads requested, code 0x401a2b
//     implicit task                   [1110, 1990] region 1, task 2, team of 2, thread 0, flags 2
//     loop                            [1120, 1500] region 1, task 2, 500 iterations (ompt_work_loop), code 0x401b00
//     implicit barrier (worksharing)  [1500, 1600] region 1, task 2, kind 8
//     barrier                         [1600, 1700] region 1, task 2, kind 3 (explicit), code 0x401c00
//     taskwait                        [1705, 1790] region 1, task 2, kind 5
//     task                            [1710, 1780] task 5, flags 4 (explicit)
//     implicit barrier (parallel)     [1900, 1990] region 1, task 2, kind 9
//   thread 101 "worker" (thread 1):
//     implicit task                   [1115, 1995] region 1, task 3, team of 2, thread 1, flags 2
//     loop                            [1130, 1450] region 1, task 3, 500 iterations
//     implicit barrier (worksharing)  [1450, 1600] region 1, task 3, kind 8
//     barrier                         [1620, 1700] region 1, task 3, kind 3, code 0x401c00
//     implicit barrier (parallel)     [1800, 1995] region 1, task 3, kind 9
//   thread 102 "helper": no OpenMP event (an OS runtime call only).
#include <memory>

#include "model/core/ReportBuilder.h"

namespace sl::test {

inline std::shared_ptr<Report> makeOpenMpReport() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.startMonotonicNs = 1000;
    r.session.durationNs = 2000;
    r.session.source = "test";
    b.ensureProcess(100).name = "omp_app";
    b.ensureThread(100, 100).name = "main";
    b.ensureThread(100, 101).name = "worker";
    b.ensureThread(100, 102).name = "helper";
    using E = OpenMpEvent;
    auto ev = [&](int64_t tid, const char* name, int64_t s, int64_t e, E event, uint32_t kind, uint64_t region,
                  uint64_t task, int64_t count, int32_t index, uint64_t code) {
        const int64_t x[] = {static_cast<int64_t>(event), kind, static_cast<int64_t>(region),
                             static_cast<int64_t>(task), count, index, static_cast<int64_t>(code)};
        b.addRaw(TrackKey::forThread(EventKind::OpenMp, 100, tid), s, e, b.intern(name), x);
    };
    ev(100, "parallel", 1100, 2000, E::Parallel, 0, 1, 1, 2, -1, 0x401a2b);
    ev(100, "implicit task", 1110, 1990, E::ImplicitTask, 2, 1, 2, 2, 0, 0);
    ev(100, "loop", 1120, 1500, E::Work, 1, 1, 2, 500, -1, 0x401b00);
    ev(100, "implicit barrier (worksharing)", 1500, 1600, E::Sync, 8, 1, 2, 0, -1, 0);
    ev(100, "barrier", 1600, 1700, E::Sync, 3, 1, 2, 0, -1, 0x401c00);
    ev(100, "taskwait", 1705, 1790, E::Sync, 5, 1, 2, 0, -1, 0);
    ev(100, "task", 1710, 1780, E::Task, 4, 0, 5, 0, -1, 0);
    ev(100, "implicit barrier (parallel)", 1900, 1990, E::Sync, 9, 1, 2, 0, -1, 0);
    ev(101, "implicit task", 1115, 1995, E::ImplicitTask, 2, 1, 3, 2, 1, 0);
    ev(101, "loop", 1130, 1450, E::Work, 1, 1, 3, 500, -1, 0x401b00);
    ev(101, "implicit barrier (worksharing)", 1450, 1600, E::Sync, 8, 1, 3, 0, -1, 0);
    ev(101, "barrier", 1620, 1700, E::Sync, 3, 1, 3, 0, -1, 0x401c00);
    ev(101, "implicit barrier (parallel)", 1800, 1995, E::Sync, 9, 1, 3, 0, -1, 0);
    const int64_t os[] = {0, 0};
    b.addRaw(TrackKey::forThread(EventKind::OsRuntime, 100, 102), 1200, 1300, b.intern("nanosleep"), os);
    return b.finish();
}

}  // namespace sl::test
