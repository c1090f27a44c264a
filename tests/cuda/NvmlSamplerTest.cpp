// The NVML sampler against a stand-in libnvidia-ml (FakeNvml.c) and against a missing one.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "capture/cupti/NvmlSampler.h"
#include "capture/cupti/ReportBuilderSink.h"

namespace sl::cuda {
namespace {

TEST(GpuMetricsOptions, ParsesDeviceLists) {
    auto none = parseGpuMetricsDevices("none");
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->enabled());
    auto all = parseGpuMetricsDevices("all");
    ASSERT_TRUE(all.ok());
    EXPECT_TRUE(all->all);
    auto list = parseGpuMetricsDevices("0,2,3");
    ASSERT_TRUE(list.ok());
    EXPECT_EQ(list->devices, (std::vector<int>{0, 2, 3}));
    for (const char* bad : {"", "x", "0,", ",1", "1,-2", "1;2", "0,1a"}) {
        auto r = parseGpuMetricsDevices(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error(), "--gpu-metrics-devices: '" + std::string(bad) +
                                 "' is not 'none', 'all' or a comma-separated list of GPU indices");
    }
}

TEST(GpuMetricsOptions, ParsesFrequency) {
    auto f = parseGpuMetricsFrequency("100");
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(*f, 100.0);
    EXPECT_TRUE(parseGpuMetricsFrequency("1").ok());
    EXPECT_TRUE(parseGpuMetricsFrequency("10000").ok());
    auto top = parseGpuMetricsFrequency("200000");  // nsys's maximum: accepted
    ASSERT_TRUE(top.ok());
    EXPECT_EQ(*top, 200000.0);
    for (const char* bad : {"0", "200001", "-5", "fast", "", "10Hz"}) {
        auto r = parseGpuMetricsFrequency(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error(), "--gpu-metrics-frequency: '" + std::string(bad) +
                                 "' is not a rate in Hz between 1 and 200000");
    }
}

TEST(NvmlSampler, MissingLibraryExplainsWhy) {
    GpuMetricsOptions o;
    o.all = true;
    o.library = "libdoes-not-exist-nvidia-ml.so.1";
    NvmlSampler s(o);
    Status st = s.start();
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().rfind(
                  "libdoes-not-exist-nvidia-ml.so.1 could not be loaded (no NVIDIA driver?): ", 0),
              0u)
        << st.error();
}

TEST(NvmlSampler, RealNvmlWhenPresentOrAClearReason) {
    // On a machine without a driver this must fail with the reason; with one it must sample.
    GpuMetricsOptions o;
    o.all = true;
    NvmlSampler s(o);
    Status st = s.start();
    if (!st.ok()) {
        EXPECT_NE(st.error().find("libnvidia-ml.so.1"), std::string::npos) << st.error();
        GTEST_SKIP() << "No NVML here: " << st.error();
    }
    s.stop();
    EXPECT_GT(s.seriesCount(), 0u);
    EXPECT_GT(s.sampleCount(), 0u);
}

TEST(NvmlSampler, SamplesEverySupportedMetricOfTheChosenDevices) {
    GpuMetricsOptions o;
    o.all = true;
    o.frequencyHz = 200;
    o.library = SIGHTLINE_FAKE_NVML;
    NvmlSampler s(o);
    Status st = s.start();
    ASSERT_TRUE(st.ok()) << st.error();
    // 9 metrics on GPU 0, 8 on GPU 1 (no power).
    EXPECT_EQ(s.seriesCount(), 17u);
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    s.stop();
    size_t n = s.sampleCount();
    EXPECT_GE(n, 17u * 5);  // >= 5 ticks of 5 ms in 120 ms, even on a loaded machine

    ReportBuilder b;
    ReportBuilderSink sink(b);
    Gpu cuda;  // the CUDA capture saw fake GPU 1 as CUDA device 0
    cuda.deviceId = 0;
    cuda.uuid = "GPU-00000001-0000-0000-0000-000000000000";
    s.addTo(sink, {cuda});
    auto r = b.finish();
    ASSERT_EQ(r->gpus.size(), 2u);
    std::map<std::string, const Gpu*> byUuid;
    for (const auto& g : r->gpus) byUuid[g.uuid] = &g;
    const Gpu* g1 = byUuid.at("GPU-00000001-0000-0000-0000-000000000000");
    EXPECT_EQ(g1->deviceId, 0);
    EXPECT_EQ(g1->name, "Fake GPU 1");
    EXPECT_EQ(g1->pciBusId, "00000000:02:00.0");
    EXPECT_EQ(g1->memoryBytes, int64_t(80) << 30);
    ASSERT_EQ(r->metricSeries.size(), 17u);
    EXPECT_EQ(r->diagnosticCount("gpu_metrics.unsupported"), 1);
    EXPECT_EQ(r->eventCount(EventKind::Metric), n);

    std::map<std::pair<std::string, int>, double> last;
    for (const auto& ms : r->metricSeries) {
        EXPECT_EQ(ms.source, "nvml");
        const Track* t = r->findTrack(TrackKey::forMetric(ms.seriesId));
        ASSERT_NE(t, nullptr) << ms.name;
        ASSERT_FALSE(t->empty());
        last[{ms.name, ms.deviceId}] = t->col<double>(cols::Metric::Value).back();
        for (size_t i = 1; i < t->size(); ++i) EXPECT_GT(t->start[i], t->start[i - 1]);
    }
    // Fake GPU 1 is CUDA device 0 (by UUID); fake GPU 0, unseen by CUDA, takes the free id 1.
    EXPECT_EQ(byUuid.at("GPU-00000000-0000-0000-0000-000000000000")->deviceId, 1);
    EXPECT_EQ(last.count({"Power", 0}), 0u);  // fake GPU 1 has no power reading
    EXPECT_EQ(last.at({"Power", 1}), 250.5);
    EXPECT_EQ(last.at({"GPU utilization", 0}), 41);
    EXPECT_EQ(last.at({"GPU utilization", 1}), 40);
    EXPECT_EQ(last.at({"Memory used", 0}), double(1ULL << 30));
    EXPECT_EQ(last.at({"SM clock", 0}), 1980);
    EXPECT_EQ(last.at({"Memory clock", 0}), 2619);
    EXPECT_EQ(last.at({"Temperature", 0}), 55);
    EXPECT_EQ(last.at({"PCIe TX", 0}), 1000 * 1024.0);
    EXPECT_EQ(last.at({"PCIe RX", 0}), 2000 * 1024.0);
    EXPECT_EQ(last.at({"Memory utilization", 0}), 20);

    // The samples stay: a second report (another capture range) gets those of its window.
    int64_t mid = r->tracksOfKind(EventKind::Metric)[0]->start[2];
    ReportBuilder b2;
    ReportBuilderSink sink2(b2);
    s.addTo(sink2, {}, mid, INT64_MAX);
    auto r2 = b2.finish();
    EXPECT_GT(r2->eventCount(EventKind::Metric), 0u);
    EXPECT_LT(r2->eventCount(EventKind::Metric), n);
    for (const Track* t : r2->tracksOfKind(EventKind::Metric)) EXPECT_GE(t->start[0], mid);
}

TEST(NvmlSampler, AGpuThatCannotBeOpenedLeavesTheOthersSampled) {
    setenv("FAKE_NVML_COUNT", "3", 1);
    GpuMetricsOptions o;
    o.all = true;
    o.frequencyHz = 1;
    o.library = SIGHTLINE_FAKE_NVML;
    NvmlSampler s(o);
    Status st = s.start();
    ASSERT_TRUE(st.ok()) << st.error();
    s.stop();
    EXPECT_EQ(s.seriesCount(), 17u);  // GPUs 0 and 1, as without the third

    GpuMetricsOptions only;
    only.devices = {2};
    only.library = SIGHTLINE_FAKE_NVML;
    NvmlSampler s2(only);
    Status st2 = s2.start();
    unsetenv("FAKE_NVML_COUNT");
    ASSERT_FALSE(st2.ok());
    EXPECT_EQ(st2.error(),
              "NVML cannot open any of the GPUs asked for (GPU 2: NVML cannot open it: "
              "Insufficient Permissions)");
}

TEST(NvmlSampler, ExplicitDeviceListIsCheckedAgainstWhatNvmlSees) {
    GpuMetricsOptions o;
    o.devices = {5};
    o.library = SIGHTLINE_FAKE_NVML;
    NvmlSampler s(o);
    Status st = s.start();
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error(), "--gpu-metrics-devices: GPU 5 does not exist (NVML sees 2)");

    GpuMetricsOptions one;
    one.devices = {1};
    one.library = SIGHTLINE_FAKE_NVML;
    one.frequencyHz = 1;
    NvmlSampler s1(one);
    ASSERT_TRUE(s1.start().ok());
    s1.stop();
    EXPECT_EQ(s1.seriesCount(), 8u);
    EXPECT_EQ(s1.sampleCount(), 8u);  // the first sample, taken at start
}

}  // namespace
}  // namespace sl::cuda
