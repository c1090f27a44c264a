#include "model/analysis/ReportDiff.h"

#include <gtest/gtest.h>

#include "tests/analysis/Fixtures.h"

namespace sl::analysis {
namespace {

TEST(ReportDiff, KnownDeltasOrderedByAbsoluteDelta) {
    auto a = test::makeStatsReport(), b = test::makeStatsReportChanged();
    DiffResult d = diffReports(*a, *b);
    // kernels: kA 1000 -> 2000, kC only in B (1000), kB only in A (180); api: cudaLaunchKernel
    // 7 x 10 -> 5 x 10; NVTX and memory operations unchanged.
    ASSERT_GE(d.items.size(), 4u);
    EXPECT_EQ(d.items[0].name, "kA");
    EXPECT_EQ(d.items[0].delta(), 1000);
    EXPECT_EQ(d.items[0].baseline.count, 4);
    EXPECT_DOUBLE_EQ(d.items[0].comparison.avg(), 500.0);
    EXPECT_EQ(d.items[1].name, "kC");
    EXPECT_FALSE(d.items[1].inBaseline());
    EXPECT_EQ(d.items[2].name, "kB");
    EXPECT_EQ(d.items[2].delta(), -180);
    EXPECT_FALSE(d.items[2].inComparison());
    EXPECT_EQ(d.items[3].name, "cudaLaunchKernel");
    EXPECT_EQ(d.items[3].delta(), -20);
    for (size_t i = 4; i < d.items.size(); ++i) EXPECT_EQ(d.items[i].delta(), 0) << d.items[i].name;
    // GPU busy: A 1180 (kernels) + 6010 (memory ops); B 3000 + 6010 minus 15 ns where kC overlaps the first copy.
    EXPECT_EQ(d.baseline.gpuBusyNs, 7190);
    EXPECT_EQ(d.comparison.gpuBusyNs, 8995);
    EXPECT_EQ(d.baseline.durationNs, 20'000);
}

TEST(ReportDiff, TablesMarkPresenceAndPercent) {
    auto a = test::makeStatsReport(), b = test::makeStatsReportChanged();
    DiffOptions o;
    o.categories = {DiffCategory::Kernels};
    Table t = diffItemsTable(diffReports(*a, *b, o));
    ASSERT_EQ(t.rowCount(), 3u);
    const auto& presence = t.columns[static_cast<size_t>(t.findColumn("Presence"))].texts;
    EXPECT_EQ(presence, (std::vector<std::string>{"both", "only B", "only A"}));
    const auto& change = t.columns[static_cast<size_t>(t.findColumn("Change"))];
    EXPECT_DOUBLE_EQ(change.reals[0], 100.0);
    EXPECT_TRUE(change.isNull(1));
    EXPECT_DOUBLE_EQ(change.reals[2], -100.0);
    Table s = diffSummaryTable(diffReports(*a, *b, o));
    EXPECT_EQ(s.columns[0].texts[1], "GPU busy (ns)");
    EXPECT_DOUBLE_EQ(s.columns[3].reals[1], 1805.0);
}

TEST(ReportDiff, CategoriesParse) {
    EXPECT_EQ(parseDiffCategories("all")->size(), 4u);
    EXPECT_EQ(parseDiffCategories("kernels,nvtx")->size(), 2u);
    EXPECT_FALSE(parseDiffCategories("kernel").ok());
}

TEST(ReportDiff, MatchByBaseName) {
    auto a = test::makeStatsReport(), b = test::makeStatsReportChanged();
    DiffOptions o;
    o.categories = {DiffCategory::Kernels};
    o.match = DiffMatch::Base;
    EXPECT_EQ(diffReports(*a, *b, o).items.size(), 3u);
}

}  // namespace
}  // namespace sl::analysis
