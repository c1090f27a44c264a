#pragma once
// What `stats` and `analyze` read the same way: --filter-time/--filter-nvtx as a window of the
// report, and the -f/-o lists that pair the i-th report with the i-th format and output.
#include <string>
#include <vector>

#include "model/analysis/StatsCommon.h"
#include "model/core/Result.h"

namespace sl::cli {

// Resolves --filter-time and --filter-nvtx (either may be empty) to an absolute window.
Status applyFilters(const Report& r, const std::string& time, const std::string& nvtx, analysis::StatsOptions& o);
// -f and -o, each given once or more, each a comma-separated list: one flat list.
std::vector<std::string> flatten(const std::vector<std::string>& given);
// nsys pairs the i-th report with the i-th format and output; a shorter list repeats its last.
const std::string& nth(const std::vector<std::string>& list, size_t i, const std::string& dflt);

// --help-formats: the -f values and what each writes.
void printTableFormats();

}  // namespace sl::cli
