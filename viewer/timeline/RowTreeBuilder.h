#pragma once
// Builds the timeline's row tree from a report, in the order nsys users know:
//   Process > Thread > OS runtime, CUDA API, NVTX (per domain), NVTX marks, thread state,
//             CPU samples
//           N more threads (collapsed) > the threads with almost no events (no NVTX or CUDA
//             API rows and under 2% of the process's events)
//   GPU > All kernels, All memory operations (summaries), NVTX projected onto the GPU,
//         CUDA memory usage, the GPU's metrics, Context > Stream > Kernels, Memcpy, Memset, Sync
//   Metrics > system-wide series
// Each GPU group comes right after the first process that used it (so it is on screen when
// a report opens), GPUs no process used after the processes.
// Groups count the events below them; summary rows do not count twice.
#include <memory>

#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

namespace sl::viewer {

class ProjectedNvtx;

// Without `projected`, GPUs get no "NVTX (projected)" row: the GUI computes the projection
// after the first frame (it costs O(n log n) over every API call and GPU operation) and adds
// the rows with addProjectedNvtxRows().
std::unique_ptr<Row> buildRowTree(const Report& report, ProjectedNvtx* projected = nullptr);
// Inserts each GPU's projected NVTX row after its summary rows. Returns how many were added.
int addProjectedNvtxRows(Row& root, ProjectedNvtx& projected);

}  // namespace sl::viewer
