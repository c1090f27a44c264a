#include "model/analysis/CrossRankFindings.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

#include "model/analysis/MedianSelect.h"
#include "model/util/Format.h"

namespace sl::analysis {

namespace {

// The median as the stats reports define it (the mean of the two middle values for even counts).
double medianOf(std::vector<int64_t> v) {
    const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    const MiddleValues m = middleValues(v, *mn, *mx);
    return (static_cast<double>(m.lower) + static_cast<double>(m.upper)) / 2.0;
}

// Step 1 of crossRankFindings: the ranks are distinct and ran the same rules in the same order.
Status checkInputs(const std::vector<RankFindings>& ranks) {
    if (ranks.empty()) return makeError("no ranks to compare");
    std::set<int> seen;
    for (const RankFindings& r : ranks) {
        if (!r.findings) return makeError("rank " + std::to_string(r.rank) + " has no findings");
        if (!seen.insert(r.rank).second)
            return makeError("rank " + std::to_string(r.rank) + " is given more than once: give each rank once");
    }
    const std::vector<Finding>& first = *ranks.front().findings;
    for (const RankFindings& r : ranks) {
        bool same = r.findings->size() == first.size();
        for (size_t i = 0; same && i < first.size(); ++i) same = (*r.findings)[i].rule == first[i].rule;
        if (!same)
            return makeError("rank " + std::to_string(r.rank) + " ran other rules than rank " +
                             std::to_string(ranks.front().rank));
    }
    return {};
}

RuleSpread spreadOf(const std::vector<RankFindings>& ranks, size_t ruleIndex) {
    const Finding& any = (*ranks.front().findings)[ruleIndex];
    RuleSpread s{any.rule, any.title};
    std::vector<int64_t> times, counts;
    int64_t worstTime = -1, worstCount = -1;
    for (const RankFindings& r : ranks) {  // ranks ascending: the lowest rank wins ties
        const Finding& f = (*r.findings)[ruleIndex];
        times.push_back(f.totalNs);
        counts.push_back(f.count);
        if (f.severity != Severity::None) s.firedOn.push_back(r.rank);
        s.worstSeverity = std::max(s.worstSeverity, f.severity);
        if (f.totalNs > worstTime || (f.totalNs == worstTime && f.count > worstCount)) {
            worstTime = f.totalNs;
            worstCount = f.count;
            s.worstRank = r.rank;
        }
    }
    s.minNs = *std::min_element(times.begin(), times.end());
    s.maxNs = *std::max_element(times.begin(), times.end());
    s.minCount = *std::min_element(counts.begin(), counts.end());
    s.maxCount = *std::max_element(counts.begin(), counts.end());
    s.medianNs = medianOf(times);
    s.medianCount = medianOf(counts);
    const double mean = static_cast<double>(std::accumulate(times.begin(), times.end(), int64_t{0})) /
                        static_cast<double>(times.size());
    s.imbalancePct = mean > 0 ? (static_cast<double>(s.maxNs) - mean) / mean * 100.0 : 0.0;
    return s;
}

std::string imbalanceSentence(const RankImbalance& m) {
    char text[400];
    if (m.medianNs > 0)
        std::snprintf(text, sizeof text, "Rank %d: %s of %s (%s), %.1fx the ranks' median of %s.", m.rank,
                      formatDuration(m.valueNs).c_str(), m.title.c_str(), m.rule.c_str(),
                      static_cast<double>(m.valueNs) / m.medianNs,
                      formatDuration(static_cast<int64_t>(m.medianNs)).c_str());
    else
        std::snprintf(text, sizeof text, "Rank %d: %s of %s (%s), where the ranks' median is none.", m.rank,
                      formatDuration(m.valueNs).c_str(), m.title.c_str(), m.rule.c_str());
    return text;
}

std::string rankList(const std::vector<int>& ranks) {
    std::string out;
    for (int r : ranks) out += (out.empty() ? "" : " ") + std::to_string(r);
    return out;
}

}  // namespace

Result<CrossRankSummary> crossRankFindings(const std::vector<RankFindings>& given,
                                           const ImbalanceThresholds& thresholds) {
    if (Status s = checkInputs(given); !s) return makeError(s.error());
    std::vector<RankFindings> ranks = given;
    std::sort(ranks.begin(), ranks.end(), [](const RankFindings& a, const RankFindings& b) { return a.rank < b.rank; });
    CrossRankSummary out;
    for (const RankFindings& r : ranks) out.ranks.push_back(r.rank);
    // Step 2: the spread of each rule; step 3: the ranks far above a rule's median.
    std::map<int, double> excessByRank;
    for (size_t i = 0; i < ranks.front().findings->size(); ++i) {
        RuleSpread s = spreadOf(ranks, i);
        // One rank alone has nothing to disagree with.
        for (const RankFindings& r : ranks) {
            if (ranks.size() < 2) break;
            const Finding& f = (*r.findings)[i];
            const double excess = static_cast<double>(f.totalNs) - s.medianNs;
            if (static_cast<double>(f.totalNs) < thresholds.factor * s.medianNs ||
                excess < static_cast<double>(thresholds.minExcessNs))
                continue;
            RankImbalance m{s.rule, s.title, r.rank, f.totalNs, s.medianNs, excess};
            m.summary = imbalanceSentence(m);
            excessByRank[r.rank] += excess;
            out.imbalances.push_back(std::move(m));
        }
        out.rules.push_back(std::move(s));
    }
    std::stable_sort(out.imbalances.begin(), out.imbalances.end(),
                     [](const RankImbalance& a, const RankImbalance& b) { return a.excessNs > b.excessNs; });
    double worst = 0;
    for (const auto& [rank, excess] : excessByRank)
        if (excess > worst) worst = excess, out.straggler = rank;
    return out;
}

Table ruleSpreadTable(const CrossRankSummary& s) {
    Table t("cross_rank", "Findings across ranks");
    t.textCol("Rule");
    t.textCol("Worst Severity");
    t.intCol("Fired On");
    t.textCol("Ranks Fired");
    t.intCol("Min Time", Measure::Duration);
    t.realCol("Med Time", Measure::Duration, 1);
    t.intCol("Max Time", Measure::Duration);
    t.idCol("Worst Rank");
    t.realCol("Imbalance", Measure::Percent, 1);
    t.intCol("Min Count");
    t.realCol("Med Count", Measure::None, 1);
    t.intCol("Max Count");
    for (const RuleSpread& r : s.rules)
        t.row().t(r.rule).t(std::string(severityName(r.worstSeverity))).i(static_cast<int64_t>(r.firedOn.size()))
            .t(rankList(r.firedOn)).i(r.minNs).r(r.medianNs).i(r.maxNs).i(r.worstRank).r(r.imbalancePct)
            .i(r.minCount).r(r.medianCount).i(r.maxCount);
    return t;
}

Table rankImbalanceTable(const CrossRankSummary& s) {
    Table t("rank_imbalance", "Ranks far above the median");
    t.textCol("Rule");
    t.idCol("Rank");
    t.intCol("Time", Measure::Duration);
    t.realCol("Med Time", Measure::Duration, 1);
    t.realCol("Excess", Measure::Duration, 1);
    t.realCol("Times Median", Measure::None, 2);
    for (const RankImbalance& m : s.imbalances) {
        auto w = t.row();
        w.t(m.rule).i(m.rank).i(m.valueNs).r(m.medianNs).r(m.excessNs);
        if (m.medianNs > 0) w.r(static_cast<double>(m.valueNs) / m.medianNs); else w.null();
    }
    return t;
}

std::string stragglerSentence(const CrossRankSummary& s) {
    if (s.straggler < 0) return "";
    std::string rules;
    for (const RankImbalance& m : s.imbalances)
        if (m.rank == s.straggler) rules += (rules.empty() ? "" : ", ") + m.rule;
    return "Rank " + std::to_string(s.straggler) + " is the straggler: it is far above the ranks' median in " + rules +
           " (the largest excess of any rank); the other ranks wait for it at their next collective.";
}

}  // namespace sl::analysis
