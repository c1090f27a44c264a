#pragma once
// Joins GPU work to the API calls that issued it by (process, correlation id), the way the
// timeline and stats do, and counts what does not join: GPU operations without an API call
// (their call came before tracing started or was lost) are a diagnostic, not an error.
#include <cstdint>

#include "model/core/Report.h"

namespace sl::cuda {

struct CorrelationSummary {
    uint64_t gpuOps = 0;   // kernels, memcpys, memsets, graph launches
    uint64_t matched = 0;  // with an API call of the same process and correlation id
    uint64_t unmatched = 0;
};

// Works on finished and unfinished reports (track order does not matter).
CorrelationSummary checkCorrelations(const Report& report);

}  // namespace sl::cuda
