#pragma once
// The name drawn on an event's box. An event's details (tooltip, details panel, CLI) come from
// the one formatter, model/analysis/EventQueryDetails.h.
#include "model/core/Report.h"

namespace sl::viewer {

// The name drawn on an event's box ("HtoD 4.00 MiB" for a copy that has no name).
std::string eventLabel(const Report& report, const Track& track, size_t i);

}  // namespace sl::viewer
