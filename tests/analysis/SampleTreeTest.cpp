// SampleTree (model/analysis/SampleTree.h): bottom-up, top-down and flat aggregation of CPU
// samples over the hand-built report of tests/analysis-gui/SampleFixture.h, by time range and
// thread, with exact counts.
#include "model/analysis/SampleTree.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <tuple>

#include "tests/analysis-gui/SampleFixture.h"
#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#endif

namespace sl::analysis {
namespace {

// A tree as indented "name self/total" lines (children in display order), for exact checks.
std::string dump(const SampleTree& t, const std::vector<SampleNode>& nodes, uint32_t node = 0,
                 int depth = 0) {
    std::string out;
    if (node != 0)
        out += std::string(static_cast<size_t>(2 * (depth - 1)), ' ') +
               t.functions()[nodes[node].function].name + " " + std::to_string(nodes[node].self) +
               "/" + std::to_string(nodes[node].total) + "\n";
    for (uint32_t c : nodes[node].children) out += dump(t, nodes, c, depth + 1);
    return out;
}

class SampleTreeTest : public ::testing::Test {
protected:
    std::shared_ptr<const Report> report = test::makeSampleTreeReport();
};

TEST_F(SampleTreeTest, FlatCountsSelfAndTotalOverTheWholeReport) {
    const SampleTree t = SampleTree::compute(*report, {});
    EXPECT_FALSE(t.cancelled());
    EXPECT_EQ(t.sampleCount(), 9);
    EXPECT_EQ(t.stackCount(), 5u);
    EXPECT_EQ(dump(t, t.flat()),
              "main 0/9\n"
              "run 2/8\n"
              "compute 3/6\n"
              "helper 3/3\n"
              "libfoo.so+0x40 1/1\n");
    ASSERT_NE(t.flatNode("compute"), nullptr);
    EXPECT_EQ(t.flatNode("compute")->self, 3);
    EXPECT_EQ(t.flatNode("absent"), nullptr);
    // Functions carry their module's file name; unresolved frames are module+offset.
    const SampleFunction& compute = t.functions()[t.flatNode("compute")->function];
    EXPECT_EQ(compute.module, "libm.so");
    EXPECT_EQ(t.functionText(t.flatNode("compute")->function), "compute (libm.so)");
    EXPECT_EQ(t.functionText(t.flatNode("libfoo.so+0x40")->function), "libfoo.so+0x40");
}

TEST_F(SampleTreeTest, TopDownFollowsStacksFromTheOutermostFrame) {
    const SampleTree t = SampleTree::compute(*report, {});
    EXPECT_EQ(t.topDown()[0].total, 9);
    EXPECT_EQ(dump(t, t.topDown()),
              "main 0/9\n"
              "  run 1/8\n"
              "    compute 3/6\n"
              "      helper 3/3\n"
              "    run 1/1\n"
              "  libfoo.so+0x40 1/1\n");
}

TEST_F(SampleTreeTest, BottomUpStartsAtLeavesAndExpandsToCallers) {
    const SampleTree t = SampleTree::compute(*report, {});
    EXPECT_EQ(dump(t, t.bottomUp()),
              "compute 3/3\n"
              "  run 3/3\n"
              "    main 3/3\n"
              "helper 3/3\n"
              "  compute 3/3\n"
              "    run 3/3\n"
              "      main 3/3\n"
              "run 2/2\n"
              "  main 1/1\n"
              "  run 1/1\n"
              "    main 1/1\n"
              "libfoo.so+0x40 1/1\n"
              "  main 1/1\n");
}

TEST_F(SampleTreeTest, TimeRangeIsHalfOpenAndThreadsFilter) {
    SampleRequest req;
    req.t0 = 200;
    req.t1 = 400;  // 200 S1, 300 S2 (thread 10), 250 S2, 350 S2 (thread 11); 400 is out
    SampleTree t = SampleTree::compute(*report, req);
    EXPECT_EQ(t.sampleCount(), 4);
    EXPECT_EQ(dump(t, t.flat()),
              "compute 1/4\n"
              "main 0/4\n"
              "run 0/4\n"
              "helper 3/3\n");
    req.threads = {{1, 10}};
    t = SampleTree::compute(*report, req);
    EXPECT_EQ(t.sampleCount(), 2);
    EXPECT_EQ(t.flatNode("compute")->self, 1);
    EXPECT_EQ(t.flatNode("compute")->total, 2);
    EXPECT_EQ(t.flatNode("helper")->self, 1);
    req.threads = {{1, 99}};  // a thread without samples
    t = SampleTree::compute(*report, req);
    EXPECT_EQ(t.sampleCount(), 0);
    EXPECT_TRUE(t.flat()[0].children.empty());
    EXPECT_TRUE(t.topDown()[0].children.empty());
}

TEST_F(SampleTreeTest, StacksWithAFunctionAnywhereOrAsLeaf) {
    const SampleTree t = SampleTree::compute(*report, {});
    auto of = [&](const char* name, bool leafOnly) {
        return stacksWithFunction(*report, t.functions()[t.flatNode(name)->function], leafOnly);
    };
    // Stacks S1..S5 are ids 0..4.
    EXPECT_EQ(of("run", false), (std::vector<uint8_t>{1, 1, 1, 0, 1}));
    EXPECT_EQ(of("run", true), (std::vector<uint8_t>{0, 0, 1, 0, 1}));
    EXPECT_EQ(of("compute", false), (std::vector<uint8_t>{1, 1, 0, 0, 0}));
    EXPECT_EQ(of("main", true), (std::vector<uint8_t>{0, 0, 0, 0, 0}));
    EXPECT_EQ(of("libfoo.so+0x40", false), (std::vector<uint8_t>{0, 0, 0, 1, 0}));
}

TEST_F(SampleTreeTest, CancelStopsEarly) {
    std::atomic<bool> cancel{true};
    SampleRequest req;
    req.cancel = &cancel;
    EXPECT_TRUE(SampleTree::compute(*report, req).cancelled());
}

TEST(SampleTreeEdge, SamplesWithoutFramesAreTheNoCallStackPseudoFunction) {
    ReportBuilder b;
    const uint32_t f = b.frameId({b.intern("f"), b.intern("/bin/x"), 0});
    const uint32_t withFrame = b.stackId({f}), empty = b.stackId({});
    b.add(CpuSampleEvent{1, 2, 10, withFrame, b.intern("f"), 0});
    b.add(CpuSampleEvent{1, 2, 20, empty, 0, 0});
    b.add(CpuSampleEvent{1, 2, 30, empty, 0, 0});
    const auto r = b.finish();
    const SampleTree t = SampleTree::compute(*r, {});
    EXPECT_EQ(dump(t, t.flat()), "[no call stack] 2/2\nf 1/1\n");
    EXPECT_EQ(dump(t, t.topDown()), "[no call stack] 2/2\nf 1/1\n");
    EXPECT_EQ(dump(t, t.bottomUp()), "[no call stack] 2/2\nf 1/1\n");
    EXPECT_EQ(t.functions()[t.flatNode("[no call stack]")->function].module, "");
    EXPECT_EQ(stacksWithFunction(*r, t.functions()[t.flatNode("[no call stack]")->function]),
              (std::vector<uint8_t>{0, 1}));
}

TEST(SampleTreeEdge, ReportWithoutSamplesIsEmpty) {
    ReportBuilder b;
    b.add(NvtxMarkEvent{1, 2, 0, 5, b.intern("m")});
    const auto r = b.finish();
    const SampleTree t = SampleTree::compute(*r, {});
    EXPECT_EQ(t.sampleCount(), 0);
    EXPECT_EQ(t.flat().size(), 1u);
}

#ifdef SIGHTLINE_HAVE_IMPORT
// The nsys export of tests/data/import (see its NOTICE): 5,451 samples of MPI rank 0. Expected
// values are SQL counts over its COMPOSITE_EVENTS/SAMPLING_CALLCHAINS tables (self: rows of
// stackDepth 0 per symbol and module; total: distinct samples per symbol and module), the same
// as tests/analysis/SampleSumTest.cpp checks for the CLI's flat profile.
TEST(SampleTreeImported, NsysFixtureMatchesSqlCounts) {
    auto imported =
        importFile(std::string(SIGHTLINE_TEST_DATA) + "/import/pipit_saxpy_mpi_cuda.sqlite");
    ASSERT_TRUE(imported.ok()) << imported.error();
    const SampleTree t = SampleTree::compute(**imported, {});
    EXPECT_EQ(t.sampleCount(), 5451);
    const std::tuple<const char*, int64_t, int64_t> expected[] = {
        {"main", 2980, 3568},
        {"std::abs(double)", 492, 492},
        {"cxip_cq_progress", 240, 260},
        {"MPIR_Wait_impl", 233, 454},
        {"MPIDI_SHMI_progress", 167, 172}};
    for (const auto& [name, self, total] : expected) {
        const SampleNode* n = t.flatNode(name);
        ASSERT_NE(n, nullptr) << name;
        EXPECT_EQ(n->self, self) << name;
        EXPECT_EQ(n->total, total) << name;
    }
    // Invariants: the top-down roots and the bottom-up roots (leaves) each cover every sample
    // that has a stack; the self counts of the flat view add up to the same number.
    int64_t topDown = t.topDown()[0].self, bottomUp = t.bottomUp()[0].self, flatSelf = 0;
    for (uint32_t c : t.topDown()[0].children) topDown += t.topDown()[c].total;
    for (uint32_t c : t.bottomUp()[0].children) bottomUp += t.bottomUp()[c].total;
    for (uint32_t c : t.flat()[0].children) flatSelf += t.flat()[c].self;
    EXPECT_EQ(topDown, 5451);
    EXPECT_EQ(bottomUp, 5451);
    EXPECT_EQ(flatSelf + t.topDown()[0].self, 5451);
}
#endif

}  // namespace
}  // namespace sl::analysis
