#include "model/analysis/NvtxGpuProjection.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/analysis/Fixtures.h"

namespace sl::analysis {
namespace {

std::string nameOf(const Report& r, const NvtxRangeTree& tree, uint32_t node) {
    EventRef ref = tree.nodes()[node].ref;
    return std::string(r.str(r.tracks[ref.track].name[ref.index]));
}

TEST(NvtxRangeTree, NestsAcrossDomainsAndSkipsCrossThreadRanges) {
    auto r = test::makeProjectionReport();
    NvtxRangeTree tree(*r);
    // outer, inner1, load, inner2 on thread 11; idle on thread 12; "crossing" is left out.
    ASSERT_EQ(tree.nodes().size(), 5u);
    EXPECT_EQ(nameOf(*r, tree, 0), "outer");
    EXPECT_EQ(nameOf(*r, tree, 1), "inner1");
    EXPECT_EQ(nameOf(*r, tree, 2), "load");
    EXPECT_EQ(nameOf(*r, tree, 3), "inner2");
    EXPECT_EQ(nameOf(*r, tree, 4), "idle");
    EXPECT_EQ(tree.nodes()[0].level, 0u);
    EXPECT_EQ(tree.nodes()[0].childCount, 2u);
    EXPECT_EQ(tree.nodes()[1].parent, 0u);
    EXPECT_EQ(tree.nodes()[2].parent, 1u);  // "load" (domain 1) sits inside "inner1"
    EXPECT_EQ(tree.nodes()[2].level, 2u);
    EXPECT_EQ(tree.nodes()[3].parent, 0u);
    EXPECT_EQ(tree.nodes()[4].parent, NvtxRangeTree::kNone);
    EXPECT_EQ(tree.rangeStack(2), ":1:2:3");
    EXPECT_EQ(tree.rangeStack(4), ":5");
}

TEST(NvtxGpuProjection, ProjectsByEnclosedLaunchCalls) {
    auto r = test::makeProjectionReport();
    CorrelationIndex ci(*r);
    NvtxRangeTree tree(*r);
    NvtxGpuProjection proj(*r, ci, tree);
    const auto& ranges = proj.ranges();
    // outer (c1, c2, c3), inner1 (c1, c2), load (c1, c2); inner2 has no call fully inside
    // it (c3 ends after it); idle has none on its thread.
    ASSERT_EQ(ranges.size(), 3u);
    // Order: projected start, then longer first.
    EXPECT_EQ(nameOf(*r, tree, ranges[0].node), "outer");
    EXPECT_EQ(ranges[0].projStart, 500);
    EXPECT_EQ(ranges[0].projEnd, 1300);
    EXPECT_EQ(ranges[0].gpuOps, 3u);
    EXPECT_EQ(ranges[0].projectedChildren, 1u);  // inner1 only
    EXPECT_EQ(ranges[0].device, 0);  // c1's kernel, the first enclosed launch's operation
    EXPECT_EQ(ranges[1].projStart, 500);
    EXPECT_EQ(ranges[1].projEnd, 700);
    EXPECT_EQ(ranges[1].gpuOps, 2u);
    EXPECT_EQ(ranges[2].projStart, 500);
    EXPECT_EQ(ranges[2].projEnd, 700);
    const std::string second = nameOf(*r, tree, ranges[1].node), third = nameOf(*r, tree, ranges[2].node);
    EXPECT_EQ(second, "inner1");  // equal projection: stable tree order
    EXPECT_EQ(third, "load");

    EventRef inner2 = tree.nodes()[3].ref;
    EXPECT_EQ(proj.find(inner2), nullptr);
    const ProjectedRange* outer = proj.find(tree.nodes()[0].ref);
    ASSERT_NE(outer, nullptr);
    EXPECT_EQ(outer->projDuration(), 800);
}

TEST(NvtxGpuProjection, NoApiTrackMeansNoProjection) {
    ReportBuilder b;
    NvtxRangeEvent e;
    e.pid = 1; e.tid = 1; e.start = 0; e.end = 100; e.message = b.intern("r");
    b.add(e);
    auto r = b.finish();
    CorrelationIndex ci(*r);
    NvtxRangeTree tree(*r);
    NvtxGpuProjection proj(*r, ci, tree);
    EXPECT_EQ(tree.nodes().size(), 1u);
    EXPECT_TRUE(proj.ranges().empty());
}

}  // namespace
}  // namespace sl::analysis
