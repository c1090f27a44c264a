// `stats --per-rank`'s table (model/analysis/CrossRank.h) from hand-made summary tables.
#include <gtest/gtest.h>

#include "model/analysis/CrossRank.h"

namespace sl::analysis {
namespace {

// A summary table as the *_sum reports make them: Total Time, Instances, Name.
Table summary(const std::vector<std::pair<std::string, int64_t>>& rows) {
    Table t("nvtx_sum", "NVTX Range Summary");
    t.intCol("Total Time", Measure::Duration);
    t.intCol("Instances");
    t.textCol("Name");
    for (const auto& [name, total] : rows) t.row().i(total).i(1).t(name);
    return t;
}

int64_t intAt(const Table& t, const std::string& col, size_t row) {
    const int c = t.findColumn(col);
    EXPECT_GE(c, 0) << col;
    return t.columns[static_cast<size_t>(c)].ints[row];
}
double realAt(const Table& t, const std::string& col, size_t row) {
    const int c = t.findColumn(col);
    EXPECT_GE(c, 0) << col;
    return t.columns[static_cast<size_t>(c)].reals[row];
}

TEST(CrossRank, TotalsPerRankWithTheStragglerFirst) {
    const Table r0 = summary({{"step", 100}, {"load", 10}});
    const Table r1 = summary({{"step", 300}, {"load", 30}});
    const Table r2 = summary({{"step", 200}});  // never loaded
    auto t = crossRankTable({{2, &r2}, {0, &r0}, {1, &r1}});
    ASSERT_TRUE(t) << t.error();
    EXPECT_EQ(t->name, "nvtx_sum_per_rank");
    ASSERT_EQ(t->rowCount(), 2u);
    // "step": ranks 0-2 ran it; max 300 on rank 1; mean 200: imbalance (300 - 200) / 200 = 50%.
    EXPECT_EQ(t->columns[0].texts[0], "step");
    EXPECT_EQ(intAt(*t, "Ranks", 0), 3);
    EXPECT_EQ(intAt(*t, "Min Total Time", 0), 100);
    EXPECT_DOUBLE_EQ(realAt(*t, "Med Total Time", 0), 200.0);
    EXPECT_EQ(intAt(*t, "Max Total Time", 0), 300);
    EXPECT_EQ(intAt(*t, "Slowest Rank", 0), 1);
    EXPECT_DOUBLE_EQ(realAt(*t, "Imbalance", 0), 50.0);
    // Rank columns in rank order, whatever the order of the inputs.
    EXPECT_EQ(intAt(*t, "Rank 0", 0), 100);
    EXPECT_EQ(intAt(*t, "Rank 1", 0), 300);
    EXPECT_EQ(intAt(*t, "Rank 2", 0), 200);
    // "load": not on rank 2, which counts as 0 in the mean (13.33): (30 - 13.33) / 13.33 = 125%.
    EXPECT_EQ(t->columns[0].texts[1], "load");
    EXPECT_EQ(intAt(*t, "Ranks", 1), 2);
    EXPECT_DOUBLE_EQ(realAt(*t, "Med Total Time", 1), 20.0);
    EXPECT_NEAR(realAt(*t, "Imbalance", 1), 125.0, 1e-9);
    const int rank2 = t->findColumn("Rank 2");
    ASSERT_GE(rank2, 0);
    EXPECT_TRUE(t->columns[static_cast<size_t>(rank2)].isNull(1));
}

TEST(CrossRank, SkippedWhenNoRankHasTheDataAndRefusedForATrace) {
    const Table none = Table::skip("mpi_event_sum", "MPI Event Summary", "does not contain MPI trace data.");
    auto skipped = crossRankTable({{0, &none}, {1, &none}});
    ASSERT_TRUE(skipped);
    EXPECT_EQ(skipped->skipped, "does not contain MPI trace data.");
    Table trace("osrt_trace", "trace");
    trace.intCol("Start", Measure::Timestamp);
    trace.row().i(5);
    auto refused = crossRankTable({{0, &trace}});
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("not a summary report"), std::string::npos);
}

}  // namespace
}  // namespace sl::analysis
