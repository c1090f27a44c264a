#pragma once
// `sightline analyze` over several ranks (issue #20): the rules' findings of each rank side by
// side. Per rule: the ranks it fired on, min/median/max of its measured time (Finding::totalNs,
// what the rule says it costs) and of its count, the worst rank; and imbalance findings: a rank
// whose time for a rule is far above the ranks' median (the straggler the others wait for at
// their next collective), the largest excess first. Pure functions of the findings, no Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "model/analysis/Table.h"
#include "model/analysis/rules/Rule.h"
#include "model/core/Result.h"

namespace sl::analysis {

struct RankFindings {
    int rank = 0;
    const std::vector<Finding>* findings = nullptr;  // the same rules, in the same order, on every rank
};

// One rule across the ranks.
struct RuleSpread {
    std::string rule, title;
    std::vector<int> firedOn;  // ranks where its severity is above none, ascending
    int64_t minNs = 0, maxNs = 0;
    double medianNs = 0;
    int64_t minCount = 0, maxCount = 0;
    double medianCount = 0;
    int worstRank = -1;  // the largest time (the largest count when no rank has time; lowest rank on ties)
    Severity worstSeverity = Severity::None;  // the highest severity of any rank
    double imbalancePct = 0;  // (max - mean) / mean of the times, the measure stats --per-rank uses
};

// A rank whose time for a rule is at least `factor` times the ranks' median and at least
// `minExcessNs` above it (so that noise on tiny figures is not a finding).
struct ImbalanceThresholds {
    double factor = 1.5;
    int64_t minExcessNs = 1'000'000;
};

struct RankImbalance {
    std::string rule, title;
    int rank = 0;
    int64_t valueNs = 0;
    double medianNs = 0;
    double excessNs = 0;  // valueNs - medianNs
    std::string summary;  // one sentence with the numbers
};

struct CrossRankSummary {
    std::vector<int> ranks;  // ascending
    std::vector<RuleSpread> rules;  // in the rules' order
    std::vector<RankImbalance> imbalances;  // the largest excess first
    int straggler = -1;  // the rank with the largest total excess over all rules (-1: none)
};

// An error when there are no ranks, a rank is given twice, or the ranks' rule lists differ.
Result<CrossRankSummary> crossRankFindings(const std::vector<RankFindings>& ranks,
                                           const ImbalanceThresholds& thresholds = {});

// The summary as tables (text, CSV, TSV, JSON like the stats reports): one row per rule, and one
// per imbalance finding.
Table ruleSpreadTable(const CrossRankSummary& s);
Table rankImbalanceTable(const CrossRankSummary& s);
// The straggler in one sentence ("" when the ranks agree).
std::string stragglerSentence(const CrossRankSummary& s);

}  // namespace sl::analysis
