#include "model/analysis/CrossRank.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace sl::analysis {

namespace {

// A row's label: its text cells joined (unit separator: never inside a name).
std::string labelOf(const Table& t, const std::vector<size_t>& textCols, size_t row) {
    std::string key;
    for (size_t c : textCols) {
        key += t.columns[c].isNull(row) ? std::string() : t.columns[c].texts[row];
        key += '\x1f';
    }
    return key;
}

double median(std::vector<int64_t> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? static_cast<double>(v[n / 2])
                 : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2.0;
}

}  // namespace

Result<Table> crossRankTable(const std::vector<RankTable>& inputs) {
    const Table* shape = nullptr;
    for (const RankTable& in : inputs)
        if (in.table && in.table->skipped.empty()) {
            shape = in.table;
            break;
        }
    if (!shape) {
        const Table* any = inputs.empty() ? nullptr : inputs.front().table;
        return Table::skip(any ? any->name + "_per_rank" : "per_rank",
                           any ? any->title + ", per rank" : "Per rank",
                           any ? any->skipped : "has no reports");
    }
    std::vector<size_t> textCols;
    for (size_t c = 0; c < shape->columns.size(); ++c)
        if (shape->columns[c].type == CellType::Text) textCols.push_back(c);
    if (shape->findColumn("Total Time") < 0 || textCols.empty())
        return makeError(shape->name + " is not a summary report (no names with a Total Time): "
                         "--per-rank needs one such as nvtx_sum, cuda_gpu_kern_sum or mpi_event_sum");

    // Totals by label and rank; labels in their first appearance's order.
    std::vector<int> ranks;
    std::map<std::string, std::map<int, int64_t>> totals;
    std::map<std::string, std::pair<const Table*, size_t>> labelRow;
    for (const RankTable& in : inputs) {
        ranks.push_back(in.rank);
        if (!in.table || !in.table->skipped.empty()) continue;
        const Table& t = *in.table;
        const int total = t.findColumn("Total Time");
        if (total < 0 || t.columns.size() != shape->columns.size())
            return makeError("the tables of " + shape->name + " differ between ranks");
        for (size_t row = 0; row < t.rowCount(); ++row) {
            const std::string key = labelOf(t, textCols, row);
            totals[key][in.rank] += t.columns[total].ints[row];
            labelRow.emplace(key, std::make_pair(&t, row));
        }
    }
    std::sort(ranks.begin(), ranks.end());

    Table out(shape->name + "_per_rank", shape->title + ", per rank");
    for (size_t c : textCols) out.textCol(shape->columns[c].name);
    out.intCol("Ranks");
    const size_t minCol = out.intCol("Min Total Time", Measure::Duration);
    out.realCol("Med Total Time", Measure::Duration, 1);
    out.intCol("Max Total Time", Measure::Duration);
    out.idCol("Slowest Rank");
    out.realCol("Imbalance", Measure::Percent, 1);
    for (int rank : ranks) out.intCol("Rank " + std::to_string(rank), Measure::Duration);
    (void)minCol;

    std::vector<int64_t> maxOf;
    for (const auto& [key, byRank] : totals) {
        const auto& [t, row] = labelRow.at(key);
        auto w = out.row();
        for (size_t c : textCols) w.t(t->columns[c].isNull(row) ? std::string() : t->columns[c].texts[row]);
        std::vector<int64_t> values;
        int slowest = byRank.begin()->first;
        for (const auto& [rank, v] : byRank) {
            values.push_back(v);
            if (v > byRank.at(slowest)) slowest = rank;
        }
        const int64_t mn = *std::min_element(values.begin(), values.end());
        const int64_t mx = *std::max_element(values.begin(), values.end());
        // Ranks where it did not run count as 0 in the mean: they waited on nothing of it.
        const double mean = static_cast<double>(std::accumulate(values.begin(), values.end(), int64_t{0})) /
                            static_cast<double>(ranks.size());
        w.i(static_cast<int64_t>(byRank.size())).i(mn).r(median(values)).i(mx).i(slowest);
        w.r(mean > 0 ? (static_cast<double>(mx) - mean) / mean * 100.0 : 0.0);
        for (int rank : ranks) {
            auto it = byRank.find(rank);
            if (it == byRank.end()) w.null(); else w.i(it->second);
        }
        maxOf.push_back(mx);
    }
    std::vector<uint32_t> order(maxOf.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return maxOf[a] > maxOf[b]; });
    out.permute(order);
    return out;
}

}  // namespace sl::analysis
