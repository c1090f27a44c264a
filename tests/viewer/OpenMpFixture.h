#pragma once
// An OpenMP report for the viewer tests (-t openmp): one parallel region of three threads with a
// load imbalance; times relative to kOrigin, in ms. Process 300 "omp_app":
//   Thread 300 "omp_app" (thread 0): parallel [1, 9] (region 1, 3 threads requested)
//     > implicit task [1.1, 8.9] > loop [1.2, 5] (3000 iterations), implicit barrier
//     (worksharing) [5, 7.6], single [7.6, 7.8], implicit barrier (parallel) [7.8, 8.9];
//     and 400 OS runtime calls of 1 us from 9.1 ms (so that the workers hold few of the
//     process's events).
//   Thread 301 "omp_app" (thread 1, the slow one): implicit task [1.2, 8.95] > loop [1.3, 7.5],
//     implicit barrier (worksharing) [7.5, 7.6], single (other threads) [7.6, 7.61], implicit
//     barrier (parallel) [7.61, 8.95].
//   Thread 302 "omp_app" (thread 2): implicit task [1.3, 8.95] > loop [1.4, 6], implicit barrier
//     (worksharing) [6, 7.6], implicit barrier (parallel) [7.6, 8.95] > task [8, 8.5].
//   Thread 303 "helper": one OS runtime call (folded into "1 more thread").
#include <memory>
#include <string>

#include "model/core/ReportBuilder.h"

namespace sl::test {

struct OpenMpSpec {
    const char* name;
    OpenMpEvent event;
    uint32_t kind;
    double startMs, endMs;
    uint64_t region = 1, task = 0;
    int64_t count = 0;
    int32_t index = -1;
    uint64_t code = 0;
};

inline std::shared_ptr<Report> makeOpenMpViewerReport() {
    constexpr int64_t kOrigin = 1'000'000'000, kMs = 1'000'000;
    ReportBuilder b;
    Report& r = b.report();
    r.session.source = "test";
    r.session.startMonotonicNs = kOrigin;
    r.session.durationNs = 10 * kMs;
    Process p;
    p.pid = 300;
    p.name = "omp_app";
    p.commandLine = "./omp_app";
    p.start = kOrigin;
    p.end = kOrigin + 10 * kMs;
    r.processes.push_back(p);
    for (int64_t tid : {300, 301, 302}) r.threads.push_back({300, tid, "omp_app", kOrigin, kOrigin + 10 * kMs});
    r.threads.push_back({300, 303, "helper", kOrigin, kOrigin + 10 * kMs});

    using E = OpenMpEvent;
    auto add = [&](int64_t tid, const OpenMpSpec& s) {
        const int64_t x[] = {static_cast<int64_t>(s.event), s.kind, static_cast<int64_t>(s.region),
                             static_cast<int64_t>(s.task), s.count, s.index, static_cast<int64_t>(s.code)};
        b.addRaw(TrackKey::forThread(EventKind::OpenMp, 300, tid), kOrigin + static_cast<int64_t>(s.startMs * 1e6),
                 kOrigin + static_cast<int64_t>(s.endMs * 1e6), b.intern(s.name), x);
    };
    const OpenMpSpec t0[] = {
        {"parallel", E::Parallel, 0, 1, 9, 1, 1, 3, -1, 0x401a2b},
        {"implicit task", E::ImplicitTask, 2, 1.1, 8.9, 1, 2, 3, 0},
        {"loop", E::Work, 1, 1.2, 5, 1, 2, 3000, -1, 0x401b00},
        {"implicit barrier (worksharing)", E::Sync, 8, 5, 7.6, 1, 2},
        {"single", E::Work, 3, 7.6, 7.8, 1, 2, 0, -1, 0x401c00},
        {"implicit barrier (parallel)", E::Sync, 9, 7.8, 8.9, 1, 2},
    };
    const OpenMpSpec t1[] = {
        {"implicit task", E::ImplicitTask, 2, 1.2, 8.95, 1, 3, 3, 1},
        {"loop", E::Work, 1, 1.3, 7.5, 1, 3, 3000, -1, 0x401b00},
        {"implicit barrier (worksharing)", E::Sync, 8, 7.5, 7.6, 1, 3},
        {"single (other threads)", E::Work, 4, 7.6, 7.61, 1, 3},
        {"implicit barrier (parallel)", E::Sync, 9, 7.61, 8.95, 1, 3},
    };
    const OpenMpSpec t2[] = {
        {"implicit task", E::ImplicitTask, 2, 1.3, 8.95, 1, 4, 3, 2},
        {"loop", E::Work, 1, 1.4, 6, 1, 4, 3000, -1, 0x401b00},
        {"implicit barrier (worksharing)", E::Sync, 8, 6, 7.6, 1, 4},
        {"implicit barrier (parallel)", E::Sync, 9, 7.6, 8.95, 1, 4},
        {"task", E::Task, 4, 8, 8.5, 0, 9},
    };
    for (const OpenMpSpec& s : t0) add(300, s);
    for (const OpenMpSpec& s : t1) add(301, s);
    for (const OpenMpSpec& s : t2) add(302, s);
    for (int k = 0; k < 400; ++k) {
        const int64_t s = kOrigin + 9'100'000 + k * 2'000;
        b.add(OsRuntimeCall{300, 300, s, s + 1'000, b.intern("nanosleep"), 0, 0});
    }
    b.add(OsRuntimeCall{300, 303, kOrigin, kOrigin + kMs, b.intern("poll"), 0, 0});
    return b.finish();
}

}  // namespace sl::test
