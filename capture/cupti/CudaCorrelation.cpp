#include "capture/cupti/CudaCorrelation.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace sl::cuda {

CorrelationSummary checkCorrelations(const Report& report) {
    // Step 1: sorted API correlation ids per process.
    std::unordered_map<int64_t, std::vector<uint32_t>> api;
    for (const auto& t : report.tracks) {
        if (t.key.kind != EventKind::CudaApi) continue;
        const auto& c = t.col<uint32_t>(cols::CudaApi::Correlation);
        auto& v = api[t.key.pid];
        v.insert(v.end(), c.begin(), c.end());
    }
    for (auto& [pid, v] : api) std::sort(v.begin(), v.end());
    // Step 2: look every GPU operation up.
    CorrelationSummary s;
    for (const auto& t : report.tracks) {
        int column = -1;
        switch (t.key.kind) {
            case EventKind::Kernel:
                column = cols::Kernel::Correlation;
                break;
            case EventKind::Memcpy:
                column = cols::Memcpy::Correlation;
                break;
            case EventKind::Memset:
                column = cols::Memset::Correlation;
                break;
            case EventKind::GraphTrace:
                column = cols::GraphTrace::Correlation;
                break;
            default:
                continue;
        }
        auto it = api.find(t.key.pid);
        const auto& c = t.col<uint32_t>(column);
        for (uint32_t id : c) {
            ++s.gpuOps;
            if (it != api.end() && std::binary_search(it->second.begin(), it->second.end(), id))
                ++s.matched;
            else
                ++s.unmatched;
        }
    }
    return s;
}

}  // namespace sl::cuda
