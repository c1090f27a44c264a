#pragma once
// Outlines a compare item's instances (diff double-click) in one timeline's overlay, using
// the analysis overlay's event placement. Built per overlay rebuild from the event refs; only
// events on screen are outlined. GUI thread (no GL: tested without a display).
#include <vector>

#include "model/analysis/CorrelationIndex.h"
#include "viewer/timeline/DrawList.h"
#include "viewer/timeline/TimelineScene.h"

namespace sl::viewer {

constexpr uint32_t kInstanceColor = 0xFF00B0FF;  // light blue: unlike the selection's orange
constexpr size_t kMaxOutlinedInstances = 5000;   // beyond this outlines only clutter the view

// Appends a 2 px outline per on-screen instance; returns how many were outlined.
size_t outlineInstances(TimelineScene& scene, const TimeRange& range,
                        const std::vector<analysis::EventRef>& events, DrawList& out);

}  // namespace sl::viewer
