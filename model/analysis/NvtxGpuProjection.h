#pragma once
// Projects NVTX ranges from the CPU onto the GPU, with nsys's rule: a GPU operation
// (kernel, memcpy, memset) belongs to an NVTX range when the CUDA API call that launched it
// (matched by correlation id within the process) lies inside the range on the same thread
// (range start <= call start and call end <= range end). The projected range spans from the
// start of the first such operation to the end of the last. Ranges with no GPU work are not
// projected. Built once from an immutable report; read-only and shareable afterwards.
#include <cstdint>
#include <vector>

#include "model/analysis/CorrelationIndex.h"
#include "model/analysis/NvtxRangeTree.h"

namespace sl::analysis {

// 32 bytes (the 32-bit fields first): a 100 M-event report projects ~12 M ranges.
struct ProjectedRange {
    uint32_t node = 0;               // NvtxRangeTree node of the range
    uint32_t gpuOps = 0;             // distinct correlation ids (launching API calls) enclosed
    uint32_t projectedChildren = 0;  // direct children that are themselves projected
    int32_t device = -1;  // the device of the first operation of the first enclosed launch
    int64_t projStart = 0, projEnd = 0;
    int64_t projDuration() const { return projEnd - projStart; }
};

class NvtxGpuProjection {
public:
    NvtxGpuProjection(const Report& report, const CorrelationIndex& correlation, const NvtxRangeTree& tree);

    // Projected ranges ordered by projected start, longer first on ties (nsys's trace order).
    const std::vector<ProjectedRange>& ranges() const { return m_ranges; }
    // The projection of a range event, or nullptr when it has no GPU work.
    const ProjectedRange* find(EventRef rangeEvent) const;

private:
    const NvtxRangeTree& m_tree;
    std::vector<ProjectedRange> m_ranges;
    std::vector<uint32_t> m_byNode;  // node -> index in m_ranges, or UINT32_MAX
};

}  // namespace sl::analysis
