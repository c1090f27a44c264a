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

}  // namespace sl::test
