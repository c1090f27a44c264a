// `sightline analyze` over several ranks (model/analysis/CrossRankFindings.h) from hand-made
// findings: spreads, the worst rank, imbalance findings and the straggler, bad input.
#include <gtest/gtest.h>

#include "model/analysis/CrossRankFindings.h"

namespace sl::analysis {
namespace {

Finding finding(const std::string& rule, int64_t totalNs, int64_t count, Severity sev = Severity::Info) {
    Finding f;
    f.rule = rule;
    f.title = rule + " title";
    f.totalNs = totalNs;
    f.count = count;
    f.severity = sev;
    return f;
}

// Two rules on each rank: gpu_gaps with its time, and short_kernels with the same time on all.
std::vector<Finding> rankOf(int64_t gapNs, Severity gapSeverity = Severity::Warning) {
    return {finding("gpu_gaps", gapNs, gapNs / 1'000'000, gapNs ? gapSeverity : Severity::None),
            finding("short_kernels", 5'000'000, 10)};
}

TEST(CrossRankFindings, SpreadWorstRankAndTheStraggler) {
    // Ranks given out of order; rank 2's GPU gaps are 40 ms against a median of 10 ms.
    const auto r0 = rankOf(10'000'000), r1 = rankOf(8'000'000), r2 = rankOf(40'000'000), r3 = rankOf(12'000'000);
    auto s = crossRankFindings({{3, &r3}, {1, &r1}, {0, &r0}, {2, &r2}});
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->ranks, (std::vector<int>{0, 1, 2, 3}));
    ASSERT_EQ(s->rules.size(), 2u);
    const RuleSpread& gaps = s->rules[0];
    EXPECT_EQ(gaps.rule, "gpu_gaps");
    EXPECT_EQ(gaps.firedOn, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(gaps.minNs, 8'000'000);
    EXPECT_DOUBLE_EQ(gaps.medianNs, 11'000'000.0);  // the mean of the two middle values
    EXPECT_EQ(gaps.maxNs, 40'000'000);
    EXPECT_EQ(gaps.worstRank, 2);
    EXPECT_EQ(gaps.worstSeverity, Severity::Warning);
    EXPECT_DOUBLE_EQ(gaps.medianCount, 11.0);
    // Mean 17.5 ms: (40 - 17.5) / 17.5.
    EXPECT_NEAR(gaps.imbalancePct, (40.0 - 17.5) / 17.5 * 100.0, 1e-9);
    // The rule every rank agrees on is no imbalance; its worst rank is the lowest on the tie.
    EXPECT_EQ(s->rules[1].worstRank, 0);
    EXPECT_DOUBLE_EQ(s->rules[1].imbalancePct, 0.0);
    ASSERT_EQ(s->imbalances.size(), 1u);
    EXPECT_EQ(s->imbalances[0].rank, 2);
    EXPECT_EQ(s->imbalances[0].rule, "gpu_gaps");
    EXPECT_DOUBLE_EQ(s->imbalances[0].excessNs, 29'000'000.0);
    EXPECT_NE(s->imbalances[0].summary.find("3.6x"), std::string::npos) << s->imbalances[0].summary;
    EXPECT_EQ(s->straggler, 2);
    EXPECT_NE(stragglerSentence(*s).find("Rank 2 is the straggler"), std::string::npos);
}

TEST(CrossRankFindings, SmallOrProportionalDifferencesAreNoImbalance) {
    // 1.4x the median: under the factor. 3x a median of 100 us: under the 1 ms excess.
    const auto a0 = rankOf(10'000'000), a1 = rankOf(10'000'000), a2 = rankOf(14'000'000);
    auto s = crossRankFindings({{0, &a0}, {1, &a1}, {2, &a2}});
    ASSERT_TRUE(s) << s.error();
    EXPECT_TRUE(s->imbalances.empty());
    EXPECT_EQ(s->straggler, -1);
    EXPECT_EQ(stragglerSentence(*s), "");
    const auto b0 = rankOf(100'000), b1 = rankOf(100'000), b2 = rankOf(300'000);
    s = crossRankFindings({{0, &b0}, {1, &b1}, {2, &b2}});
    ASSERT_TRUE(s) << s.error();
    EXPECT_TRUE(s->imbalances.empty());
    // A lower threshold finds it.
    s = crossRankFindings({{0, &b0}, {1, &b1}, {2, &b2}}, {1.5, 100'000});
    ASSERT_TRUE(s) << s.error();
    ASSERT_EQ(s->imbalances.size(), 1u);
    EXPECT_EQ(s->imbalances[0].rank, 2);
}

TEST(CrossRankFindings, ARuleFiringOnOneRankOnly) {
    // Median 0: the rank that has any of it (above the excess) is the outlier; firedOn names it.
    const auto r0 = rankOf(0), r1 = rankOf(0), r2 = rankOf(0), r3 = rankOf(7'000'000);
    auto s = crossRankFindings({{0, &r0}, {1, &r1}, {2, &r2}, {3, &r3}});
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->rules[0].firedOn, (std::vector<int>{3}));
    EXPECT_EQ(s->rules[0].minNs, 0);
    EXPECT_DOUBLE_EQ(s->rules[0].medianNs, 0.0);
    ASSERT_EQ(s->imbalances.size(), 1u);
    EXPECT_NE(s->imbalances[0].summary.find("median is none"), std::string::npos);
    EXPECT_EQ(s->straggler, 3);
}

TEST(CrossRankFindings, StragglerHasTheLargestExcessOverAllRules) {
    // Rank 1 is far out on one rule by 20 ms; rank 2 on two rules by 15 ms each.
    std::vector<Finding> r0 = {finding("a", 1'000'000, 1), finding("b", 1'000'000, 1)};
    std::vector<Finding> r1 = {finding("a", 21'000'000, 1), finding("b", 1'000'000, 1)};
    std::vector<Finding> r2 = {finding("a", 16'000'000, 1), finding("b", 16'000'000, 1)};
    std::vector<Finding> r3 = r0, r4 = r0;
    auto s = crossRankFindings({{0, &r0}, {1, &r1}, {2, &r2}, {3, &r3}, {4, &r4}});
    ASSERT_TRUE(s) << s.error();
    ASSERT_EQ(s->imbalances.size(), 3u);
    EXPECT_EQ(s->imbalances[0].rank, 1);  // the largest single excess first
    EXPECT_EQ(s->straggler, 2);           // but 30 ms over all rules beats 20 ms
}

TEST(CrossRankFindings, TablesHaveARowPerRuleAndPerImbalance) {
    const auto r0 = rankOf(10'000'000), r1 = rankOf(50'000'000);
    auto s = crossRankFindings({{0, &r0}, {1, &r1}});
    ASSERT_TRUE(s) << s.error();
    const Table spread = ruleSpreadTable(*s), imbalance = rankImbalanceTable(*s);
    ASSERT_EQ(spread.rowCount(), 2u);
    EXPECT_EQ(spread.columns[0].texts[0], "gpu_gaps");
    EXPECT_EQ(spread.columns[static_cast<size_t>(spread.findColumn("Ranks Fired"))].texts[0], "0 1");
    EXPECT_EQ(spread.columns[static_cast<size_t>(spread.findColumn("Worst Rank"))].ints[0], 1);
    // Two ranks: median 30 ms, rank 1 is 50/30 = 1.67x and 20 ms above.
    ASSERT_EQ(imbalance.rowCount(), 1u);
    EXPECT_EQ(imbalance.columns[static_cast<size_t>(imbalance.findColumn("Rank"))].ints[0], 1);
    EXPECT_NEAR(imbalance.columns[static_cast<size_t>(imbalance.findColumn("Times Median"))].reals[0], 5.0 / 3.0,
                1e-9);
}

TEST(CrossRankFindings, OneRankHasNothingToDisagreeWith) {
    const auto r0 = rankOf(40'000'000);
    auto s = crossRankFindings({{5, &r0}});
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->rules[0].worstRank, 5);
    EXPECT_TRUE(s->imbalances.empty());
}

TEST(CrossRankFindings, BadInputIsAnError) {
    EXPECT_FALSE(crossRankFindings({}));
    const auto r0 = rankOf(1), r1 = rankOf(2);
    auto twice = crossRankFindings({{1, &r0}, {1, &r1}});
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().find("rank 1 is given more than once"), std::string::npos) << twice.error();
    const std::vector<Finding> other = {finding("gpu_gaps", 1, 1)};
    auto differ = crossRankFindings({{0, &r0}, {1, &other}});
    ASSERT_FALSE(differ);
    EXPECT_NE(differ.error().find("rank 1 ran other rules"), std::string::npos) << differ.error();
    EXPECT_FALSE(crossRankFindings({{0, &r0}, {1, nullptr}}));
}

}  // namespace
}  // namespace sl::analysis
