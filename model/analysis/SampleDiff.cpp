#include "model/analysis/SampleDiff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "model/analysis/StatsReports.h"

namespace sl::analysis {
namespace {

struct Shares {
    int64_t self = 0;
    double selfPct = 0, totalPct = 0;
    bool present = false;
};
using Key = std::pair<std::string, std::string>;  // function, module file name

std::string fileName(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// sample_sum's rows, keyed; `side` 0 = baseline, 1 = comparison.
void collect(const Report& r, int side, std::map<Key, Shares[2]>& out) {
    if (!hasCpuSamples(r)) return;
    const Table t = runSampleSum(r, {});
    for (size_t i = 0; i < t.rowCount(); ++i) {
        Shares& s = out[{t.columns[4].texts[i], fileName(t.columns[5].texts[i])}][side];
        // The same name in two modules of one file name (rare): add up.
        s.self += t.columns[0].ints[i];
        s.selfPct += t.columns[1].reals[i];
        s.totalPct = std::max(s.totalPct, t.columns[3].reals[i]);
        s.present = true;
    }
}

}  // namespace

bool hasCpuSamples(const Report& r) {
    return r.eventCount(EventKind::CpuSample) > 0;
}

Table diffSamplesTable(const Report& baseline, const Report& comparison) {
    Table t("samples", "CPU samples per function (self share, percentage points)");
    std::map<Key, Shares[2]> rows;
    collect(baseline, 0, rows);
    collect(comparison, 1, rows);
    std::vector<std::pair<const Key*, const Shares*>> order;
    for (const auto& [k, s] : rows) order.push_back({&k, s});
    // Largest change first; among equal changes the functions that matter most (highest self,
    // then total share on either side), then by name (the map's order, kept by the stable sort).
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        const double da = std::abs(a.second[1].selfPct - a.second[0].selfPct);
        const double db = std::abs(b.second[1].selfPct - b.second[0].selfPct);
        if (da != db) return da > db;
        const double sa = std::max(a.second[0].selfPct, a.second[1].selfPct);
        const double sb = std::max(b.second[0].selfPct, b.second[1].selfPct);
        if (sa != sb) return sa > sb;
        return std::max(a.second[0].totalPct, a.second[1].totalPct) >
               std::max(b.second[0].totalPct, b.second[1].totalPct);
    });
    t.intCol("Self Samples A");
    t.intCol("Self Samples B");
    t.realCol("Self A", Measure::Percent, 1);
    t.realCol("Self B", Measure::Percent, 1);
    t.realCol("Self Delta", Measure::Percent, 1);
    t.realCol("Total A", Measure::Percent, 1);
    t.realCol("Total B", Measure::Percent, 1);
    t.textCol("Presence");
    t.textCol("Function");
    t.textCol("Module");
    for (const auto& [k, s] : order) {
        const Shares &a = s[0], &b = s[1];
        t.row()
            .i(a.self)
            .i(b.self)
            .r(a.selfPct)
            .r(b.selfPct)
            .r(b.selfPct - a.selfPct)
            .r(a.totalPct)
            .r(b.totalPct)
            .t(a.present && b.present ? "both"
               : a.present            ? "only A"
                                      : "only B")
            .t(k->first)
            .t(k->second);
    }
    return t;
}

}  // namespace sl::analysis
