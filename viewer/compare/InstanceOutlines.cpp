#include "viewer/compare/InstanceOutlines.h"

#include <algorithm>

#include "viewer/analysis/TimelineOverlay.h"

namespace sl::viewer {

size_t outlineInstances(TimelineScene& scene, const TimeRange& range,
                        const std::vector<analysis::EventRef>& events, DrawList& out) {
    constexpr float kW = 2;
    size_t n = 0;
    for (size_t i = 0; i < events.size() && i < kMaxOutlinedInstances; ++i) {
        const EventPlace p = placeEvent(scene, range, events[i]);
        if (p.side != EventPlace::Side::OnScreen) continue;
        const float x0 = p.x0 - kW, x1 = std::max(p.x1, p.x0 + 1) + kW;
        out.boxes.push_back({x0, p.y0 - kW, x1 - x0, kW, kInstanceColor});
        out.boxes.push_back({x0, p.y1, x1 - x0, kW, kInstanceColor});
        out.boxes.push_back({x0, p.y0, kW, p.y1 - p.y0, kInstanceColor});
        out.boxes.push_back({x1 - kW, p.y0, kW, p.y1 - p.y0, kInstanceColor});
        ++n;
    }
    return n;
}

}  // namespace sl::viewer
