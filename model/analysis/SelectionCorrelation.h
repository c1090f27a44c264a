#pragma once
// What to highlight when one event is selected: an API call -> the GPU work it launched; a GPU
// operation -> the API call that launched it (and that call's other GPU work); an NVTX range ->
// the CUDA API calls of its thread that lie inside it and the GPU work they launched. `links`
// pairs each API call with a GPU operation so the timeline can draw a line between them.
// Pure and read-only over an immutable report and its CorrelationIndex.
#include <vector>

#include "model/analysis/CorrelationIndex.h"

namespace sl::analysis {

struct CorrelatedEvents {
    std::vector<EventRef> apiCalls;  // launching calls (not the selection itself)
    std::vector<EventRef> gpuOps;    // GPU operations (not the selection itself)
    std::vector<std::pair<EventRef, EventRef>> links;  // (API call, GPU operation)
    bool truncated = false;          // more than `limit` events: the rest is left out
    bool empty() const { return apiCalls.empty() && gpuOps.empty(); }
    std::vector<EventRef> all() const;  // apiCalls then gpuOps
};

CorrelatedEvents correlatedEvents(const Report& report, const CorrelationIndex& index, EventRef selected,
                                  size_t limit = 100000);

}  // namespace sl::analysis
