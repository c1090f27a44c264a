#include "viewer/analysis/RowReveal.h"

#include <algorithm>

namespace sl::viewer {
namespace {

constexpr float kMargin = 8;  // keeps a revealed lane off the very edge of the rows area

bool scrolls(const EventPlace& p) {
    return p.row && !p.row->pinned;
}

}  // namespace

analysis::EventRef launchPartner(analysis::EventRef selected,
                                 const analysis::CorrelatedEvents& related) {
    for (const auto& [api, op] : related.links) {
        if (op == selected) return api;
        if (api == selected) return op;
    }
    return {};
}

std::optional<float> scrollToReveal(TimelineScene& scene, const EventPlace& target,
                                    const EventPlace* partner) {
    if (!scrolls(target) && !(partner && scrolls(*partner))) return std::nullopt;
    // The band scrolled rows are drawn in: below the pinned rows, above the bottom.
    const float top = scene.visibleTop(scrolls(target) ? *target.row : *partner->row) + kMargin;
    const float bottom = scene.height() - kMargin;
    if (bottom <= top) return std::nullopt;  // not laid out on screen yet
    float lo = 1e30f, hi = -1e30f;
    for (const EventPlace* p : {&target, partner}) {
        if (!p || !scrolls(*p)) continue;
        lo = std::min(lo, p->y0);
        hi = std::max(hi, p->y1);
    }
    // A scroll by d moves every scrolled row up by d: keep [lo, hi] inside [top, bottom].
    float d = 0;
    if (hi - lo <= bottom - top) {
        const float dMin = hi - bottom, dMax = lo - top;  // any d in [dMin, dMax] shows both
        d = std::clamp(0.0f, dMin, dMax);
    } else if (scrolls(target)) {
        // Too far apart: the selection goes to the edge on its partner's side (the bottom
        // when the partner is below), as close to it as the screen allows.
        const bool partnerBelow = partner->y0 > target.y0;
        d = partnerBelow ? target.y1 - bottom : target.y0 - top;
    }
    if (d == 0) return std::nullopt;
    return std::clamp(scene.scroll() + d, 0.0f, scene.maxScroll());
}

}  // namespace sl::viewer
