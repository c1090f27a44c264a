#pragma once
// The NVTX row projected onto a GPU: each NVTX range that launched GPU work, spanning from
// the start of its first GPU operation to the end of its last (nsys's projection rule, from
// sl::analysis::NvtxGpuProjection). The projected ranges form a small Track of their own,
// drawn by a TrackRow, so folding and hit testing are the same as everywhere else.
#include <memory>

#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

namespace sl::viewer {

// Projected NVTX rows per device (nullptr entries where a device has no projected ranges).
// Empty when this build has no analysis library.
class ProjectedNvtx {
public:
    explicit ProjectedNvtx(const Report& report);
    ~ProjectedNvtx();
    // The row for a device, or nullptr (moves it out: call once per device).
    std::unique_ptr<Row> takeRow(int32_t device);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace sl::viewer
