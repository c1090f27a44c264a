#pragma once
// Which vertical scroll brings a selected event's row, and the row of the event it is linked to
// (a kernel's launching API call, an API call's first GPU operation), into view. A click must
// not move what was clicked more than needed, so the scroll changes as little as possible;
// rows pinned to the top are always visible and never need a scroll. When the two cannot both
// fit, the selection stays in view at the edge nearest its partner (the partner's edge arrow
// then points the rest of the way). GL-free: computed from the scene's layout.
#include <optional>

#include "model/analysis/SelectionCorrelation.h"
#include "viewer/analysis/TimelineOverlay.h"

namespace sl::viewer {

// The other end of the selection's first launch link; invalid when it has none.
analysis::EventRef launchPartner(analysis::EventRef selected,
                                 const analysis::CorrelatedEvents& related);

// The new scroll, or nothing when `target` (and `partner`, if given) are already visible or
// have no row. The places are those of the current scroll (placeEvent).
std::optional<float> scrollToReveal(TimelineScene& scene, const EventPlace& target,
                                    const EventPlace* partner = nullptr);

}  // namespace sl::viewer
