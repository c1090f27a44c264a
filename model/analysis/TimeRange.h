#pragma once
// Parses the time options of stats and export: "START/END" where each side is a number with
// an optional unit (ns default, us, ms, s), relative to the report's time origin (the
// session start, as the timeline rulers show it). Either side may be empty for "open".
#include <cstdint>
#include <string>
#include <utility>

#include "model/core/Result.h"

namespace sl::analysis {

Result<int64_t> parseTimeValue(const std::string& text);  // "1.5ms" -> 1500000
// Returns relative [start, end]; an empty side gives INT64_MIN / INT64_MAX.
Result<std::pair<int64_t, int64_t>> parseTimeRange(const std::string& text);

}  // namespace sl::analysis
