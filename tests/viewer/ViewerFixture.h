#pragma once
// A small report with known events at known times for the viewer tests. The session starts
// at kOrigin (the ruler's 0); everything lies in [kOrigin, kOrigin + 10 ms]:
//   Process 100 "app" > Thread 101 "main": OS runtime "poll" [0, 10 ms] (sets the bounds),
//     NVTX "outer" [0.5, 8 ms] (red, 0xFFFF0000) with "inner" [1, 2.5 ms] nested (lane 1),
//     one CUDA API call per GPU operation.
//   GPU 0 "Test GPU" > Context 1 > Stream 7 "compute": kernel_a [1, 2 ms], kernel_b [3, 4 ms],
//     1000 "tiny" kernels of 100 ns every 1 us in [5, 6 ms]; memcpy HtoD [6.5, 7 ms].
//   Metric "GPU utilization" (GPU 0): 0 % at 0 ms, 50 % at 5 ms, 100 % at 9 ms.
#include <unistd.h>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "model/core/ReportBuilder.h"
#include "model/rep/RepWriter.h"

namespace sl::test {

constexpr int64_t kOrigin = 1'000'000'000;
constexpr int64_t kMs = 1'000'000;

inline std::shared_ptr<Report> makeViewerReport() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.source = "test";
    r.session.startMonotonicNs = kOrigin;
    r.session.durationNs = 10 * kMs;
    r.processes.push_back({100, 1, "app", "./app", kOrigin, kOrigin + 10 * kMs, 0, 0});
    r.threads.push_back({101, 100, "main", kOrigin, kOrigin + 10 * kMs});
    Gpu g;
    g.deviceId = 0;
    g.name = "Test GPU";
    r.gpus.push_back(g);
    r.contexts.push_back({100, 0, 1, ""});
    CudaStream s;
    s.pid = 100;
    s.deviceId = 0;
    s.contextId = 1;
    s.streamId = 7;
    s.name = "compute";
    r.streams.push_back(s);
    r.nvtxDomains.push_back({100, 0, ""});
    r.metricSeries.push_back({1, "GPU utilization", "%", "test", 0, 0});

    b.add(OsRuntimeCall{100, 101, kOrigin, kOrigin + 10 * kMs, b.intern("poll"), 0, 0});
    NvtxRangeEvent outer;
    outer.pid = 100;
    outer.tid = 101;
    outer.start = kOrigin + kMs / 2;
    outer.end = kOrigin + 8 * kMs;
    outer.message = b.intern("outer");
    outer.color = 0xFFFF0000;
    b.add(outer);
    NvtxRangeEvent inner = outer;
    inner.start = kOrigin + kMs;
    inner.end = kOrigin + 5 * kMs / 2;
    inner.message = b.intern("inner");
    inner.color = 0;
    b.add(inner);

    uint32_t corr = 1;
    KernelLaunchInfo li;
    li.grid[0] = 4;
    li.grid[1] = 1;
    li.grid[2] = 1;
    li.block[0] = 128;
    li.block[1] = 1;
    li.block[2] = 1;
    li.registersPerThread = 32;
    const uint32_t launch = b.launchId(li);
    const uint32_t apiName = b.intern("cudaLaunchKernel");
    auto kernel = [&](const char* name, int64_t start, int64_t end) {
        const int64_t apiStart = start - 20'000;
        b.add(CudaApiCall{100, 101, apiStart, apiStart + 5'000, apiName, corr, 211,
                          ApiKind::Runtime, 0});
        KernelExec k;
        k.place = {100, 0, 1, 7};
        k.start = start;
        k.end = end;
        k.name = b.intern(name);
        k.correlation = corr++;
        k.launch = li;
        b.add(k);
    };
    (void)launch;
    kernel("kernel_a", kOrigin + kMs, kOrigin + 2 * kMs);
    kernel("kernel_b", kOrigin + 3 * kMs, kOrigin + 4 * kMs);
    for (int i = 0; i < 1000; ++i)
        kernel("tiny", kOrigin + 5 * kMs + i * 1000, kOrigin + 5 * kMs + i * 1000 + 100);
    MemcpyOp m;
    m.place = {100, 0, 1, 7};
    m.start = kOrigin + 13 * kMs / 2;
    m.end = kOrigin + 7 * kMs;
    m.correlation = corr++;
    m.bytes = 8 << 20;
    m.copyKind = CopyKind::HtoD;
    m.srcKind = MemoryKind::Pinned;
    m.dstKind = MemoryKind::Device;
    b.add(CudaApiCall{100, 101, m.start - 30'000, m.start - 20'000, b.intern("cudaMemcpyAsync"),
                      m.correlation, 41, ApiKind::Runtime, 0});
    b.add(m);
    b.add(MetricSample{1, kOrigin, 0});
    b.add(MetricSample{1, kOrigin + 5 * kMs, 50});
    b.add(MetricSample{1, kOrigin + 9 * kMs, 100});
    return b.finish();
}

class ViewerTempDir {
public:
    ViewerTempDir() {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "sightline-viewer-XXXXXX").string();
        m_path = ::mkdtemp(tmpl.data());
    }
    ~ViewerTempDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    std::string file(const std::string& name) const {
        return (std::filesystem::path(m_path) / name).string();
    }

private:
    std::string m_path;
};

}  // namespace sl::test
