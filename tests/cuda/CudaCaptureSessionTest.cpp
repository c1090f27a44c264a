#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "capture/cupti/CudaCaptureSession.h"

namespace sl::cuda {
namespace {

TEST(CudaCaptureSession, EnvironmentOnlyWhenTracingCuda) {
    CudaTraceOptions t;
    t.graphTrace = GraphTrace::Node;
    CudaCaptureSession on(t, {}, true), off(t, {}, false);
    std::map<std::string, std::string> env;
    for (auto& [k, v] : on.environment()) env[k] = v;
    EXPECT_EQ(env.at("SIGHTLINE_CUDA_GRAPH"), "node");
    EXPECT_TRUE(off.environment().empty());
}

TEST(CudaCaptureSession, MetricsUnavailableIsSaidAndReported) {
    GpuMetricsOptions m;
    m.all = true;
    m.library = "libno-such-nvidia-ml.so.1";
    CudaCaptureSession s({}, m, false);
    std::string said;
    s.start([&](const std::string& msg) { said = msg; });
    EXPECT_EQ(
        said.rfind("GPU metrics unavailable: libno-such-nvidia-ml.so.1 could not be loaded", 0), 0u)
        << said;
    ReportBuilder b;
    s.addToReport(b);
    auto r = b.finish();
    EXPECT_EQ(r->diagnosticCount("gpu_metrics.unavailable"), 1);
    EXPECT_EQ(r->eventCount(), 0u);
}

TEST(CudaCaptureSession, MetricsAndCorrelationDiagnosticsGoIntoTheReport) {
    GpuMetricsOptions m;
    m.devices = {0};
    m.frequencyHz = 100;
    m.library = SIGHTLINE_FAKE_NVML;
    CudaCaptureSession s({}, m, true);
    s.start({});
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ReportBuilder b;
    Gpu g;  // what the CUDA streams said about the GPU
    g.deviceId = 0;
    g.uuid = "GPU-00000000-0000-0000-0000-000000000000";
    g.smCount = 132;
    b.report().gpus.push_back(g);
    KernelExec k;  // a kernel whose API call is missing
    k.place = {1, 0, 1, 7};
    k.correlation = 9;
    b.add(k);
    s.addToReport(b);
    auto r = b.finish();
    ASSERT_EQ(r->gpus.size(), 1u);
    EXPECT_EQ(r->gpus[0].name, "Fake GPU 0");  // NVML completed the CUDA GPU
    EXPECT_EQ(r->gpus[0].smCount, 132);
    EXPECT_EQ(r->metricSeries.size(), 9u);
    EXPECT_GE(r->eventCount(EventKind::Metric), 9u);
    EXPECT_EQ(r->diagnosticCount("cuda.gpu_ops_without_api_call"), 1);
}

}  // namespace
}  // namespace sl::cuda
