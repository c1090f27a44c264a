// The GPU end-to-end checks on synthetic reports: a capture that matches its expectations
// passes every check, and each kind of defect fails the check meant to catch it.
#include <gtest/gtest.h>

#include <functional>

#include "model/core/ReportBuilder.h"
#include "tests/gpu/GpuCaptureCheck.h"

namespace sl::gpucheck {
namespace {

const char* kExpect =
    "kernels=2\ngraph_launches=1\nkernels_per_graph=1\nkernels_in_profiler_range=1\n"
    "memcpy_htod_bytes=100\nmemcpy_dtoh_bytes=50\nmemcpy_dtod_bytes=0\nmemset_bytes=8\n"
    "memcpy_htod_bytes_in_profiler_range=100\nhost_threads_with_cuda=2\noverlap=1\n"
    "nvtx_ranges=phase:a,phase:b\n";

struct Defects {
    bool dropApi = false;  // one kernel loses its API call
    bool lateApi = false;  // an API call starts after its kernel
    bool overlapInStream = false;
    bool graphNodesOverlap = false;  // a second node of the graph launch starts before the first ends
    bool launchOverlapsItself = false;  // the same, for a kernel of cudaLaunchKernel (corr 1)
    bool overlapAfterGraphNodes = false;  // after two overlapping nodes, another launch's kernel
    bool noOverlap = false;
    bool oneThread = false;
    bool wrongBytes = false;
    bool missingNvtx = false;
};

// Node mode: 2 kernels + 1 graph kernel on stream 13/14; HtoD copy on stream 14 overlapping the
// first kernel on stream 13.
std::shared_ptr<Report> capture(const Defects& d = {}) {
    ReportBuilder b;
    auto api = [&](int64_t tid, int64_t start, uint32_t corr, const char* name = "cudaLaunchKernel") {
        b.add(CudaApiCall{1, tid, start, start + 5, b.intern(name), corr, 211, ApiKind::Runtime, 0});
    };
    auto kernel = [&](uint32_t stream, int64_t start, int64_t end, uint32_t corr) {
        KernelExec k;
        k.place = {1, 0, 1, stream};
        k.start = start;
        k.end = end;
        k.name = b.intern("k()");
        k.correlation = corr;
        b.add(k);
    };
    api(1, 10, 1);
    kernel(13, 100, 300, 1);
    api(d.oneThread ? 1 : 2, d.lateApi ? 500 : 20, 2);
    kernel(14, 400, 450, 2);
    if (!d.dropApi) api(1, 30, 3, "cudaGraphLaunch");
    kernel(13, d.overlapInStream ? 250 : 310, 320, 3);
    if (d.graphNodesOverlap) kernel(13, 316, 330, 3);
    if (d.launchOverlapsItself) kernel(13, 250, 260, 1);
    if (d.overlapAfterGraphNodes) {
        // Nodes of launch 3: 310..320 (above), 312..400 and 330..331, overlapping one another;
        // then a kernel of launch 2 at 350..360, inside the second node: not exempt, though the
        // operation just before it by start (330..331) ended before it.
        kernel(13, 312, 400, 3);
        kernel(13, 330, 331, 3);
        kernel(13, 350, 360, 2);
    }
    MemcpyOp m;
    m.place = {1, 0, 1, 14};
    m.start = d.noOverlap ? 320 : 150;
    m.end = d.noOverlap ? 330 : 200;
    m.correlation = 4;
    m.bytes = d.wrongBytes ? 99 : 100;
    m.copyKind = CopyKind::HtoD;
    b.add(m);
    m.start = 460;
    m.end = 470;
    m.bytes = 50;
    m.copyKind = CopyKind::DtoH;
    b.add(m);
    b.add(MemsetOp{{1, 0, 1, 14}, 480, 490, 6, 8, 0, MemoryKind::Device});
    NvtxRangeEvent n;
    n.pid = 1;
    n.tid = 1;
    n.start = 0;
    n.end = 1000;
    n.message = b.intern("phase:a");
    b.add(n);
    if (!d.missingNvtx) {
        n.message = b.intern("phase:b");
        b.add(n);
    }
    return b.finish();
}

Expectations expectations() {
    auto e = Expectations::parse(kExpect, "test.expect");
    EXPECT_TRUE(e.ok());
    return *e;
}

bool failedWith(const CheckResult& r, const std::string& prefix) {
    for (const auto& f : r.failed)
        if (f.rfind(prefix, 0) == 0) return true;
    return false;
}

TEST(GpuCaptureCheck, MatchingCapturePassesEveryCheck) {
    auto r = checkGpuCapture(*capture(), expectations(), {});
    EXPECT_TRUE(r.ok());
    for (const auto& f : r.failed) ADD_FAILURE() << f;
    EXPECT_EQ(r.passed.size(), 12u);
}

TEST(GpuCaptureCheck, GraphModeCountsGraphLaunchesNotTheirKernels) {
    CheckOptions o;
    o.graphMode = GraphMode::Graph;
    auto r = checkGpuCapture(*capture(), expectations(), o);
    // The synthetic capture is a node-mode one: 3 kernels where graph mode expects 2, no graph
    // trace.
    EXPECT_TRUE(failedWith(r, "kernels launched == kernels captured: captured 3, expected 2"));
    EXPECT_TRUE(failedWith(r, "graph launches captured: captured 0, expected 1"));
}

bool passedWith(const CheckResult& r, const std::string& text) {
    for (const auto& p : r.passed)
        if (p == text) return true;
    return false;
}

// A graph's nodes are ordered by its edges, not its stream: on an H200 chained nodes of one
// launch overlapped by up to 1.4 us. Counted and shown, not failed; other overlaps still fail.
TEST(GpuCaptureCheck, NodesOfOneGraphLaunchMayOverlap) {
    Defects d;
    d.graphNodesOverlap = true;
    auto r = checkGpuCapture(*capture(d), expectations(), {});
    EXPECT_TRUE(passedWith(r,
                           "timestamps monotonic per stream: 0 operations overlap their predecessor "
                           "on 2 streams (1 nodes of one graph launch overlap the node before them, "
                           "by up to 4 ns)"));
    d.overlapInStream = true;
    r = checkGpuCapture(*capture(d), expectations(), {});
    EXPECT_TRUE(failedWith(r, "timestamps monotonic per stream: 1 operations"));
}

// Only nodes of a graph launch: two kernels of one cudaLaunchKernel cannot overlap; and an
// operation that overlaps an earlier one of another launch fails even when the operation just
// before it by start did not overlap it.
TEST(GpuCaptureCheck, OnlyGraphLaunchesMayOverlapThemselves) {
    Defects d;
    d.launchOverlapsItself = true;
    auto r = checkGpuCapture(*capture(d), expectations(), {});
    EXPECT_TRUE(failedWith(r, "timestamps monotonic per stream: 1 operations"));
    Defects e;
    e.overlapAfterGraphNodes = true;
    r = checkGpuCapture(*capture(e), expectations(), {});
    EXPECT_TRUE(failedWith(r, "timestamps monotonic per stream: 1 operations overlap their "
                              "predecessor on 2 streams (2 nodes of one graph launch"));
}

// A program that launches only graphs (many_ops ... graph): at graph level its report has graph
// launches and no kernels or memsets of their own, and passes; at node level the nodes' kernels
// and memset bytes are expected.
std::shared_ptr<Report> graphsOnlyCapture(bool nodes) {
    ReportBuilder b;
    b.add(CudaApiCall{1, 1, 10, 15, b.intern("cudaGraphLaunch"), 7, 311, ApiKind::Runtime, 0});
    if (nodes) {
        KernelExec k;
        k.place = {1, 0, 1, 13};
        k.start = 20;
        k.end = 30;
        k.name = b.intern("k()");
        k.correlation = 7;
        b.add(k);
        b.add(MemsetOp{{1, 0, 1, 13}, 31, 35, 7, 4, 0, MemoryKind::Device});
    } else {
        GraphExec g;
        g.place = {1, 0, 1, 13};
        g.start = 20;
        g.end = 35;
        g.correlation = 7;
        g.graphId = 1;
        b.add(g);
    }
    return b.finish();
}

TEST(GpuCaptureCheck, GraphsOnlyProgramAtGraphAndNodeLevel) {
    auto e = Expectations::parse(
        "kernels=0\ngraph_launches=1\nkernels_per_graph=1\ngraph_memset_bytes=4\n", "g.expect");
    ASSERT_TRUE(e.ok());
    CheckOptions graph;
    graph.graphMode = GraphMode::Graph;
    graph.checkNvtx = false;
    auto r = checkGpuCapture(*graphsOnlyCapture(false), *e, graph);
    for (const auto& f : r.failed) ADD_FAILURE() << f;
    EXPECT_TRUE(passedWith(r, "memset bytes: captured 0, expected 0"));
    CheckOptions node = graph;
    node.graphMode = GraphMode::Node;
    r = checkGpuCapture(*graphsOnlyCapture(true), *e, node);
    for (const auto& f : r.failed) ADD_FAILURE() << f;
    EXPECT_TRUE(passedWith(r, "memset bytes: captured 4, expected 4"));
    EXPECT_TRUE(passedWith(r, "every kernel has its API call: 0 of 1 kernels without one"));
    // At node level a capture without the nodes fails.
    r = checkGpuCapture(*graphsOnlyCapture(false), *e, node);
    EXPECT_TRUE(failedWith(r, "kernels launched == kernels captured: captured 0, expected 1"));
    EXPECT_TRUE(failedWith(r, "memset bytes: captured 0, expected 4"));
}

TEST(GpuCaptureCheck, EachDefectFailsItsCheck) {
    struct Case {
        std::function<void(Defects&)> set;
        std::string failure;
    };
    std::vector<Case> cases = {
        {[](Defects& d) { d.dropApi = true; }, "every kernel has its API call: 1 of 3"},
        {[](Defects& d) { d.lateApi = true; }, "API call starts before its kernel: 1 of 3"},
        {[](Defects& d) { d.overlapInStream = true; },
         "timestamps monotonic per stream: 1 operations"},
        {[](Defects& d) { d.noOverlap = true; }, "a copy overlaps a kernel on another stream"},
        {[](Defects& d) { d.oneThread = true; },
         "CUDA API calls on 1 host threads, expected at least 2"},
        {[](Defects& d) { d.wrongBytes = true; }, "HtoD bytes: captured 99, expected 100"},
        {[](Defects& d) { d.missingNvtx = true; }, "NVTX range 'phase:b' captured"},
    };
    for (const auto& c : cases) {
        Defects d;
        c.set(d);
        auto r = checkGpuCapture(*capture(d), expectations(), {});
        EXPECT_FALSE(r.ok()) << c.failure;
        EXPECT_TRUE(failedWith(r, c.failure)) << c.failure;
        EXPECT_EQ(r.failed.size(), 1u)
            << c.failure << ": " << (r.failed.empty() ? "" : r.failed[0]);
    }
}

TEST(GpuCaptureCheck, ProfilerRangeCaptureExpectsOnlyTheRange) {
    CheckOptions o;
    o.profilerRangeOnly = true;
    auto r = checkGpuCapture(*capture(), expectations(), o);
    EXPECT_TRUE(failedWith(r, "kernels inside cudaProfilerStart/Stop: captured 3, expected 1"));
    EXPECT_TRUE(failedWith(r, "DtoH bytes in range: captured 50, expected 0"));
}

TEST(GpuCaptureCheck, GpuMetricsNeedAUtilizationSeriesPerGpu) {
    CheckOptions o;
    o.gpuMetrics = true;
    auto r = checkGpuCapture(*capture(), expectations(), o);
    EXPECT_TRUE(failedWith(r, "GPU utilization sampled on 0 of 0 GPUs"));

    ReportBuilder b;
    Gpu g;
    g.deviceId = 0;
    b.report().gpus.push_back(g);
    b.report().metricSeries.push_back({1, "GPU utilization", "%", "nvml", 0, 0});
    b.add(MetricSample{1, 10, 50});
    b.add(MetricSample{1, 20, 60});
    auto r2 = checkGpuCapture(*b.finish(), expectations(), o);
    bool passed = false;
    for (const auto& p : r2.passed) passed |= p == "GPU utilization sampled on 1 of 1 GPUs";
    EXPECT_TRUE(passed);
}

TEST(GpuCaptureCheck, EmptyReportFails) {
    ReportBuilder b;
    auto r = checkGpuCapture(*b.finish(), expectations(), {});
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(failedWith(r, "every kernel has its API call: 0 of 0"));
}

TEST(GpuCaptureCheck, ExpectationsParseErrorsNameTheLine) {
    auto e = Expectations::parse("kernels=1\nbroken line\n", "x.expect");
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error(), "x.expect:2: expected key=value, got 'broken line'");
    auto ok = Expectations::parse("a=1\n# comment\nlist=x,y z\n", "y.expect");
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->num("a"), 1);
    EXPECT_EQ(ok->num("missing", 7), 7);
    EXPECT_EQ(ok->list("list"), (std::vector<std::string>{"x", "y z"}));
    auto missing = Expectations::read("/nonexistent/e.expect");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error(), "/nonexistent/e.expect: cannot open the expectations file");
}

}  // namespace
}  // namespace sl::gpucheck
