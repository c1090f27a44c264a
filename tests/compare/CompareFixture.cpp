#include "tests/compare/CompareFixture.h"

#include <string>
#include <utility>
#include <vector>

namespace sl::test {
namespace {

struct Spec {
    int64_t sessionStart = 0, duration = 0;
    std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> nvtx;
    std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> kernels;
    std::vector<std::pair<int64_t, int64_t>> launches;
};

std::shared_ptr<Report> build(const Spec& s) {
    ReportBuilder b;
    b.report().session.startMonotonicNs = s.sessionStart;
    b.report().session.durationNs = s.duration;
    b.ensureProcess(1).name = "app";
    b.ensureThread(1, 2).name = "main";
    Gpu g;
    g.deviceId = 0;
    g.name = "Test GPU";
    b.report().gpus = {g};
    for (const auto& [name, t] : s.nvtx) {
        NvtxRangeEvent e;
        e.pid = 1;
        e.tid = 2;
        e.start = t.first;
        e.end = t.second;
        e.message = b.intern(name);
        b.add(e);
    }
    uint32_t corr = 1;
    for (const auto& [name, t] : s.kernels) {
        KernelExec k;
        k.place = {1, 0, 1, 7};
        k.start = t.first;
        k.end = t.second;
        k.name = b.intern(name);
        k.correlation = corr++;
        k.launch.shortName = k.name;
        b.add(k);
    }
    corr = 1;
    for (const auto& t : s.launches) {
        CudaApiCall c;
        c.pid = 1;
        c.tid = 2;
        c.start = t.first;
        c.end = t.second;
        c.name = b.intern("cudaLaunchKernel");
        c.correlation = corr++;
        c.cbid = 211;
        b.add(c);
    }
    return b.finish();
}

}  // namespace

std::shared_ptr<Report> makeBaselineReport() {
    Spec s;
    s.sessionStart = 1000;
    s.duration = 1000;
    // Added out of start order on purpose: "the Nth instance" is in start order.
    s.nvtx = {{"step", {1700, 1900}},
              {"step", {1100, 1300}},
              {"step", {1400, 1600}},
              {"warmup", {1010, 1090}}};
    s.kernels = {{"kA", {1150, 1250}}, {"kA", {1450, 1550}}};
    s.launches = {{1120, 1130}, {1420, 1430}};
    return build(s);
}

std::shared_ptr<Report> makeComparisonReport() {
    Spec s;
    s.sessionStart = 5000;
    s.duration = 1200;
    s.nvtx = {{"step", {5600, 5900}}, {"step", {5200, 5500}}, {"init", {5010, 5100}}};
    s.kernels = {{"kA", {5250, 5400}}, {"kB", {5650, 5700}}};
    s.launches = {{5220, 5230}};
    return build(s);
}

}  // namespace sl::test
