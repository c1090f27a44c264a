#include "model/analysis/CorrelationIndex.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "model/gen/SyntheticGenerator.h"

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

// Lookups through a cursor (galloping from the previous answer) give the plain lookups'
// answers in any order: track order (the fast case), backwards, and shuffled.
TEST(CorrelationIndex, CursorLookupsMatchPlainOnesInAnyOrder) {
    GeneratorOptions o;
    o.events = 60'000;
    std::shared_ptr<Report> r = generateReport(o);
    CorrelationIndex ci(*r);
    std::vector<std::pair<int64_t, uint32_t>> calls;
    for (const Track& t : r->tracks) {
        if (t.key.kind != EventKind::CudaApi) continue;
        const auto& corr = t.col<uint32_t>(cols::CudaApi::Correlation);
        for (uint32_t c : corr) calls.emplace_back(t.key.pid, c);
    }
    calls.emplace_back(777, 5);           // unknown process
    calls.emplace_back(calls[0].first, 0);  // no correlation
    calls.emplace_back(calls[0].first, UINT32_MAX);  // past every key
    ASSERT_GT(calls.size(), 10'000u);
    auto check = [&](const char* order) {
        CorrelationIndex::Cursor cursor;
        size_t found = 0;
        for (const auto& [pid, c] : calls) {
            const auto plain = ci.gpuOps(pid, c);
            const auto fast = ci.gpuOps(pid, c, cursor);
            ASSERT_EQ(plain.size(), fast.size()) << order << " pid " << pid << " corr " << c;
            for (size_t i = 0; i < plain.size(); ++i) ASSERT_EQ(plain[i], fast[i]) << order;
            found += !plain.empty();
        }
        EXPECT_GT(found, 1'000u) << order;
    };
    check("track order");
    std::reverse(calls.begin(), calls.end());
    check("reversed");
    std::mt19937 rng(7);
    std::shuffle(calls.begin(), calls.end(), rng);
    check("shuffled");
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
