// Event details (every field of a kernel, a copy, an API call, an NVTX range) and the
// correlation highlights of a selection.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/analysis/EventQuery.h"
#include "model/analysis/EventQueryDetails.h"
#include "model/analysis/SelectionCorrelation.h"
#include "tests/analysis-gui/AnalysisFixture.h"

namespace sl::analysis {
namespace {

// The event of `kind` that starts at `start` (the fixture's starts are unique per kind).
EventRef find(const Report& r, EventKind kind, int64_t start) {
    for (uint32_t t = 0; t < r.tracks.size(); ++t) {
        if (r.tracks[t].key.kind != kind) continue;
        for (uint32_t i = 0; i < r.tracks[t].size(); ++i)
            if (r.tracks[t].start[i] == start) return {t, i};
    }
    return {};
}

TEST(EventDetails, KernelHasLaunchConfigurationAndLauncher) {
    auto r = test::makeAnalysisReport();
    CorrelationIndex idx(*r);
    const auto f = eventDetails(*r, find(*r, EventKind::Kernel, 500), &idx);
    EXPECT_EQ(detailValue(f, "Name"), "kB");
    EXPECT_EQ(detailValue(f, "Kind"), "CUDA kernels");
    EXPECT_EQ(detailValue(f, "Duration"), "200 ns (200 ns)");
    EXPECT_EQ(detailValue(f, "Grid"), "8 x 2 x 1");
    EXPECT_EQ(detailValue(f, "Block"), "128 x 1 x 1");
    EXPECT_EQ(detailValue(f, "Registers per thread"), "40");
    EXPECT_EQ(detailValue(f, "Static shared memory"), "1.00 KiB (1024 B)");
    EXPECT_EQ(detailValue(f, "Device"), "0 (Test GPU A)");
    EXPECT_EQ(detailValue(f, "Stream"), "8");
    EXPECT_EQ(detailValue(f, "Context"), "1");
    EXPECT_EQ(detailValue(f, "Correlation ID"), "4");
    EXPECT_EQ(detailValue(f, "Mangled name"), "_Z2kBv");
    EXPECT_EQ(detailValue(f, "Launched by"), "cudaLaunchKernel on Thread 2 (main) at 400 ns");
    EXPECT_EQ(detailValue(f, "Launching thread"), r->threadTitle(1, 2));
}

TEST(EventDetails, CopyApiAndRange) {
    auto r = test::makeAnalysisReport();
    CorrelationIndex idx(*r);
    const auto m = eventDetails(*r, find(*r, EventKind::Memcpy, 250), &idx);
    EXPECT_EQ(detailValue(m, "Name"), "[CUDA memcpy Host-to-Device]");
    EXPECT_EQ(detailValue(m, "Size"), "1000 B");  // in bytes already: said once
    EXPECT_EQ(detailValue(m, "Copy kind"), "Host-to-Device");
    EXPECT_EQ(detailValue(m, "Source memory"), "Pinned");
    EXPECT_EQ(detailValue(m, "Asynchronous"), "yes");
    EXPECT_EQ(detailValue(m, "Throughput"), "10.000 GB/s");
    const auto a = eventDetails(*r, find(*r, EventKind::CudaApi, 100), &idx);
    EXPECT_EQ(detailValue(a, "Name"), "cudaLaunchKernel");
    EXPECT_EQ(detailValue(a, "Callback ID"), "211");
    EXPECT_EQ(detailValue(a, "Launched GPU operations"), "1");
    EXPECT_EQ(detailValue(a, "Thread"), "Thread 2 (main)");
    const auto n = eventDetails(*r, find(*r, EventKind::NvtxRange, 90), &idx);
    EXPECT_EQ(detailValue(n, "Name"), "step");
    EXPECT_EQ(detailValue(n, "Range type"), "PushPop");
    EXPECT_EQ(detailValue(n, "Payload"), "none");
    EXPECT_TRUE(eventDetails(*r, EventRef{}, &idx).empty());
}

// The tooltip form is the full form's key fields with the same values, in the same order: the
// timeline's tooltip and the details panel cannot disagree.
TEST(EventDetails, TooltipFormIsASubsetOfTheFullFormWithTheSameValues) {
    auto r = test::makeAnalysisReport();
    CorrelationIndex idx(*r);
    for (const EventRef e : {find(*r, EventKind::Kernel, 500), find(*r, EventKind::Memcpy, 250),
                             find(*r, EventKind::CudaApi, 100), find(*r, EventKind::NvtxRange, 90)}) {
        ASSERT_TRUE(e.valid());
        const auto full = eventDetails(*r, e, &idx);
        const auto tip = eventDetails(*r, e, &idx, DetailForm::Tooltip);
        // The same through the track (the timeline's hit gives a track and an index).
        EXPECT_EQ(eventDetails(*r, r->tracks[e.track], e.index, DetailForm::Tooltip), tip);
        ASSERT_GE(tip.size(), 4u);
        EXPECT_LT(tip.size(), full.size());
        auto at = full.begin();
        for (const EventField& f : tip) {
            at = std::find(at, full.end(), f);
            EXPECT_NE(at, full.end()) << f.field << ": " << f.value;
        }
        // The panel's extras: the row, the owner, what the event is correlated with.
        EXPECT_EQ(detailValue(tip, "Row"), "");
        EXPECT_EQ(detailValue(tip, "Process"), "");
        EXPECT_EQ(detailValue(tip, "Launched by"), "");
        EXPECT_EQ(detailValue(tip, "Name"), detailValue(full, "Name"));
        EXPECT_EQ(detailValue(tip, "Start"), detailValue(full, "Start"));
    }
    const auto kernel = eventDetails(*r, find(*r, EventKind::Kernel, 500), &idx, DetailForm::Tooltip);
    EXPECT_EQ(detailValue(kernel, "Grid"), "8 x 2 x 1");
    EXPECT_EQ(detailValue(kernel, "Duration"), "200 ns (200 ns)");
    EXPECT_EQ(detailValue(kernel, "Mangled name"), "");  // the panel's
}

TEST(SelectionCorrelation, ApiCallToKernelAndBack) {
    auto r = test::makeAnalysisReport();
    CorrelationIndex idx(*r);
    const EventRef api = find(*r, EventKind::CudaApi, 400), kB = find(*r, EventKind::Kernel, 500);
    const CorrelatedEvents down = correlatedEvents(*r, idx, api);
    ASSERT_EQ(down.gpuOps.size(), 1u);
    EXPECT_EQ(down.gpuOps[0], kB);
    EXPECT_TRUE(down.apiCalls.empty());
    ASSERT_EQ(down.links.size(), 1u);
    EXPECT_EQ(down.links[0], std::make_pair(api, kB));
    const CorrelatedEvents up = correlatedEvents(*r, idx, kB);
    ASSERT_EQ(up.apiCalls.size(), 1u);
    EXPECT_EQ(up.apiCalls[0], api);
    EXPECT_TRUE(up.gpuOps.empty());
    ASSERT_EQ(up.links.size(), 1u);
}

TEST(SelectionCorrelation, NvtxRangeHighlightsCallsAndGpuWork) {
    auto r = test::makeAnalysisReport();
    CorrelationIndex idx(*r);
    const CorrelatedEvents c = correlatedEvents(*r, idx, find(*r, EventKind::NvtxRange, 90));
    ASSERT_EQ(c.apiCalls.size(), 3u);  // c1, c2, c3 lie in [90,180]
    ASSERT_EQ(c.gpuOps.size(), 3u);
    EXPECT_EQ(c.links.size(), 3u);
    std::vector<int64_t> gpuStarts;
    for (const auto& e : c.gpuOps) gpuStarts.push_back(r->tracks[e.track].start[e.index]);
    std::sort(gpuStarts.begin(), gpuStarts.end());
    EXPECT_EQ(gpuStarts, (std::vector<int64_t>{200, 250, 300}));
    const CorrelatedEvents c2 = correlatedEvents(*r, idx, find(*r, EventKind::NvtxRange, 390));
    EXPECT_EQ(c2.apiCalls.size(), 2u);
    EXPECT_EQ(c2.gpuOps.size(), 2u);
    const CorrelatedEvents limited =
        correlatedEvents(*r, idx, find(*r, EventKind::NvtxRange, 90), 1);
    EXPECT_TRUE(limited.truncated);
    EXPECT_EQ(limited.apiCalls.size(), 1u);
}

}  // namespace
}  // namespace sl::analysis
