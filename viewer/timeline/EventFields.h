#pragma once
// The tooltip text of one event: its name and the key fields of its kind (grid and block of
// a kernel, bytes and direction of a copy, domain and payload of an NVTX range, CPU and the
// nearest frames of a CPU sample's call stack, peer rank and sizes of an MPI call, the construct,
// region and thread number of an OpenMP event...).
#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

namespace sl::viewer {

// Fills hit.name and hit.fields for event `i` of `track` (start/end/count are left alone).
void describeEvent(const Report& report, const Track& track, size_t i, HitInfo& hit);
// The name drawn on an event's box ("HtoD 4.00 MiB" for a copy that has no name).
std::string eventLabel(const Report& report, const Track& track, size_t i);
// An MPI call class as the tooltip names it: "point-to-point", "collective", "start/wait",
// "other".
std::string_view mpiClassLabel(MpiCallClass c);

}  // namespace sl::viewer
