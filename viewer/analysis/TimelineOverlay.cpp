#include "viewer/analysis/TimelineOverlay.h"
#include "viewer/timeline/TimelineTheme.h"

#include <algorithm>
#include <cmath>

#include "model/core/LodQuery.h"
#include "viewer/timeline/TrackRow.h"

namespace sl::viewer {
namespace {

void outline(DrawList& out, float x0, float y0, float x1, float y1, float width, uint32_t argb) {
    const float w = std::max(1.0f, x1 - x0), h = y1 - y0;
    out.boxes.push_back({x0 - width, y0 - width, w + 2 * width, width, argb});
    out.boxes.push_back({x0 - width, y1, w + 2 * width, width, argb});
    out.boxes.push_back({x0 - width, y0, width, h, argb});
    out.boxes.push_back({x0 + w, y0, width, h, argb});
}

// A filled arrow head of boxes (DrawList has no triangles): a column of shrinking bars.
EdgeArrow arrow(DrawList& out, float x, float y, EventPlace::Side side, uint32_t argb,
                analysis::EventRef target) {
    constexpr float kSize = 10;
    for (int i = 0; i < static_cast<int>(kSize); ++i) {
        const float f = static_cast<float>(i), len = kSize - f;
        switch (side) {
            case EventPlace::Side::Left:
                out.boxes.push_back({x + f, y - len / 2, 1, len, argb});
                break;
            case EventPlace::Side::Right:
                out.boxes.push_back({x + kSize - 1 - f, y - len / 2, 1, len, argb});
                break;
            case EventPlace::Side::Above:
                out.boxes.push_back({x - len / 2, y + f, len, 1, argb});
                break;
            case EventPlace::Side::Below:
                out.boxes.push_back({x - len / 2, y + kSize - 1 - f, len, 1, argb});
                break;
            default:
                break;
        }
    }
    if (side == EventPlace::Side::Left || side == EventPlace::Side::Right)
        return {x - 2, y - kSize / 2 - 2, x + kSize + 2, y + kSize / 2 + 2, target};
    return {x - kSize / 2 - 2, y - 2, x + kSize / 2 + 2, y + kSize + 2, target};
}

// The layout row drawing each track: the row of exactly that track wins over summary rows
// that overlay several tracks. Built once per overlay, so placing many events stays cheap.
class RowFinder {
public:
    explicit RowFinder(TimelineScene& scene) {
        const Report& report = scene.report();
        m_rows.assign(report.tracks.size(), nullptr);
        std::vector<uint8_t> exact(report.tracks.size(), 0);
        for (const LayoutRow& lr : scene.layout()) {
            const auto* tr = dynamic_cast<const TrackRow*>(lr.row);
            if (!tr) continue;
            const bool isExact = tr->tracks().size() == 1;
            for (const Track* t : tr->tracks()) {
                const auto i = static_cast<size_t>(t - report.tracks.data());
                if (i >= m_rows.size() || (m_rows[i] && (exact[i] || !isExact))) continue;
                m_rows[i] = &lr;
                exact[i] = isExact;
            }
        }
    }
    const LayoutRow* rowOf(uint32_t track) const {
        return track < m_rows.size() ? m_rows[track] : nullptr;
    }

private:
    std::vector<const LayoutRow*> m_rows;
};

EventPlace place(TimelineScene& scene, const RowFinder& rows, const TimeRange& range,
                 analysis::EventRef e) {
    EventPlace p;
    const Report& report = scene.report();
    if (!e.valid() || e.track >= report.tracks.size() || e.index >= report.tracks[e.track].size())
        return p;
    const Track& track = report.tracks[e.track];
    const LayoutRow* best = rows.rowOf(e.track);
    if (!best) return p;
    const auto* tr = static_cast<const TrackRow*>(best->row);
    uint32_t lane = tr->laneCount() == 1 ? 0 : track.laneOf(e.index);
    lane = std::min(lane, TrackRow::kMaxLanes - 1);
    p.row = best;
    p.y0 = best->y + TrackRow::kPad + static_cast<float>(lane) * TrackRow::kLaneHeight;
    p.y1 = p.y0 + TrackRow::kLaneHeight - 1;
    const int64_t s = track.start[e.index], end = track.endAt(e.index);
    const float left = scene.eventX(), right = scene.width();
    p.x0 = std::clamp(scene.xOf(range, s), left, right);
    p.x1 = std::clamp(scene.xOf(range, end), left, right);
    if (end < range.start || (end == range.start && s < range.start))
        p.side = EventPlace::Side::Left;
    else if (s > range.end)
        p.side = EventPlace::Side::Right;
    else if (p.y1 < TimelineScene::kRulerHeight)
        p.side = EventPlace::Side::Above;
    else if (p.y0 > scene.height())
        p.side = EventPlace::Side::Below;
    else
        p.side = EventPlace::Side::OnScreen;
    return p;
}

}  // namespace

EventPlace placeEvent(TimelineScene& scene, const TimeRange& range, analysis::EventRef e) {
    return place(scene, RowFinder(scene), range, e);
}

std::vector<EdgeArrow> drawCorrelation(TimelineScene& scene, const TimeRange& range,
                                       analysis::EventRef selected,
                                       const analysis::CorrelatedEvents& related, DrawList& out) {
    // An NVTX range over a whole run can relate to 100k events: outlines are cheap, but
    // arrows and lines beyond these counts only clutter the view.
    constexpr size_t kMaxArrows = 64, kMaxLinks = 4096;
    std::vector<EdgeArrow> arrows;
    if (!selected.valid()) return arrows;
    const RowFinder rows(scene);
    const float left = scene.eventX(), right = scene.width();
    const float top = TimelineScene::kRulerHeight, bottom = scene.height();
    auto mark = [&](analysis::EventRef e, uint32_t color, float width) -> EventPlace {
        const EventPlace p = place(scene, rows, range, e);
        if (p.side != EventPlace::Side::OnScreen && p.side != EventPlace::Side::Hidden &&
            arrows.size() >= kMaxArrows)
            return p;
        switch (p.side) {
            case EventPlace::Side::OnScreen:
                outline(out, p.x0, p.y0, p.x1, p.y1, width, color);
                break;
            case EventPlace::Side::Left:
                arrows.push_back(arrow(out, left + 2, (p.y0 + p.y1) / 2, p.side, color, e));
                break;
            case EventPlace::Side::Right:
                arrows.push_back(arrow(out, right - 12, (p.y0 + p.y1) / 2, p.side, color, e));
                break;
            case EventPlace::Side::Above:
                arrows.push_back(arrow(out, (p.x0 + p.x1) / 2, top + 2, p.side, color, e));
                break;
            case EventPlace::Side::Below:
                arrows.push_back(arrow(out, (p.x0 + p.x1) / 2, bottom - 12, p.side, color, e));
                break;
            case EventPlace::Side::Hidden:
                break;
        }
        return p;
    };
    mark(selected, kSelectedColor, 2);
    // Each related event once, even when it appears in several links.
    for (const analysis::EventRef& e : related.all()) mark(e, kRelatedColor, 1);
    for (const auto& [api, op] : related.links) {
        if (out.lines.size() >= kMaxLinks) break;
        const EventPlace a = place(scene, rows, range, api), g = place(scene, rows, range, op);
        if (a.side != EventPlace::Side::OnScreen || g.side != EventPlace::Side::OnScreen) continue;
        const bool down = g.y0 >= a.y1;
        out.lines.push_back({a.x0, down ? a.y1 : a.y0, g.x0, down ? g.y0 : g.y1, kRelatedColor});
    }
    return arrows;
}

namespace {

// Cuts a lane's cover at the top its row may draw from (scrolled rows end under the pinned
// ones, as the scene cuts their events); false when nothing is left.
bool clipToRow(float top, float& y, float& h) {
    if (y + h <= top) return false;
    if (y < top) {
        h -= top - y;
        y = top;
    }
    return true;
}

}  // namespace

void dimNonMatching(TimelineScene& scene, const TimeRange& range, const std::vector<uint8_t>& mask,
                    bool hide, DrawList& out) {
    const TimelineTheme& theme = TimelineTheme::current();
    const uint32_t cover = hide ? theme.background : theme.cover;
    const size_t firstCover = out.boxes.size();
    const double nsPerPixel = scene.nsPerPixel(range);
    const float left = scene.eventX(), right = scene.width();
    std::vector<LaneItem> items;
    for (const LayoutRow& lr : scene.layout()) {
        const auto* tr = dynamic_cast<const TrackRow*>(lr.row);
        if (!tr || lr.y > scene.height() || lr.y + lr.h < TimelineScene::kRulerHeight) continue;
        const bool overlay = tr->laneCount() == 1;
        for (const Track* t : tr->tracks()) {
            if (t->name.empty()) continue;
            const uint32_t lanes = std::min(t->laneCount(), TrackRow::kMaxLanes);
            for (uint32_t l = 0; l < lanes; ++l) {
                float y = lr.y + TrackRow::kPad +
                          (overlay ? 0.0f : static_cast<float>(l) * TrackRow::kLaneHeight);
                float h = TrackRow::kLaneHeight - 1;
                if (!clipToRow(scene.visibleTop(lr), y, h)) continue;
                layoutLane(*t, l, range.start, range.end, nsPerPixel, TrackRow::kMinPixels, items);
                for (const LaneItem& it : items) {
                    if (it.count != 1) continue;
                    const uint32_t name = t->name[it.first];
                    if (name < mask.size() && mask[name]) continue;
                    const float x0 = std::clamp(scene.xOf(range, it.start), left, right);
                    const float x1 = std::clamp(scene.xOf(range, it.end), left, right);
                    out.boxes.push_back({x0, y, std::max(1.0f, x1 - x0), h, cover});
                }
            }
        }
    }
    if (hide) {  // hidden events keep no labels
        out.labels.erase(std::remove_if(out.labels.begin(), out.labels.end(),
                                        [&](const DrawLabel& l) {
                                            for (size_t k = firstCover; k < out.boxes.size(); ++k) {
                                                const DrawBox& b = out.boxes[k];
                                                if (b.y == l.y && l.x >= b.x && l.x < b.x + b.w)
                                                    return true;
                                            }
                                            return false;
                                        }),
                         out.labels.end());
    }
}

void dimSamplesOutside(TimelineScene& scene, const TimeRange& range,
                       const std::vector<uint8_t>& stackMask, DrawList& out) {
    constexpr uint32_t kCover = 0xB4FFFFFF;  // as dimNonMatching
    const double nsPerPixel = scene.nsPerPixel(range);
    const float left = scene.eventX();
    const auto columns = static_cast<int64_t>(std::ceil(scene.eventWidth()));
    for (const LayoutRow& lr : scene.layout()) {
        const auto* tr = dynamic_cast<const TrackRow*>(lr.row);
        if (!tr || lr.y > scene.height() || lr.y + lr.h < TimelineScene::kRulerHeight) continue;
        for (const Track* t : tr->tracks()) {
            if (t->key.kind != EventKind::CpuSample) continue;
            const auto& stacks = t->col<uint32_t>(cols::CpuSample::Stack);
            for (uint32_t l = 0; l < std::min(t->laneCount(), TrackRow::kMaxLanes); ++l) {
                float y = lr.y + TrackRow::kPad + static_cast<float>(l) * TrackRow::kLaneHeight;
                float h = TrackRow::kLaneHeight - 1;
                if (!clipToRow(scene.visibleTop(lr), y, h)) continue;
                const IndexRange r = t->overlapping(l, range.start, range.end);
                // Walk the visible samples once, pixel column by pixel column.
                size_t i = r.begin;
                while (i < r.end) {
                    const auto px = static_cast<int64_t>(
                        std::floor(static_cast<double>(t->start[i] - range.start) / nsPerPixel));
                    const int64_t colEnd =
                        range.start +
                        static_cast<int64_t>(std::ceil(static_cast<double>(px + 1) * nsPerPixel));
                    bool bright = false;
                    for (; i < r.end && t->start[i] < colEnd; ++i)
                        bright = bright || (stacks[i] < stackMask.size() && stackMask[stacks[i]]);
                    if (bright || px < 0 || px >= columns) continue;
                    const float x = left + static_cast<float>(px);
                    DrawBox* last = out.boxes.empty() ? nullptr : &out.boxes.back();
                    if (last && last->argb == kCover && last->y == y &&
                        std::fabs(last->x + last->w - x) < 0.01f)
                        last->w += 1;  // runs of dim columns are one box
                    else
                        out.boxes.push_back({x, y, 1, h, kCover});
                }
            }
        }
    }
}

}  // namespace sl::viewer
