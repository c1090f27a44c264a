#pragma once
// Builds the timeline's row tree from a report, in the order nsys users know:
//   Process > Thread > OS runtime, CUDA API, NVTX (per domain), NVTX marks, thread state
//   GPU > All kernels, All memory operations (summaries), NVTX projected onto the GPU,
//         CUDA memory usage, the GPU's metrics, Context > Stream > Kernels, Memcpy, Memset, Sync
//   Metrics > system-wide series
// Groups count the events below them; summary rows do not count twice.
#include <memory>

#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

namespace sl::viewer {

std::unique_ptr<Row> buildRowTree(const Report& report);

}  // namespace sl::viewer
