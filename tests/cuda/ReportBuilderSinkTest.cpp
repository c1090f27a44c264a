#include <gtest/gtest.h>

#include "capture/cupti/ReportBuilderSink.h"

namespace sl::cuda {
namespace {

TEST(ReportBuilderSink, MetadataForTheSameKeyIsMerged) {
    ReportBuilder b;
    ReportBuilderSink s(b);
    Gpu a;
    a.deviceId = 0;
    a.name = "H200";
    a.smCount = 132;
    s.addGpu(a);
    Gpu n;  // NVML knows the bus id but not the SM count
    n.deviceId = 0;
    n.pciBusId = "0000:01:00.0";
    s.addGpu(n);
    s.addStream(CudaStream{1, -1, 1, 13, 0, 0, false, ""});
    s.addStream(CudaStream{1, 0, 1, 13, -2, 2, false, "copy"});
    s.addContext(CudaContext{1, 0, 1, ""});
    s.addContext(CudaContext{1, 0, 1, "main"});
    auto r = b.finish();
    ASSERT_EQ(r->gpus.size(), 1u);
    EXPECT_EQ(r->gpus[0].name, "H200");
    EXPECT_EQ(r->gpus[0].smCount, 132);
    EXPECT_EQ(r->gpus[0].pciBusId, "0000:01:00.0");
    ASSERT_EQ(r->streams.size(), 1u);
    EXPECT_EQ(r->streams[0].deviceId, 0);
    EXPECT_EQ(r->streams[0].priority, -2);
    EXPECT_EQ(r->streams[0].name, "copy");
    ASSERT_EQ(r->contexts.size(), 1u);
    EXPECT_EQ(r->contexts[0].name, "main");
}

TEST(ReportBuilderSink, SeriesIdsOfProducersDoNotClash) {
    ReportBuilder b;
    ReportBuilderSink p1(b), p2(b);
    p1.addSeries(MetricSeries{1, "GPU utilization", "%", "nvml", 0, 0});
    p2.addSeries(MetricSeries{1, "CUDA memory pool 0x1 size", "bytes", "cupti", 0, 5});
    p1.add(MetricSample{1, 10, 50});
    p2.add(MetricSample{1, 10, 4096});
    p2.add(MetricSample{7, 10, 1});  // unknown series
    EXPECT_EQ(p1.seriesId(1), 1u);
    EXPECT_EQ(p2.seriesId(1), 2u);
    auto r = b.finish();
    ASSERT_EQ(r->metricSeries.size(), 2u);
    const Track* t = r->findTrack(TrackKey::forMetric(2));
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->col<double>(cols::Metric::Value)[0], 4096);
    EXPECT_EQ(r->diagnosticCount("cuda.samples_without_series"), 1);
}

}  // namespace
}  // namespace sl::cuda
