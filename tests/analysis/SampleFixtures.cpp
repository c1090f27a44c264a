#include "tests/analysis/SampleFixtures.h"

#include "model/core/ReportBuilder.h"

namespace sl::test {

std::shared_ptr<Report> makeSampleReport() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.source = "test";
    r.session.startMonotonicNs = 0;
    r.session.durationNs = 2000;
    b.ensureProcess(5).name = "app";
    b.ensureThread(5, 6).name = "main";
    b.ensureThread(5, 7).name = "worker";
    const uint32_t app = b.intern("/usr/bin/app"), libm = b.intern("/usr/lib/libm.so.6");
    const uint32_t fMain = b.intern("main"), fCompute = b.intern("compute"),
                   fSquare = b.intern("square");
    const uint32_t fSqrt = b.intern("sqrt"), fRecurse = b.intern("recurse");
    const uint32_t main = b.frameId({fMain, app, 0x1000});
    const uint32_t compute = b.frameId({fCompute, app, 0x1100});
    const uint32_t square = b.frameId({fSquare, app, 0x1200});
    const uint32_t sqrtF = b.frameId({fSqrt, libm, 0x2000});
    const uint32_t raw = b.frameId({0, libm, 0x1234});
    const uint32_t recurse = b.frameId({fRecurse, app, 0x1300});
    const uint32_t s1 = b.stackId({square, compute, main}), s2 = b.stackId({sqrtF, compute, main});
    const uint32_t s3 = b.stackId({compute, main}), s4 = b.stackId({raw, sqrtF, compute, main});
    const uint32_t s5 = b.stackId({recurse, recurse, main});
    for (int64_t t : {100, 200, 300, 400}) b.add(CpuSampleEvent{5, 6, t, s1, fSquare, 0});
    for (int64_t t : {500, 600, 700}) b.add(CpuSampleEvent{5, 6, t, s2, fSqrt, 1});
    for (int64_t t : {800, 900}) b.add(CpuSampleEvent{5, 6, t, s3, fCompute, 1});
    b.add(CpuSampleEvent{5, 7, 1000, s4, 0, 2});
    for (int64_t t : {1100, 1200}) b.add(CpuSampleEvent{5, 7, t, s5, fRecurse, -1});
    return b.finish();
}

}  // namespace sl::test
