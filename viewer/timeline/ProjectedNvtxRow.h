#pragma once
// The NVTX row projected onto a GPU: each NVTX range that launched GPU work, spanning from
// the start of its first GPU operation to the end of its last (nsys's projection rule, from
// sl::analysis::NvtxGpuProjection). The projected ranges form a small Track of their own,
// drawn by a TrackRow, so folding and hit testing are the same as everywhere else.
#include <atomic>
#include <memory>
#include <vector>

#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

namespace sl::viewer {

// Projected NVTX rows per device (nullptr entries where a device has no projected ranges).
// Empty when this build has no analysis library.
class ProjectedNvtx {
public:
    // Once `*cancel` is true (the tab closed) it stops early and projects nothing.
    explicit ProjectedNvtx(const Report& report, const std::atomic<bool>* cancel = nullptr);
    // Whether a report has anything to project (NVTX ranges and CUDA API calls) in this build.
    static bool applies(const Report& report);
    ~ProjectedNvtx();
    // The rows for a device, one per thread whose ranges launched work on it, titled
    // "NVTX (projected)" or, with several threads, "NVTX (projected): Thread <tid> (<name>)".
    // Moves them out: call once per device.
    std::vector<std::unique_ptr<Row>> takeRows(int32_t device);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace sl::viewer
