// The events index: sort by every column, name and duration filters, row lookup, and the
// radix sort against std::stable_sort.
#include <gtest/gtest.h>

#include <random>

#include "model/analysis/EventQuery.h"
#include "tests/analysis-gui/AnalysisFixture.h"

namespace sl::analysis {
namespace {

std::vector<int64_t> column(const EventQuery& q, EventColumn c) {
    std::vector<int64_t> v;
    for (size_t i = 0; i < q.rowCount(); ++i) v.push_back(q.value(q.eventAt(i), c));
    return v;
}

std::vector<std::string> names(const EventQuery& q) {
    std::vector<std::string> v;
    for (size_t i = 0; i < q.rowCount(); ++i) v.push_back(q.text(q.eventAt(i), EventColumn::Name));
    return v;
}

EventQuery allKernels() {
    auto r = test::makeAnalysisReport();
    return EventQuery(r, EventQuery::tracksOfKind(*r, EventKind::Kernel));
}

TEST(EventQuery, OpensSortedByStart) {
    EventQuery q = allKernels();
    EXPECT_EQ(q.totalCount(), 4u);
    EXPECT_EQ(column(q, EventColumn::Start), (std::vector<int64_t>{0, 200, 300, 500}));
    EXPECT_EQ(names(q), (std::vector<std::string>{"kA", "kA", "kA", "kB"}));
}

TEST(EventQuery, SortsByEveryColumn) {
    EventQuery q = allKernels();
    q.sort(EventColumn::Duration, true);
    EXPECT_EQ(column(q, EventColumn::Duration), (std::vector<int64_t>{1000, 200, 150, 100}));
    q.sort(EventColumn::Duration, false);
    EXPECT_EQ(column(q, EventColumn::Duration), (std::vector<int64_t>{100, 150, 200, 1000}));
    q.sort(EventColumn::End, true);
    EXPECT_EQ(column(q, EventColumn::End), (std::vector<int64_t>{1000, 700, 450, 300}));
    // Ties keep start order, in both directions.
    q.sort(EventColumn::Name, false);
    EXPECT_EQ(names(q), (std::vector<std::string>{"kA", "kA", "kA", "kB"}));
    EXPECT_EQ(column(q, EventColumn::Start), (std::vector<int64_t>{0, 200, 300, 500}));
    q.sort(EventColumn::Name, true);
    EXPECT_EQ(names(q), (std::vector<std::string>{"kB", "kA", "kA", "kA"}));
    EXPECT_EQ(column(q, EventColumn::Start), (std::vector<int64_t>{500, 0, 200, 300}));
    q.sort(EventColumn::Correlation, true);
    EXPECT_EQ(column(q, EventColumn::Correlation), (std::vector<int64_t>{6, 4, 2, 1}));
    q.sort(EventColumn::Row, false);  // stream 7 track, stream 8, stream 9 in report order
    EXPECT_EQ(column(q, EventColumn::Start).size(), 4u);
    const auto rows = column(q, EventColumn::Row);
    EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
    q.sort(EventColumn::Start, true);
    EXPECT_EQ(column(q, EventColumn::Start), (std::vector<int64_t>{500, 300, 200, 0}));
}

TEST(EventQuery, FiltersByNameAndDuration) {
    EventQuery q = allKernels();
    ASSERT_TRUE(q.setFilter({"kb"}).ok());  // substring, case-insensitive
    EXPECT_EQ(q.rowCount(), 1u);
    EXPECT_EQ(names(q), (std::vector<std::string>{"kB"}));
    EventFilter cs{"kb"};
    cs.caseSensitive = true;
    ASSERT_TRUE(q.setFilter(cs).ok());
    EXPECT_EQ(q.rowCount(), 0u);
    EventFilter re{"^k[AB]$"};
    re.regex = true;
    ASSERT_TRUE(q.setFilter(re).ok());
    EXPECT_EQ(q.rowCount(), 4u);
    re.text = "A$";
    ASSERT_TRUE(q.setFilter(re).ok());
    EXPECT_EQ(q.rowCount(), 3u);
    // A bad expression is an error and keeps the previous filter.
    EventFilter bad{"(kA"};
    bad.regex = true;
    const Status s = q.setFilter(bad);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().find("invalid regular expression '(kA'"), std::string::npos);
    EXPECT_EQ(q.rowCount(), 3u);
    // Durations: at least 150 ns -> 1000, 200, 150; then at most 200 -> 200, 150.
    EventFilter dur;
    dur.minDuration = 150;
    ASSERT_TRUE(q.setFilter(dur).ok());
    EXPECT_EQ(column(q, EventColumn::Duration), (std::vector<int64_t>{1000, 150, 200}));  // start order
    dur.maxDuration = 200;
    ASSERT_TRUE(q.setFilter(dur).ok());
    q.sort(EventColumn::Duration, false);  // the filter survives a sort
    EXPECT_EQ(column(q, EventColumn::Duration), (std::vector<int64_t>{150, 200}));
    ASSERT_TRUE(q.setFilter({}).ok());
    EXPECT_EQ(q.rowCount(), 4u);
}

TEST(EventQuery, NamelessKindsGetOperationNames) {
    auto r = test::makeAnalysisReport();
    EventQuery q(r, EventQuery::tracksOfKind(*r, EventKind::Memcpy));
    EXPECT_EQ(names(q), (std::vector<std::string>{"[CUDA memcpy Host-to-Device]", "[CUDA memcpy Device-to-Host]"}));
    q.sort(EventColumn::Bytes, true);
    EXPECT_EQ(column(q, EventColumn::Bytes), (std::vector<int64_t>{2000, 1000}));
    ASSERT_TRUE(q.setFilter({"device-to-host"}).ok());
    EXPECT_EQ(q.rowCount(), 1u);
    q.sort(EventColumn::Name, false);
    EXPECT_EQ(names(q), (std::vector<std::string>{"[CUDA memcpy Device-to-Host]"}));
}

TEST(EventQuery, RowOfFollowsSortAndFilter) {
    EventQuery q = allKernels();
    const EventRef kB = q.eventAt(3);
    EXPECT_EQ(q.rowOf(kB), 3u);
    q.sort(EventColumn::Duration, true);
    EXPECT_EQ(q.rowOf(kB), 1u);
    ASSERT_TRUE(q.setFilter({"kA"}).ok());
    EXPECT_FALSE(q.rowOf(kB).has_value());
    EXPECT_FALSE(q.rowOf(EventRef{}).has_value());
    EXPECT_FALSE(q.rowOf(EventRef{0, 999}).has_value());
}

TEST(EventQuery, ApiCallNamesDropVersionSuffix) {
    ReportBuilder b;
    CudaApiCall c;
    c.pid = 1; c.tid = 1; c.start = 1; c.end = 2; c.name = b.intern("cudaLaunchKernel_v7000");
    b.add(c);
    std::shared_ptr<const Report> r = b.finish();
    EventQuery q(r, EventQuery::tracksOfKind(*r, EventKind::CudaApi));
    EXPECT_EQ(names(q), (std::vector<std::string>{"cudaLaunchKernel"}));
}

TEST(EventQuery, RadixSortMatchesStableSort) {
    std::mt19937_64 rng(7);
    for (uint64_t range : {uint64_t{3}, uint64_t{1} << 20, UINT64_MAX}) {
        std::vector<uint64_t> keys(50'000);
        for (auto& k : keys) k = range == UINT64_MAX ? rng() : rng() % range;
        std::vector<uint32_t> ids(keys.size()), expect(keys.size());
        for (uint32_t i = 0; i < ids.size(); ++i) ids[i] = expect[i] = static_cast<uint32_t>(ids.size() - 1 - i);
        std::stable_sort(expect.begin(), expect.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
        radixSortByKey(ids, keys);
        EXPECT_EQ(ids, expect) << "range " << range;
    }
}

TEST(EventQuery, LargeTrackSortAndFilter) {
    auto r = test::makeBigKernelTrack(100'000, 10);
    EventQuery q(r, {0});
    ASSERT_EQ(q.totalCount(), 100'000u);
    q.sort(EventColumn::Duration, false);
    const auto d = column(q, EventColumn::Duration);
    EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
    EXPECT_EQ(d.front(), 1);
    EXPECT_EQ(d.back(), 1000);
    EventFilter f{"k3"};
    ASSERT_TRUE(q.setFilter(f).ok());
    EXPECT_EQ(q.rowCount(), 10'000u);  // names repeat every 10 events
}

}  // namespace
}  // namespace sl::analysis
