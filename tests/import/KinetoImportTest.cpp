// PyTorch profiler (Kineto) traces from real runs: current and 2021 formats.
#include <gtest/gtest.h>

#include "ImportTestUtil.h"

namespace sl::test {
namespace {

TEST(KinetoImport, CurrentFormatWithGpuUserAnnotations) {
    auto r = importOk(fixture("hta_gpu_user_annotation.json.gz"));
    EXPECT_EQ(r->session.source, "kineto-json");
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "cpu_op"), 643u);
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "user_annotation"), 10u);
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "gpu_user_annotation"), 10u);
    EXPECT_EQ(r->eventCount(EventKind::CudaApi), 180u);
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 130u);
    EXPECT_EQ(r->eventCount(EventKind::Memcpy), 10u);
    // Every kernel and copy has its runtime call in the source: all resolve.
    EXPECT_EQ(resolvedCount(*r, EventKind::Kernel), 130);
    EXPECT_EQ(resolvedCount(*r, EventKind::Memcpy), 10);
    // GPU work goes to the traced process, on (device 0, stream 7).
    auto kernels = r->tracksOfKind(EventKind::Kernel);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0]->key.pid, 2543932);
    EXPECT_EQ(kernels[0]->key.device, 0);
    EXPECT_EQ(kernels[0]->key.stream, 7u);
    EXPECT_EQ(kernels[0]->key.context, 1u);
    // Two GPUs from deviceProperties.
    ASSERT_EQ(r->gpus.size(), 2u);
    EXPECT_EQ(r->gpus[0].name, "Quadro GP100");
    EXPECT_EQ(r->gpus[0].computeMajor, 6);
    // Memcpy direction and memory kinds come from the event name.
    const Track* m = r->tracksOfKind(EventKind::Memcpy)[0];
    EXPECT_EQ(m->intAt(cols::Memcpy::CopyKind, 0), int64_t(CopyKind::HtoD));
    EXPECT_EQ(m->intAt(cols::Memcpy::SrcKind, 0), int64_t(MemoryKind::Pageable));
    EXPECT_EQ(m->intAt(cols::Memcpy::DstKind, 0), int64_t(MemoryKind::Device));
    uint64_t bytes = 0;
    for (size_t i = 0; i < m->size(); ++i)
        bytes += static_cast<uint64_t>(m->intAt(cols::Memcpy::Bytes, i));
    EXPECT_EQ(bytes, 60u);
    // gpu_user_annotation ranges sit on their own row of the traced process.
    bool found = false;
    for (const auto& t : r->threads)
        if (t.pid == 2543932 && t.name == "GPU 0 stream 7 (gpu_user_annotation)") found = true;
    EXPECT_TRUE(found);
    // Integer microseconds convert exactly; cpu_op carries its External id as payload.
    auto names = nameCounts(*r, EventKind::NvtxRange);
    EXPECT_EQ(names["Optimizer.step#SGD.step"], 10);  // 5 CPU annotations and their 5 GPU spans
    EXPECT_EQ(r->tMin(), 1672876799188591000LL);
    EXPECT_TRUE(r->diagnostics.empty());
}

TEST(KinetoImport, Legacy2021Format) {
    auto r = importOk(fixture("kineto_resnet50_legacy_2021.json.gz"));
    EXPECT_EQ(r->session.source, "kineto-json");
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "Operator"), 23646u);
    EXPECT_EQ(r->eventCount(EventKind::CudaApi), 11923u);
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 8772u);
    EXPECT_EQ(r->eventCount(EventKind::Memset), 312u);
    EXPECT_EQ(r->eventCount(EventKind::Memcpy), 12u);
    EXPECT_EQ(resolvedCount(*r, EventKind::Kernel), 8772);
    EXPECT_EQ(resolvedCount(*r, EventKind::Memset), 312);
    EXPECT_EQ(resolvedCount(*r, EventKind::Memcpy), 12);
    // "stream 7" rows and string tids ("25738") map to numbers.
    auto kernels = r->tracksOfKind(EventKind::Kernel);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0]->key.pid, 25738);
    EXPECT_EQ(kernels[0]->key.stream, 7u);
    ASSERT_NE(r->findThread(25738, 25738), nullptr);
    uint64_t memsetBytes = 0;
    for (const Track* t : r->tracksOfKind(EventKind::Memset))
        for (size_t i = 0; i < t->size(); ++i)
            memsetBytes += static_cast<uint64_t>(t->intAt(cols::Memset::Bytes, i));
    EXPECT_EQ(memsetBytes, 366475920u);
    // The earliest Operator of thread 25738 starts at 1623142623460072 us.
    const Track* ops = nullptr;
    for (const Track* t : r->tracksOfKind(EventKind::NvtxRange))
        if (t->key.tid == 25738 && r->domainName(t->key.pid, t->key.domain) == "Operator") ops = t;
    ASSERT_NE(ops, nullptr);
    EXPECT_EQ(ops->tMin, 1623142623460072000LL);
    // profile_memory instants become metric series (CPU and GPU 0), in bytes.
    uint64_t samples = 0;
    for (const Track* t : r->tracksOfKind(EventKind::Metric)) samples += t->size();
    EXPECT_EQ(samples, 12838u);
    ASSERT_EQ(r->metricSeries.size(), 2u);
    std::set<std::pair<std::string, int32_t>> series;
    for (const auto& s : r->metricSeries) {
        series.emplace(s.name, s.deviceId);
        EXPECT_EQ(s.unit, "bytes");
        EXPECT_EQ(s.pid, 25738);
    }
    EXPECT_EQ(series,
              (std::set<std::pair<std::string, int32_t>>{{"PyTorch memory allocated (CPU)", -1},
                                                         {"PyTorch memory allocated", 0}}));
    EXPECT_TRUE(r->diagnostics.empty());
}

TEST(KinetoImport, ComparePairCounts) {
    auto base = importOk(fixture("hta_compare_base.json.gz"));
    auto test = importOk(fixture("hta_compare_test.json.gz"));
    EXPECT_EQ(base->eventCount(EventKind::Kernel), 6u);
    EXPECT_EQ(test->eventCount(EventKind::Kernel), 5u);
    EXPECT_EQ(domainEvents(*base, EventKind::NvtxRange, "cpu_op"), 6u);
    EXPECT_EQ(domainEvents(*test, EventKind::NvtxRange, "cpu_op"), 9u);
    EXPECT_EQ(base->eventCount(EventKind::Memset), 6u);
    // Only 2 of base's kernels have their runtime call in the (trimmed) trace: the other 16 GPU
    // events are counted in a diagnostic, not matched to invented calls.
    EXPECT_EQ(resolvedCount(*base, EventKind::Kernel), 2);
    EXPECT_EQ(base->diagnosticCount("kineto.gpu_events_without_api_call"), 16);
    EXPECT_EQ(resolvedCount(*test, EventKind::Kernel), 1);
    EXPECT_EQ(base->tracksOfKind(EventKind::Memcpy).size(), 2u);  // streams 7 and 16
}

TEST(KinetoImport, CancelStopsTheImport) {
    ImportOptions o;
    o.progress = [](double f) { return f < 0.15; };
    auto r = importFile(fixture("kineto_resnet50_legacy_2021.json.gz"), o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "cancelled");
}

}  // namespace
}  // namespace sl::test
