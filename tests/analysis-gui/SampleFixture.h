#pragma once
// A hand-built report with CPU samples whose aggregates are known by hand (header-only so the
// model unit tests in tests/analysis and the GUI tests share it). Process 1 ("app"), threads
// 10 ("main") and 11 ("worker"). Stacks, leaf first:
//   S1 compute (libm.so) < run (app) < main (app)
//   S2 helper (app) < compute < run < main
//   S3 run < main
//   S4 libfoo.so+0x40 (unresolved) < main
//   S5 run < run < main (recursion)
// Samples (time: stack, cpu): thread 10: 100 S1 c0, 200 S1 c0, 300 S2 c1, 400 S3 c1, 500 S5 c2,
// 600 S4 c2; thread 11: 150 S1 c3, 250 S2 c3, 350 S2 c3. An NVTX range "phase" [90, 610] on
// thread 10 gives the thread a second row.
// Whole report, 9 samples: self compute 3, helper 3, run 2, libfoo.so+0x40 1, main 0;
// total main 9, run 8, compute 6, helper 3, libfoo.so+0x40 1.
#include <memory>

#include "model/core/ReportBuilder.h"

namespace sl::test {

inline std::shared_ptr<Report> makeSampleTreeReport() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.source = "generated";
    r.session.startMonotonicNs = 0;
    r.processes.push_back({1, 0, "app", "app", 0, 1000, 0, 0});
    r.threads.push_back({10, 1, "main", 0, 1000});
    r.threads.push_back({11, 1, "worker", 0, 1000});
    const uint32_t app = b.intern("/opt/app/bin/app"), libm = b.intern("/usr/lib/libm.so"),
                   libfoo = b.intern("/usr/lib/libfoo.so");
    const uint32_t fMain = b.frameId({b.intern("main"), app, 0x100});
    const uint32_t fRun = b.frameId({b.intern("run"), app, 0x200});
    const uint32_t fRun2 = b.frameId({b.intern("run"), app, 0x210});  // another line of run
    const uint32_t fCompute = b.frameId({b.intern("compute"), libm, 0x300});
    const uint32_t fHelper = b.frameId({b.intern("helper"), app, 0x400});
    const uint32_t fFoo = b.frameId({0, libfoo, 0x40});
    const uint32_t s1 = b.stackId({fCompute, fRun, fMain});
    const uint32_t s2 = b.stackId({fHelper, fCompute, fRun, fMain});
    const uint32_t s3 = b.stackId({fRun, fMain});
    const uint32_t s4 = b.stackId({fFoo, fMain});
    const uint32_t s5 = b.stackId({fRun2, fRun, fMain});
    auto leaf = [&](uint32_t stack) {
        return r.stackFrames[r.callStacks[stack].frames[0]].function;
    };
    auto sample = [&](int64_t tid, int64_t time, uint32_t stack, int16_t cpu) {
        b.add(CpuSampleEvent{1, tid, time, stack, leaf(stack), cpu});
    };
    sample(10, 100, s1, 0);
    sample(10, 200, s1, 0);
    sample(10, 300, s2, 1);
    sample(10, 400, s3, 1);
    sample(10, 500, s5, 2);
    sample(10, 600, s4, 2);
    sample(11, 150, s1, 3);
    sample(11, 250, s2, 3);
    sample(11, 350, s2, 3);
    NvtxRangeEvent phase;
    phase.pid = 1;
    phase.tid = 10;
    phase.start = 90;
    phase.end = 610;
    phase.message = b.intern("phase");
    b.add(phase);
    return b.finish();
}

}  // namespace sl::test
