#include "tests/analysis/Fixtures.h"

namespace sl::test {

std::shared_ptr<Report> makeProjectionReport() {
    ReportBuilder b;
    b.report().session.durationNs = 2'000;
    b.ensureProcess(10).name = "app";
    b.ensureThread(10, 11).name = "main";
    b.ensureThread(10, 12).name = "helper";
    b.ensureProcess(20).name = "other";
    b.ensureThread(20, 21).name = "main";
    b.report().nvtxDomains.push_back({10, 1, "data"});
    const uint32_t launch = b.intern("cudaLaunchKernel"), memcpy = b.intern("cudaMemcpyAsync");
    const uint32_t k1 = b.intern("k1"), k2 = b.intern("k2");
    KernelLaunchInfo li;
    li.mangledName = b.intern("_Z2k1v");
    li.shortName = k1;
    const uint32_t l1 = b.launchId(li);
    li.mangledName = b.intern("_Z2k2v");
    li.shortName = k2;
    const uint32_t l2 = b.launchId(li);

    auto range = [&](int64_t tid, uint32_t domain, int64_t s, int64_t e, const char* name, RangeType type = RangeType::PushPop,
                     int64_t endTid = 0) {
        NvtxRangeEvent r;
        r.pid = 10; r.tid = tid; r.domain = domain; r.start = s; r.end = e; r.message = b.intern(name);
        r.rangeType = type; r.endTid = endTid;
        b.add(r);
    };
    range(11, 0, 100, 1000, "outer");
    range(11, 0, 150, 400, "inner1");
    range(11, 1, 150, 250, "load");
    range(11, 0, 450, 900, "inner2");
    range(11, 0, 100, 2000, "crossing", RangeType::StartEnd, 12);
    range(12, 0, 100, 2000, "idle");

    auto api = [&](int64_t pid, int64_t tid, int64_t s, int64_t e, uint32_t name, uint32_t corr) {
        CudaApiCall c;
        c.pid = pid; c.tid = tid; c.start = s; c.end = e; c.name = name; c.correlation = corr; c.cbid = 211;
        b.add(c);
    };
    auto kernel = [&](int64_t pid, int32_t dev, int64_t s, int64_t e, uint32_t name, uint32_t launchIdx, uint32_t corr) {
        KernelExec k;
        k.place = {pid, dev, 1, 7};
        k.start = s; k.end = e; k.name = name; k.correlation = corr;
        k.launch = b.report().kernelLaunches[launchIdx];
        b.add(k);
    };
    api(10, 11, 160, 180, launch, 1);
    kernel(10, 0, 500, 600, k1, l1, 1);
    api(10, 11, 200, 220, memcpy, 2);
    MemcpyOp m;
    m.place = {10, 0, 1, 7};
    m.start = 650; m.end = 700; m.correlation = 2; m.bytes = 1000; m.copyKind = CopyKind::HtoD;
    m.srcKind = MemoryKind::Pinned; m.dstKind = MemoryKind::Device;
    b.add(m);
    api(10, 11, 460, 950, launch, 3);
    kernel(10, 0, 1200, 1300, k2, l2, 3);
    api(10, 11, 1100, 1120, launch, 4);
    kernel(10, 0, 1400, 1500, k1, l1, 4);
    api(20, 21, 50, 60, launch, 1);
    kernel(20, 1, 70, 90, k2, l2, 1);
    // A kernel whose launch was not captured.
    kernel(10, 0, 1600, 1650, k2, l2, 99);
    return b.finish();
}

namespace {

std::shared_ptr<Report> statsReport(bool changed) {
    ReportBuilder b;
    Report& r = b.report();
    r.session.startMonotonicNs = 1000;
    r.session.durationNs = 20'000;
    r.session.source = "test";
    b.ensureProcess(7).name = "app";
    b.ensureThread(7, 8).name = "main";
    r.gpus.push_back({});
    r.gpus.back().deviceId = 0;
    r.gpus.back().name = "Test GPU";
    r.nvtxDomains.push_back({7, 1, "disk"});
    const uint32_t launchName = b.intern("cudaLaunchKernel_v7000");
    uint32_t corr = 1;
    int64_t t = 2000;
    auto kernel = [&](const char* name, int64_t dur) {
        CudaApiCall c;
        c.pid = 7; c.tid = 8; c.start = t; c.end = t + 10; c.name = launchName; c.correlation = corr; c.cbid = 211;
        b.add(c);
        KernelExec k;
        k.place = {7, 0, 1, 1};
        k.start = t + 15; k.end = t + 15 + dur; k.name = b.intern(name); k.correlation = corr++;
        k.launch.shortName = k.name;
        k.launch.grid[0] = 2; k.launch.grid[1] = k.launch.grid[2] = 1;
        k.launch.block[0] = 128; k.launch.block[1] = k.launch.block[2] = 1;
        b.add(k);
        t += 1000;
    };
    for (int64_t d : {100, 200, 300, 400}) kernel("kA", changed ? 2 * d : d);
    if (!changed) for (int64_t d : {50, 50, 80}) kernel("kB", d);
    else kernel("kC", 1000);
    auto copy = [&](CopyKind kind, uint64_t bytes, int64_t dur) {
        MemcpyOp m;
        m.place = {7, 0, 1, 1};
        m.start = t; m.end = t + dur; m.bytes = bytes; m.copyKind = kind;
        m.srcKind = kind == CopyKind::HtoD ? MemoryKind::Pageable : MemoryKind::Device;
        m.dstKind = kind == CopyKind::HtoD ? MemoryKind::Device : MemoryKind::Pageable;
        b.add(m);
        t += dur + 100;
    };
    copy(CopyKind::HtoD, 1'000'000, 1000);
    copy(CopyKind::HtoD, 1'000'000, 3000);
    copy(CopyKind::DtoH, 500'000, 2000);
    MemsetOp ms;
    ms.place = {7, 0, 1, 1};
    ms.start = t; ms.end = t + 10; ms.bytes = 64; ms.memKind = MemoryKind::Device;
    b.add(ms);
    auto osrt = [&](const char* name, int64_t s, int64_t dur) {
        OsRuntimeCall o;
        o.pid = 7; o.tid = 8; o.start = s; o.end = s + dur; o.function = b.intern(name);
        b.add(o);
    };
    osrt("read", 1100, 10);
    osrt("read", 1200, 30);
    osrt("write", 1300, 5);
    if (changed) osrt("write", 1400, 15);
    NvtxRangeEvent step;
    step.pid = 7; step.tid = 8; step.message = b.intern("step");
    step.start = 1500; step.end = 2500;
    b.add(step);
    step.start = 2600; step.end = 5600;
    b.add(step);
    NvtxRangeEvent io;
    io.pid = 7; io.tid = 8; io.domain = 1; io.message = b.intern("io"); io.rangeType = RangeType::StartEnd;
    io.start = 6000; io.end = 6500;
    b.add(io);
    ThreadRunning run;
    run.pid = 7; run.tid = 8; run.start = 1000; run.end = 1700; run.cpu = 0;
    b.add(run);
    run.start = 1800; run.end = 2100; run.cpu = 3;
    b.add(run);
    return b.finish();
}

}  // namespace

std::shared_ptr<Report> makeStatsReport() { return statsReport(false); }
std::shared_ptr<Report> makeStatsReportChanged() { return statsReport(true); }

}  // namespace sl::test
