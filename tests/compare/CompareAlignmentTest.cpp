#include "viewer/compare/CompareAlignment.h"

#include <gtest/gtest.h>

#include "tests/compare/CompareFixture.h"

namespace sl::viewer {
namespace {

using analysis::DiffCategory;

// The offset, or -1 (which no test expects) with the error printed.
int64_t offsetOf(const Report& r, const std::string& name, int n) {
    auto a = alignmentOffset(r, name, n);
    if (!a.ok()) {
        ADD_FAILURE() << a.error();
        return -1;
    }
    return a.value();
}

TEST(CompareAlignment, SessionStartWhenNoRangeIsChosen) {
    auto b = test::makeBaselineReport();
    auto c = test::makeComparisonReport();
    auto a = alignmentOffset(*b, "", 1);
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(*a, 1000);
    auto z = alignmentOffset(*c, "", 7);  // n does not matter for the session start
    ASSERT_TRUE(z.ok()) << z.error();
    EXPECT_EQ(*z, 5000);
}

TEST(CompareAlignment, NthInstanceInStartOrder) {
    auto b = test::makeBaselineReport();
    auto c = test::makeComparisonReport();
    EXPECT_EQ(offsetOf(*b, "step", 1), 1100);
    EXPECT_EQ(offsetOf(*b, "step", 2), 1400);
    EXPECT_EQ(offsetOf(*b, "step", 3), 1700);
    EXPECT_EQ(offsetOf(*c, "step", 1), 5200);
    EXPECT_EQ(offsetOf(*c, "step", 2), 5600);
    EXPECT_EQ(offsetOf(*b, "warmup", 1), 1010);
}

TEST(CompareAlignment, MissingInstanceIsAClearError) {
    auto c = test::makeComparisonReport();
    auto third = alignmentOffset(*c, "step", 3);
    ASSERT_FALSE(third.ok());
    EXPECT_EQ(third.error(), "NVTX range 'step' has 2 instance(s) in this report, no instance 3");
    auto none = alignmentOffset(*c, "warmup", 1);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error(), "NVTX range 'warmup' has 0 instance(s) in this report, no instance 1");
    auto zero = alignmentOffset(*c, "step", 0);
    ASSERT_FALSE(zero.ok());
    EXPECT_EQ(zero.error(), "NVTX instance number must be 1 or more, not 0");
}

TEST(CompareAlignment, CommonNvtxNamesAreTheIntersection) {
    auto b = test::makeBaselineReport();
    auto c = test::makeComparisonReport();
    EXPECT_EQ(commonNvtxNames(*b, *c), std::vector<std::string>{"step"});
    EXPECT_EQ(commonNvtxNames(*b, *b), (std::vector<std::string>{"step", "warmup"}));
}

TEST(CompareAlignment, ItemInstancesSpanFirstToLast) {
    auto b = test::makeBaselineReport();
    auto c = test::makeComparisonReport();
    const InstanceSpan ka = itemInstances(*b, DiffCategory::Kernels, "kA");
    EXPECT_EQ(ka.count, 2);
    EXPECT_EQ(ka.start, 1150);
    EXPECT_EQ(ka.end, 1550);
    const InstanceSpan kb = itemInstances(*b, DiffCategory::Kernels, "kB");
    EXPECT_EQ(kb.count, 0);
    const InstanceSpan kbc = itemInstances(*c, DiffCategory::Kernels, "kB");
    EXPECT_EQ(kbc.count, 1);
    EXPECT_EQ(kbc.start, 5650);
    EXPECT_EQ(kbc.end, 5700);
    const InstanceSpan step = itemInstances(*b, DiffCategory::Nvtx, "step");
    EXPECT_EQ(step.count, 3);
    EXPECT_EQ(step.start, 1100);
    EXPECT_EQ(step.end, 1900);
    const InstanceSpan api = itemInstances(*c, DiffCategory::Api, "cudaLaunchKernel");
    EXPECT_EQ(api.count, 1);
    EXPECT_EQ(api.start, 5220);
    EXPECT_EQ(api.end, 5230);
    EXPECT_EQ(itemInstances(*b, DiffCategory::MemOps, "[CUDA memset]").count, 0);
}

TEST(CompareAlignment, InstanceRefsPointAtTheEvents) {
    auto b = test::makeBaselineReport();
    const auto refs = itemInstanceRefs(*b, DiffCategory::Kernels, "kA", 100);
    ASSERT_EQ(refs.size(), 2u);
    EXPECT_EQ(b->tracks[refs[0].track].start[refs[0].index], 1150);
    EXPECT_EQ(b->tracks[refs[1].track].start[refs[1].index], 1450);
    EXPECT_EQ(b->tracks[refs[1].track].key.kind, EventKind::Kernel);
    EXPECT_EQ(itemInstanceRefs(*b, DiffCategory::Nvtx, "step", 2).size(), 2u);  // limited
}

// Every diff item finds exactly as many instances as the diff counted, on both sides.
TEST(CompareAlignment, InstancesMatchTheDiffCounts) {
    auto b = test::makeBaselineReport();
    auto c = test::makeComparisonReport();
    const analysis::DiffResult d = analysis::diffReports(*b, *c);
    ASSERT_EQ(d.items.size(), 6u);  // kA, kB, cudaLaunchKernel, step, warmup, init
    for (const analysis::DiffItem& i : d.items) {
        EXPECT_EQ(itemInstances(*b, i.category, i.name).count, i.baseline.count) << i.name;
        EXPECT_EQ(itemInstances(*c, i.category, i.name).count, i.comparison.count) << i.name;
    }
}

}  // namespace
}  // namespace sl::viewer
