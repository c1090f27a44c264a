#pragma once
// Compares the CPU samples of two reports (a baseline and a comparison) per function: the
// share of samples whose leaf is the function (self) and of samples with it anywhere on the
// stack (total), on each side, and the change of the self share in percentage points. Shares,
// not counts, are compared: two runs rarely take the same number of samples.
#include "model/analysis/Table.h"
#include "model/core/Report.h"

namespace sl::analysis {

// Functions match by name and module file name (paths differ between machines). Rows are
// ordered by the absolute change, then name; a report without samples counts as empty.
Table diffSamplesTable(const Report& baseline, const Report& comparison);

bool hasCpuSamples(const Report& r);

}  // namespace sl::analysis
