// durationsByName on several cores must give every group the values one pass over the tracks
// gives, in the same order (the summaries' floating-point sums depend on it), with or without
// a time window; and fillSummary's parallel summaries must match the serial formula.
#include <gtest/gtest.h>

#include <map>

#include "model/analysis/DenseGroups.h"
#include "model/gen/SyntheticGenerator.h"

namespace sl::analysis {
namespace {

// Every group's values as one pass over the tracks in order puts them, by name id.
std::map<uint32_t, std::vector<int64_t>> byHand(const Report& r, EventKind kind, const StatsOptions& o) {
    std::map<uint32_t, std::vector<int64_t>> out;
    for (const auto& t : r.tracks)
        if (t.key.kind == kind)
            for (size_t i = 0; i < t.size(); ++i)
                if (o.inWindow(t.start[i], t.end[i])) out[t.name[i]].push_back(t.end[i] - t.start[i]);
    return out;
}

std::map<uint32_t, std::vector<int64_t>> asMap(DenseGroups& g) {
    std::map<uint32_t, std::vector<int64_t>> out;
    for (size_t i = 0; i < g.size(); ++i) {
        EXPECT_FALSE(out.count(g.key(i))) << "key " << g.key(i) << " twice";
        out[g.key(i)] = g.values(i);
    }
    return out;
}

class DurationsByName : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        GeneratorOptions go;
        go.events = 1'200'000;  // enough kernels and API calls on several tracks to split
        s_report = generateReport(go);
    }
    static void TearDownTestSuite() { s_report.reset(); }
    static std::shared_ptr<Report> s_report;
};
std::shared_ptr<Report> DurationsByName::s_report;

TEST_F(DurationsByName, ParallelGroupsEqualOnePassInOrder) {
    const Report& r = *s_report;
    for (EventKind kind : {EventKind::Kernel, EventKind::CudaApi}) {
        size_t tracks = 0, events = 0;
        for (const auto& t : r.tracks)
            if (t.key.kind == kind) ++tracks, events += t.size();
        ASSERT_GE(tracks, 2u);
        ASSERT_GE(events, 250'000u) << "too few events to be split between workers";
        const StatsOptions all;
        const auto expected = byHand(r, kind, all);
        for (unsigned threads : {1u, 2u, 3u, 8u}) {
            DenseGroups g = durationsByName(r, kind, all, threads);
            EXPECT_EQ(asMap(g), expected) << "threads " << threads;
        }
    }
}

TEST_F(DurationsByName, WindowKeepsOnlyEventsInside) {
    const Report& r = *s_report;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& t : r.tracks)
        if (t.key.kind == EventKind::Kernel && !t.empty()) lo = std::min(lo, t.start.front()), hi = std::max(hi, t.end.back());
    StatsOptions o;
    o.start = lo + (hi - lo) / 3;
    o.end = lo + (hi - lo) / 2;
    const auto expected = byHand(r, EventKind::Kernel, o);
    size_t kept = 0;
    for (const auto& [k, v] : expected) kept += v.size();
    ASSERT_GT(kept, 0u);
    DenseGroups g = durationsByName(r, EventKind::Kernel, o, 2);
    EXPECT_EQ(asMap(g), expected);
}

TEST_F(DurationsByName, FirstAppearanceOrderOfGroups) {
    const Report& r = *s_report;
    std::vector<uint32_t> order;
    std::vector<bool> seen(r.strings.size(), false);
    for (const auto& t : r.tracks)
        if (t.key.kind == EventKind::Kernel)
            for (uint32_t n : t.name)
                if (!seen[n]) seen[n] = true, order.push_back(n);
    DenseGroups g = durationsByName(r, EventKind::Kernel, {}, 2);
    ASSERT_EQ(g.size(), order.size());
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(g.key(i), order[i]) << i;
}

TEST(FillSummary, ParallelSummariesMatchEachGroupsOwn) {
    // Groups big enough to be summarized on several cores; each row must be its group's own.
    std::vector<SummaryGroup> groups;
    uint64_t x = 12345;
    for (int g = 0; g < 7; ++g) {
        SummaryGroup sg{{"g" + std::to_string(g)}, {}};
        const size_t n = 40'000 + 10'000 * static_cast<size_t>(g);
        for (size_t i = 0; i < n; ++i) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            sg.values.push_back(static_cast<int64_t>((x >> 33) % 1'000'000) + 1000 * g);
        }
        groups.push_back(std::move(sg));
    }
    std::vector<DurationStats> expected;
    for (auto& g : groups) {
        std::vector<int64_t> copy = g.values;
        expected.push_back(summarize(copy));
    }
    Table t("t", "T");
    fillSummary(t, {"Instances", {"Name"}}, groups);
    ASSERT_EQ(t.rowCount(), groups.size());
    // Columns: Time (%), Total Time, Instances, Avg, Med, Min, Max, StdDev, Name.
    ASSERT_EQ(t.columns.size(), 9u);
    for (size_t row = 0; row < t.rowCount(); ++row) {
        const std::string& label = t.columns[8].texts[row];
        const size_t g = static_cast<size_t>(std::stoi(label.substr(1)));
        EXPECT_EQ(t.columns[1].ints[row], expected[g].total) << label;
        EXPECT_EQ(t.columns[2].ints[row], expected[g].count) << label;
        EXPECT_EQ(t.columns[4].reals[row], expected[g].median) << label;
        EXPECT_EQ(t.columns[5].ints[row], expected[g].min) << label;
        EXPECT_EQ(t.columns[6].ints[row], expected[g].max) << label;
        EXPECT_EQ(t.columns[7].reals[row], expected[g].stddev) << label;
    }
}

}  // namespace
}  // namespace sl::analysis
