#pragma once
// `sightline stats --per-rank` (issue #20): one summary report's tables of several ranks, one
// per rank, as one table. A row per name (the reports' label columns), its total time on each
// rank, and the cross-rank view: on how many ranks it ran, min, median and max of the totals,
// the slowest rank and the imbalance ((max - mean) / mean, the usual load-imbalance measure).
#include <string>
#include <vector>

#include "model/analysis/Table.h"
#include "model/core/Result.h"

namespace sl::analysis {

struct RankTable {
    int rank = 0;
    const Table* table = nullptr;  // a summary table with label (text) columns and "Total Time"
};

// The cross-rank table, sorted by the max total (the straggler first); an error when a table
// has no "Total Time" column (not a summary report). Skipped when every input was skipped.
Result<Table> crossRankTable(const std::vector<RankTable>& inputs);

}  // namespace sl::analysis
