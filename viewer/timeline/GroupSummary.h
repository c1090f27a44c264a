#pragma once
// What a collapsed group (a process, a thread, a GPU, a rank) shows in its own line, so that a
// report of many processes can be read folded: per pixel column, how busy the group's rows are,
// as one color whose strength follows it. A group with CPU activity rows ("Thread state") shows
// those: the CPU time of its threads in each column, summed and capped at one CPU; other groups
// show the busiest of their rows' top lanes (kernels, NVTX ranges, OS runtime calls). Cost: one
// LOD bucket query per row per pixel column, over at most kMaxTracks rows (those with the most
// events), whatever the event count.
#include <optional>

#include "viewer/timeline/Row.h"

namespace sl::viewer {

constexpr size_t kGroupSummaryMaxTracks = 64;

// Appends the summary strip of `group` (collapsed) to `out`; nothing when it has no event rows.
void buildGroupSummary(const Row& group, const RowContext& ctx, DrawList& out);
// The tooltip of the summary's pixel column at x: the group, how busy it is there, its events.
std::optional<HitInfo> groupSummaryHit(const Row& group, const RowContext& ctx, float x);

}  // namespace sl::viewer
