#include "tests/analysis-gui/InsightsFixture.h"

namespace sl::test {

std::shared_ptr<Report> makeInsightsReport(int64_t syncEnd, bool secondKernel) {
    ReportBuilder b;
    b.report().session.startMonotonicNs = 0;
    b.report().session.durationNs = 800 * kMs;
    b.ensureProcess(10).name = "app";
    b.ensureThread(10, 11).name = "main";
    b.ensureThread(10, 12).name = "worker";
    Gpu gpu;
    gpu.deviceId = 0;
    gpu.name = "Test GPU";
    b.report().gpus = {gpu};
    uint32_t correlation = 0;
    auto api = [&](const char* name, int64_t s, int64_t e, int64_t tid = 11) {
        CudaApiCall c;
        c.pid = 10;
        c.tid = tid;
        c.start = s;
        c.end = e;
        c.name = b.intern(name);
        c.correlation = ++correlation;
        b.add(c);
        return correlation;
    };
    auto kernel = [&](const char* name, int64_t s, int64_t e, uint32_t corr) {
        KernelExec k;
        k.place = {10, 0, 1, 7};
        k.start = s;
        k.end = e;
        k.name = b.intern(name);
        k.correlation = corr;
        k.launch.shortName = k.launch.mangledName = k.name;
        b.add(k);
    };
    kernel("k1", 10 * kMs, syncEnd, api("cudaLaunchKernel", 9 * kMs, 9 * kMs + 10'000));
    api("cudaDeviceSynchronize", 9 * kMs + 20'000, syncEnd);
    if (secondKernel)
        kernel("k2", 710 * kMs, 790 * kMs,
               api("cudaLaunchKernel", 105 * kMs, 105 * kMs + 10'000, 12));
    return b.finish();
}

}  // namespace sl::test
