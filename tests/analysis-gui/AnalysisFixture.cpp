#include "tests/analysis-gui/AnalysisFixture.h"

#include <string>

namespace sl::test {

std::shared_ptr<Report> makeAnalysisReport() {
    ReportBuilder b;
    b.report().session.durationNs = 1000;
    b.ensureProcess(1).name = "app";
    b.ensureThread(1, 2).name = "main";
    Gpu g0;
    g0.deviceId = 0;
    g0.name = "Test GPU A";
    Gpu g1 = g0;
    g1.deviceId = 1;
    g1.name = "Test GPU B";
    b.report().gpus = {g0, g1};
    const uint32_t launch = b.intern("cudaLaunchKernel"), copy = b.intern("cudaMemcpyAsync");
    const uint32_t kA = b.intern("kA"), kB = b.intern("kB");

    auto api = [&](int64_t s, int64_t e, uint32_t name, uint32_t corr) {
        CudaApiCall c;
        c.pid = 1; c.tid = 2; c.start = s; c.end = e; c.name = name; c.correlation = corr; c.cbid = 211;
        b.add(c);
    };
    auto kernel = [&](int32_t dev, uint32_t stream, int64_t s, int64_t e, uint32_t name, uint32_t corr, uint32_t gx,
                      uint32_t gy, uint32_t bx, uint32_t regs) {
        KernelExec k;
        k.place = {1, dev, 1, stream};
        k.start = s; k.end = e; k.name = name; k.correlation = corr;
        k.launch.mangledName = b.intern(std::string("_Z2") + std::string(b.report().str(name)) + "v");
        k.launch.shortName = name;
        k.launch.grid[0] = gx; k.launch.grid[1] = gy; k.launch.grid[2] = 1;
        k.launch.block[0] = bx; k.launch.block[1] = 1; k.launch.block[2] = 1;
        k.launch.registersPerThread = regs;
        k.launch.staticSharedBytes = 1024;
        b.add(k);
    };
    auto memcpy = [&](uint32_t stream, int64_t s, int64_t e, CopyKind kind, uint64_t bytes, uint32_t corr) {
        MemcpyOp m;
        m.place = {1, 0, 1, stream};
        m.start = s; m.end = e; m.copyKind = kind; m.bytes = bytes; m.correlation = corr; m.flags = 1;
        m.srcKind = kind == CopyKind::HtoD ? MemoryKind::Pinned : MemoryKind::Device;
        m.dstKind = kind == CopyKind::HtoD ? MemoryKind::Device : MemoryKind::Pinned;
        b.add(m);
    };
    api(100, 120, launch, 1);
    kernel(0, 7, 200, 300, kA, 1, 4, 1, 256, 32);
    api(130, 150, launch, 2);
    kernel(0, 7, 300, 450, kA, 2, 4, 1, 256, 32);
    api(160, 170, copy, 3);
    memcpy(8, 250, 350, CopyKind::HtoD, 1000, 3);
    api(400, 420, launch, 4);
    kernel(0, 8, 500, 700, kB, 4, 8, 2, 128, 40);
    api(430, 440, copy, 5);
    memcpy(7, 600, 650, CopyKind::DtoH, 2000, 5);
    api(50, 60, launch, 6);
    kernel(1, 9, 0, 1000, kA, 6, 4, 1, 256, 32);

    auto range = [&](int64_t s, int64_t e, const char* name) {
        NvtxRangeEvent r;
        r.pid = 1; r.tid = 2; r.start = s; r.end = e; r.message = b.intern(name);
        b.add(r);
    };
    range(90, 180, "step");
    range(390, 445, "step2");
    return b.finish();
}

std::shared_ptr<Report> makeBigKernelTrack(size_t n, uint32_t names) {
    ReportBuilder b;
    std::vector<uint32_t> ids;
    for (uint32_t k = 0; k < names; ++k) ids.push_back(b.intern("k" + std::to_string(k)));
    KernelExec k;
    k.place = {1, 0, 1, 1};
    for (size_t i = 0; i < n; ++i) {
        k.start = static_cast<int64_t>(i) * 10;
        k.end = k.start + static_cast<int64_t>((i * 7919) % 1000) + 1;
        k.name = ids[i % names];
        k.correlation = static_cast<uint32_t>(i + 1);
        b.add(k);
    }
    return b.finish();
}

}  // namespace sl::test
