#pragma once
// What the analysis panels add to the timeline's draw lists, computed from the scene's row
// layout without GL (so it is tested without a display): outlines on the selected event and
// on its correlated events, a line from each launching API call to its GPU work, arrows at
// the edges pointing to correlated events that are off screen (with their click rectangles,
// for jumping there), the find filter's dimming of non-matching events, and the dimming of CPU
// samples outside a function picked in the CPU sampling dock.
#include <vector>

#include "model/analysis/SelectionCorrelation.h"
#include "viewer/timeline/TimelineScene.h"

namespace sl::viewer {

// Where an event is drawn now. `row` is null when no expanded row shows its track.
struct EventPlace {
    enum class Side { OnScreen, Left, Right, Above, Below, Hidden };
    Side side = Side::Hidden;
    float x0 = 0, x1 = 0, y0 = 0, y1 = 0;  // x clamped to the event area when partly visible
    const LayoutRow* row = nullptr;
};

// A clickable edge arrow: jumping to `target` when (x, y) in [x0, x1) x [y0, y1) is clicked.
struct EdgeArrow {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    analysis::EventRef target;
    bool contains(float x, float y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
};

constexpr uint32_t kSelectedColor = 0xFFFF6F00;  // orange
constexpr uint32_t kRelatedColor = 0xFFD500F9;   // magenta

EventPlace placeEvent(TimelineScene& scene, const TimeRange& range, analysis::EventRef event);

// Appends outlines, links and arrows; returns the arrows' click rectangles.
std::vector<EdgeArrow> drawCorrelation(TimelineScene& scene, const TimeRange& range,
                                       analysis::EventRef selected,
                                       const analysis::CorrelatedEvents& related, DrawList& out);

// Covers events whose name id is 0 in `mask` with the row color at `alpha` (dim) or opaque
// (hide). Only single events are covered: a fold of several sub-pixel events stays as is.
// Kinds without a name column are left alone.
void dimNonMatching(TimelineScene& scene, const TimeRange& range, const std::vector<uint8_t>& mask,
                    bool hide, DrawList& out);

// Covers, in every visible CPU samples row, the pixel columns whose samples all have a stack
// outside `stackMask` (a flag per Report::callStacks index), at the find filter's dimming:
// the samples that pass through a function stay bright at any zoom, other rows are untouched.
// Cost: one look-up per visible sample.
void dimSamplesOutside(TimelineScene& scene, const TimeRange& range,
                       const std::vector<uint8_t>& stackMask, DrawList& out);

}  // namespace sl::viewer
