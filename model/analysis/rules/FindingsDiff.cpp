#include "model/analysis/rules/FindingsDiff.h"

#include <map>

namespace sl::analysis {

std::string_view findingChangeName(FindingChange c) {
    switch (c) {
        case FindingChange::Same: return "same";
        case FindingChange::Better: return "better";
        case FindingChange::Worse: return "worse";
        case FindingChange::New: return "new";
        case FindingChange::Gone: return "gone";
    }
    return "same";
}

namespace {

// A problem (warning) that appeared or went away, else the time it accounts for (or, with no
// time, the count of a problem) moving by more than 5%.
FindingChange judge(const Finding& a, const Finding& b) {
    const bool warnA = a.severity == Severity::Warning, warnB = b.severity == Severity::Warning;
    if (!warnA && warnB) return FindingChange::New;
    if (warnA && !warnB) return FindingChange::Gone;
    // Informational figures without a time (kinds of kernels, launch latency) are not judged.
    if (!warnA && !warnB && a.totalNs == 0 && b.totalNs == 0) return FindingChange::Same;
    const int64_t va = a.totalNs ? a.totalNs : a.count, vb = b.totalNs ? b.totalNs : b.count;
    if (va == vb) return FindingChange::Same;
    const double rel = va ? static_cast<double>(vb - va) / static_cast<double>(va) : 1.0;
    if (rel > 0.05) return FindingChange::Worse;
    if (rel < -0.05) return FindingChange::Better;
    return FindingChange::Same;
}

}  // namespace

std::vector<FindingPair> pairFindings(const std::vector<Finding>& baseline, const std::vector<Finding>& comparison) {
    std::map<std::string, const Finding*> other;
    for (const Finding& f : comparison) other[f.rule] = &f;
    std::vector<FindingPair> out;
    auto add = [&](const Finding* a, const Finding* b) {
        FindingPair p;
        const Finding& named = a ? *a : *b;
        p.rule = named.rule;
        p.title = named.title;
        if (a) p.baseline = *a;
        if (b) p.comparison = *b;
        p.change = judge(p.baseline, p.comparison);
        out.push_back(std::move(p));
    };
    for (const Finding& f : baseline) {
        auto it = other.find(f.rule);
        add(&f, it == other.end() ? nullptr : it->second);
        if (it != other.end()) other.erase(it);
    }
    for (const Finding& f : comparison)
        if (other.count(f.rule)) add(nullptr, &f);
    return out;
}

Table findingsDiffTable(const std::vector<FindingPair>& pairs) {
    Table t("analyze_diff", "Checklist Rules");
    t.textCol("Rule");
    t.textCol("Baseline Severity");
    t.textCol("Comparison Severity");
    t.intCol("Baseline Count");
    t.intCol("Comparison Count");
    t.intCol("Baseline Time", Measure::Duration);
    t.intCol("Comparison Time", Measure::Duration);
    t.intCol("Delta", Measure::Duration);
    t.realCol("Change", Measure::Percent, 1);
    t.textCol("Verdict");
    for (const FindingPair& p : pairs) {
        const Finding &a = p.baseline, &b = p.comparison;
        if (a.count == 0 && b.count == 0) continue;
        auto w = t.row();
        w.t(p.rule).t(std::string(severityName(a.severity))).t(std::string(severityName(b.severity)));
        w.i(a.count).i(b.count).i(a.totalNs).i(b.totalNs).i(b.totalNs - a.totalNs);
        if (a.totalNs) w.r(100.0 * static_cast<double>(b.totalNs - a.totalNs) / static_cast<double>(a.totalNs));
        else w.null();
        w.t(std::string(findingChangeName(p.change)));
    }
    return t;
}

}  // namespace sl::analysis
