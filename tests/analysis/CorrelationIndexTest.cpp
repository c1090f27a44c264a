#include "model/analysis/CorrelationIndex.h"

#include <gtest/gtest.h>

#include "tests/analysis/Fixtures.h"

namespace sl::analysis {
namespace {

const Track& trackOf(const Report& r, EventRef ref) { return r.tracks.at(ref.track); }

TEST(CorrelationIndex, FindsApiCallAndGpuOpsPerProcess) {
    auto r = test::makeProjectionReport();
    CorrelationIndex ci(*r);
    EXPECT_EQ(ci.apiCallCount(), 5u);
    EXPECT_EQ(ci.gpuOpCount(), 6u);
    EXPECT_EQ(ci.orphanGpuOpCount(), 1u);  // correlation 99

    // Correlation 1 exists in both processes and must resolve to each one's own events.
    EventRef a10 = ci.apiCall(10, 1), a20 = ci.apiCall(20, 1);
    ASSERT_TRUE(a10.valid());
    ASSERT_TRUE(a20.valid());
    EXPECT_EQ(trackOf(*r, a10).key.tid, 11);
    EXPECT_EQ(trackOf(*r, a10).start[a10.index], 160);
    EXPECT_EQ(trackOf(*r, a20).key.tid, 21);
    EXPECT_EQ(trackOf(*r, a20).start[a20.index], 50);

    auto ops10 = ci.gpuOps(10, 1);
    ASSERT_EQ(ops10.size(), 1u);
    EXPECT_EQ(trackOf(*r, ops10[0]).key.kind, EventKind::Kernel);
    EXPECT_EQ(trackOf(*r, ops10[0]).key.device, 0);
    EXPECT_EQ(trackOf(*r, ops10[0]).start[ops10[0].index], 500);
    auto ops20 = ci.gpuOps(20, 1);
    ASSERT_EQ(ops20.size(), 1u);
    EXPECT_EQ(trackOf(*r, ops20[0]).key.device, 1);

    auto copy = ci.gpuOps(10, 2);
    ASSERT_EQ(copy.size(), 1u);
    EXPECT_EQ(trackOf(*r, copy[0]).key.kind, EventKind::Memcpy);
    EXPECT_EQ(trackOf(*r, copy[0]).end[copy[0].index], 700);
}

TEST(CorrelationIndex, MissingIdsGiveEmptyAnswers) {
    auto r = test::makeProjectionReport();
    CorrelationIndex ci(*r);
    EXPECT_FALSE(ci.apiCall(10, 99).valid());  // kernel without a captured launch
    EXPECT_EQ(ci.gpuOps(10, 99).size(), 1u);
    EXPECT_FALSE(ci.apiCall(10, 0).valid());
    EXPECT_TRUE(ci.gpuOps(10, 0).empty());
    EXPECT_FALSE(ci.apiCall(777, 1).valid());  // unknown process
    EXPECT_TRUE(ci.gpuOps(777, 1).empty());
    EXPECT_TRUE(ci.gpuOps(20, 2).empty());
}

TEST(CorrelationIndex, LauncherOfGpuOp) {
    auto r = test::makeProjectionReport();
    CorrelationIndex ci(*r);
    auto ops = ci.gpuOps(10, 3);
    ASSERT_EQ(ops.size(), 1u);
    EventRef api = ci.launcherOf(ops[0]);
    ASSERT_TRUE(api.valid());
    EXPECT_EQ(trackOf(*r, api).start[api.index], 460);
    EXPECT_EQ(trackOf(*r, api).end[api.index], 950);
    // An API event is not a GPU operation.
    EXPECT_FALSE(ci.launcherOf(api).valid());
    EXPECT_FALSE(ci.launcherOf(EventRef{}).valid());
}

TEST(CorrelationIndex, EmptyReport) {
    Report r;
    CorrelationIndex ci(r);
    EXPECT_EQ(ci.apiCallCount(), 0u);
    EXPECT_FALSE(ci.apiCall(1, 1).valid());
}

}  // namespace
}  // namespace sl::analysis
