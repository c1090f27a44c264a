// Selection statistics on the hand-built report (tests/analysis-gui/AnalysisFixture.h); every
// expected number is worked out in the comments from the fixture's times.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/analysis/SelectionStats.h"
#include "model/gen/SyntheticGenerator.h"
#include "tests/analysis-gui/AnalysisFixture.h"

namespace sl::analysis {
namespace {

const SelectionGroup* findGroup(const Report& r, const SelectionStats& st, EventKind kind, uint32_t stream,
                                const std::string& name) {
    for (const auto& g : st.groups) {
        const Track& t = r.tracks[g.track];
        if (t.key.kind == kind && t.key.stream == stream && g.name == name) return &g;
    }
    return nullptr;
}

const Track* kernelTrack(const Report& r, uint32_t stream) {
    for (const auto& t : r.tracks)
        if (t.key.kind == EventKind::Kernel && t.key.stream == stream) return &t;
    return nullptr;
}

TEST(SelectionStats, KnownNumbersForRange250To650) {
    auto r = test::makeAnalysisReport();
    const SelectionStats st = computeSelectionStats(*r, {250, 650});
    ASSERT_FALSE(st.cancelled);
    // Stream 7 kernels: kA [200,300] -> 50 and kA [300,450] -> 150 inside the range.
    const SelectionGroup* a7 = findGroup(*r, st, EventKind::Kernel, 7, "kA");
    ASSERT_NE(a7, nullptr);
    EXPECT_EQ(a7->count, 2);
    EXPECT_EQ(a7->total, 200);
    EXPECT_EQ(a7->min, 50);
    EXPECT_EQ(a7->max, 150);
    EXPECT_DOUBLE_EQ(a7->average(), 100.0);
    EXPECT_DOUBLE_EQ(a7->share, 0.5);
    // Stream 8: kB [500,700] -> 150.
    const SelectionGroup* b8 = findGroup(*r, st, EventKind::Kernel, 8, "kB");
    ASSERT_NE(b8, nullptr);
    EXPECT_EQ(b8->count, 1);
    EXPECT_EQ(b8->total, 150);
    // GPU 1 stream 9: kA [0,1000] covers the whole range.
    const SelectionGroup* a9 = findGroup(*r, st, EventKind::Kernel, 9, "kA");
    ASSERT_NE(a9, nullptr);
    EXPECT_EQ(a9->total, 400);
    EXPECT_DOUBLE_EQ(a9->share, 1.0);
    // API calls [400,420] and [430,440]; NVTX step2 [390,445] lies inside: 55.
    const SelectionGroup* launch = findGroup(*r, st, EventKind::CudaApi, 0, "cudaLaunchKernel");
    ASSERT_NE(launch, nullptr);
    EXPECT_EQ(launch->count, 1);
    EXPECT_EQ(launch->total, 20);
    const SelectionGroup* copy = findGroup(*r, st, EventKind::CudaApi, 0, "cudaMemcpyAsync");
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(copy->total, 10);
    const SelectionGroup* step2 = findGroup(*r, st, EventKind::NvtxRange, 0, "step2");
    ASSERT_NE(step2, nullptr);
    EXPECT_EQ(step2->total, 55);
    EXPECT_EQ(findGroup(*r, st, EventKind::NvtxRange, 0, "step"), nullptr);  // [90,180] is outside
    // Memcpy rows are named like nsys's operations.
    const SelectionGroup* h2d = findGroup(*r, st, EventKind::Memcpy, 8, "[CUDA memcpy Host-to-Device]");
    ASSERT_NE(h2d, nullptr);
    EXPECT_EQ(h2d->total, 100);
    EXPECT_EQ(h2d->bytes, 1000u);
    // 4 kernel groups... total events: kernels 4 (kA s7 x2, kB, kA s9), memcpy 2, API 2, NVTX 1.
    EXPECT_EQ(st.eventCount(), 9u);
}

TEST(SelectionStats, GpuBusyIsTheUnionPerStreamAndDevice) {
    auto r = test::makeAnalysisReport();
    const SelectionStats st = computeSelectionStats(*r, {250, 650});
    ASSERT_EQ(st.streams.size(), 3u);
    // Sorted by device, then stream. Stream 7: [250,450] u [600,650] = 250 of 400.
    EXPECT_EQ(st.streams[0].stream, 7u);
    EXPECT_EQ(st.streams[0].busy, 250);
    EXPECT_DOUBLE_EQ(st.streams[0].share, 0.625);
    // Stream 8: memcpy [250,350] + kB [500,650] = 250.
    EXPECT_EQ(st.streams[1].stream, 8u);
    EXPECT_EQ(st.streams[1].busy, 250);
    EXPECT_EQ(st.streams[2].device, 1);
    EXPECT_EQ(st.streams[2].busy, 400);
    ASSERT_EQ(st.devices.size(), 2u);
    // GPU 0: [250,450] u [500,650] = 350 (the copy on stream 8 overlaps stream 7's kernels).
    EXPECT_EQ(st.devices[0].device, 0);
    EXPECT_EQ(st.devices[0].busy, 350);
    EXPECT_DOUBLE_EQ(st.devices[0].share, 0.875);
    EXPECT_EQ(st.devices[1].busy, 400);
    EXPECT_DOUBLE_EQ(st.devices[1].share, 1.0);
}

TEST(SelectionStats, CopiesByKindWithBandwidth) {
    auto r = test::makeAnalysisReport();
    const SelectionStats st = computeSelectionStats(*r, {250, 650});
    ASSERT_EQ(st.copies.size(), 2u);
    EXPECT_EQ(st.copies[0].label, "Host-to-Device");
    EXPECT_EQ(st.copies[0].count, 1);
    EXPECT_EQ(st.copies[0].bytes, 1000u);
    EXPECT_EQ(st.copies[0].duration, 100);
    EXPECT_DOUBLE_EQ(st.copies[0].bytesPerSecond(), 1e10);  // 1000 B in 100 ns
    EXPECT_EQ(st.copies[1].label, "Device-to-Host");
    EXPECT_EQ(st.copies[1].bytes, 2000u);
    EXPECT_DOUBLE_EQ(st.copies[1].bytesPerSecond(), 4e10);  // 2000 B in 50 ns (full duration)
}

TEST(SelectionStats, EventEndingAtRangeStartIsOutside) {
    auto r = test::makeAnalysisReport();
    const SelectionStats st = computeSelectionStats(*r, {300, 400});
    const SelectionGroup* a7 = findGroup(*r, st, EventKind::Kernel, 7, "kA");
    ASSERT_NE(a7, nullptr);
    EXPECT_EQ(a7->count, 1);  // [200,300] touches 300 only
    EXPECT_EQ(a7->total, 100);
}

TEST(SelectionStats, SelectedRowsOnly) {
    auto r = test::makeAnalysisReport();
    const Track* t7 = kernelTrack(*r, 7);
    ASSERT_NE(t7, nullptr);
    SelectionRequest req{250, 650};
    req.tracks = {static_cast<uint32_t>(t7 - r->tracks.data())};
    const SelectionStats st = computeSelectionStats(*r, req);
    ASSERT_EQ(st.groups.size(), 1u);
    EXPECT_EQ(st.groups[0].total, 200);
    ASSERT_EQ(st.streams.size(), 1u);
    EXPECT_EQ(st.streams[0].busy, 200);  // kernels only: [250,450]
    ASSERT_EQ(st.devices.size(), 1u);
    EXPECT_EQ(st.devices[0].busy, 200);
    EXPECT_TRUE(st.copies.empty());
}

TEST(SelectionStats, EmptyAndCancelled) {
    auto r = test::makeAnalysisReport();
    EXPECT_TRUE(computeSelectionStats(*r, {500, 500}).groups.empty());
    EXPECT_TRUE(computeSelectionStats(*r, {5000, 6000}).groups.empty());
    std::atomic<bool> cancel{true};
    SelectionRequest req{0, 1000};
    req.cancel = &cancel;
    const SelectionStats st = computeSelectionStats(*r, req);
    EXPECT_TRUE(st.cancelled);
    EXPECT_TRUE(st.groups.empty());
    // A report big enough to cut devices into time slices: every task is skipped.
    GeneratorOptions o;
    o.events = 300'000;
    auto big = generateReport(o);
    SelectionRequest all{big->tMin(), big->tMax() + 1};
    all.cancel = &cancel;
    all.threads = 2;
    const SelectionStats bs = computeSelectionStats(*big, all);
    EXPECT_TRUE(bs.cancelled);
    EXPECT_TRUE(bs.devices.empty());
}

TEST(SelectionStats, TsvHasThreeTables) {
    auto r = test::makeAnalysisReport();
    const SelectionStats st = computeSelectionStats(*r, {250, 650});
    const std::string tsv = selectionStatsTsv(*r, st);
    EXPECT_EQ(tsv.rfind("Row\tName\tCount\tTotal (ns)\tAverage (ns)\tMin (ns)\tMax (ns)\tShare (%)\n", 0), 0u);
    EXPECT_NE(tsv.find("\tkA\t2\t200\t100.0\t50\t150\t50.00\n"), std::string::npos);
    EXPECT_NE(tsv.find("0\tall\tall\tall\t350\t87.50\n"), std::string::npos);
    EXPECT_NE(tsv.find("Host-to-Device\t1\t1000\t100\t10.000\n"), std::string::npos);
    EXPECT_NE(tsv.find("Device-to-Host\t1\t2000\t50\t40.000\n"), std::string::npos);
}

TEST(SelectionStats, ParallelMatchesSerialOnGeneratedReport) {
    GeneratorOptions o;
    o.events = 200'000;
    auto r = generateReport(o);
    const int64_t t0 = r->tMin() + (r->tMax() - r->tMin()) / 3, t1 = r->tMax() - (r->tMax() - r->tMin()) / 4;
    SelectionRequest one{t0, t1};
    one.threads = 1;
    SelectionRequest many{t0, t1};
    many.threads = 4;
    const SelectionStats a = computeSelectionStats(*r, one), b = computeSelectionStats(*r, many);
    ASSERT_EQ(a.groups.size(), b.groups.size());
    ASSERT_GT(a.groups.size(), 10u);
    for (size_t i = 0; i < a.groups.size(); ++i) {
        EXPECT_EQ(a.groups[i].track, b.groups[i].track);
        EXPECT_EQ(a.groups[i].name, b.groups[i].name);
        EXPECT_EQ(a.groups[i].total, b.groups[i].total);
    }
    ASSERT_EQ(a.devices.size(), 2u);
    EXPECT_EQ(a.devices[0].busy, b.devices[0].busy);
    // Brute force: device 0 busy = union of all its GPU intervals, by a sorted sweep.
    std::vector<std::pair<int64_t, int64_t>> iv;
    for (const auto& t : r->tracks) {
        if (t.key.device != 0) continue;
        if (t.key.kind != EventKind::Kernel && t.key.kind != EventKind::Memcpy && t.key.kind != EventKind::Memset &&
            t.key.kind != EventKind::GraphTrace)
            continue;
        for (size_t i = 0; i < t.size(); ++i) {
            const int64_t s = std::max(t.start[i], t0), e = std::min(t.endAt(i), t1);
            if (e > s) iv.emplace_back(s, e);
        }
    }
    std::sort(iv.begin(), iv.end());
    int64_t busy = 0, cs = 0, ce = INT64_MIN;
    for (auto [s, e] : iv) {
        if (s > ce) {
            if (ce != INT64_MIN) busy += ce - cs;
            cs = s;
            ce = e;
        } else {
            ce = std::max(ce, e);
        }
    }
    if (ce != INT64_MIN) busy += ce - cs;
    EXPECT_EQ(a.devices[0].busy, busy);
}

}  // namespace
}  // namespace sl::analysis
