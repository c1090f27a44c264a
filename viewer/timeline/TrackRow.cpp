#include "viewer/timeline/TrackRow.h"
#include "viewer/timeline/TimelineTheme.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <utility>

#include "model/core/LodQuery.h"
#include "model/util/Format.h"
#include "viewer/timeline/EventFields.h"
#include "viewer/timeline/Palette.h"

namespace sl::viewer {

namespace {

uint64_t total(const std::vector<const Track*>& tracks) {
    uint64_t n = 0;
    for (const Track* t : tracks) n += t->size();
    return n;
}

// Appends a box, merging it into the previous one when they touch and share the color (long
// runs of equally busy pixels then cost one instance).
void pushBox(DrawList& out, float x, float y, float w, float h, uint32_t argb) {
    if (!out.boxes.empty()) {
        DrawBox& b = out.boxes.back();
        if (b.argb == argb && b.y == y && b.h == h && std::fabs(b.x + b.w - x) < 0.01f) {
            b.w = x + w - b.x;
            return;
        }
    }
    out.boxes.push_back({x, y, w, h, argb});
}

}  // namespace

TrackRow::TrackRow(const Report& report, std::string title, std::vector<const Track*> tracks,
                   bool overlay)
    : Row(std::move(title), total(tracks)),
      m_report(report),
      m_tracks(std::move(tracks)),
      m_overlay(overlay) {}

uint32_t TrackRow::laneCount() const {
    if (m_overlay) return 1;
    uint32_t n = 1;
    for (const Track* t : m_tracks) n = std::max(n, t->laneCount());
    return std::min(n, kMaxLanes);
}

float TrackRow::height() const {
    return static_cast<float>(laneCount()) * kLaneHeight + 2 * kPad;
}

void TrackRow::build(const RowContext& ctx, DrawList& out) const {
    for (const Track* t : m_tracks) {
        const uint32_t lanes = std::min(t->laneCount(), kMaxLanes);
        for (uint32_t l = 0; l < lanes; ++l) {
            const float y = ctx.y + kPad + (m_overlay ? 0.0f : static_cast<float>(l) * kLaneHeight);
            buildLane(ctx, *t, l, y, out);
        }
    }
}

namespace {

// The pixel columns [c0, c1) of `columns` (column 0 is pixel x = base) that a box [x0, x1)
// covers: those whose centre lies inside it, as the GL rasterizer decides for the box. A box
// that starts in the last column but covers no centre there (an instant at the view's end,
// which a box drew off-screen) gets that column.
std::pair<size_t, size_t> coveredColumns(float base, float x0, float x1, size_t columns) {
    auto column = [&](float x) {
        const double c = std::ceil(static_cast<double>(x) - static_cast<double>(base) - 0.5);
        return static_cast<size_t>(std::clamp(c, 0.0, static_cast<double>(columns)));
    };
    const size_t c0 = column(x0), c1 = column(x1);
    if (c0 == columns && columns > 0 && x0 < base + static_cast<float>(columns))
        return {columns - 1, columns};
    return {c0, c1};
}

std::atomic<bool> g_laneColumns{true};

// Empty columns that end a lane's strip: a longer gap is not worth rasterizing (each strip
// costs about what a box does, each column a fragment).
constexpr size_t kStripGap = 16;
// Columns of one color that are drawn as a box instead of strip columns.
constexpr size_t kBoxRun = 8;

}  // namespace

void TrackRow::setLaneColumns(bool on) {
    g_laneColumns.store(on, std::memory_order_relaxed);
}

bool TrackRow::laneColumns() {
    return g_laneColumns.load(std::memory_order_relaxed);
}

void TrackRow::buildLane(const RowContext& ctx, const Track& t, uint32_t lane, float y,
                         DrawList& out) const {
    thread_local std::vector<LaneItem> items;
    layoutLane(t, lane, ctx.t0, ctx.t1, ctx.nsPerPixel, kMinPixels, items);
    if (items.empty()) return;
    const float h = kLaneHeight - 1;
    const float right = ctx.x + ctx.width;
    // A row of its own draws its lane as pixel columns (one strip), painted item after item:
    // a later item's columns replace an earlier one's, as its box would cover it. Only events
    // wide enough for a label stay boxes (their columns are cleared, so the box shows): a
    // software rasterizer pays per instance, and a dense view had 10,000-17,000 boxes of a few
    // pixels each. Overlay rows keep boxes and a strip per fold (they are translucent).
    thread_local std::vector<uint32_t> columns;
    uint32_t* col = nullptr;
    if (!m_overlay && laneColumns()) {
        columns.assign(static_cast<size_t>(std::ceil(ctx.width)), 0);
        col = columns.data();
    }
    thread_local std::vector<std::pair<const LaneItem*, uint32_t>> folds;  // and their colors
    folds.clear();
    auto paint = [&](float x0, float w, uint32_t argb) {
        if (!col) {
            pushBox(out, x0, y, w, h, argb);
            return;
        }
        const auto [c0, c1] = coveredColumns(ctx.x, x0, x0 + w, columns.size());
        std::fill(col + c0, col + c1, argb);
    };
    for (const LaneItem& it : items) {
        const float x0 = std::max(ctx.x, ctx.xOf(it.start));
        const float x1 = std::min(right, ctx.xOf(it.end));
        const float w = std::max(1.0f, x1 - x0);
        if (it.count == 1) {
            const uint32_t c = ctx.palette->eventColor(t, it.first);
            if (w >= kLabelMinWidth) {
                if (col) {
                    // The box on whole columns, those its exact edges cover (a box edge that
                    // GL's snapping could put on either side of a pixel centre would otherwise
                    // let a neighbour's column show or hide), and cleared from the columns.
                    const auto [c0, c1] = coveredColumns(ctx.x, x0, x0 + w, columns.size());
                    std::fill(col + c0, col + c1, 0);
                    pushBox(out, ctx.x + static_cast<float>(c0), y, static_cast<float>(c1 - c0), h,
                            c);
                } else {
                    pushBox(out, x0, y, w, h, c);
                }
                if (m_tracks.size() == 1)
                    out.labels.push_back(
                        {x0 + 2, y, w - 4, h, textColorOn(c), eventLabel(m_report, t, it.first)});
            } else {
                paint(x0, w, c);
            }
            continue;
        }
        if (w < 3 && t.key.kind == EventKind::CpuSample) {
            // Samples have no duration to weigh: a tick in the color of the fold's first leaf.
            paint(x0, w, ctx.palette->eventColor(t, it.first));
            continue;
        }
        if (w < 3) {
            size_t longest = it.first;
            t.lod.longest(t, it.first, it.first + it.count, &longest);
            const double busy = static_cast<double>(it.busyNs) /
                                static_cast<double>(std::max<int64_t>(1, it.end - it.start));
            paint(
                x0, w,
                foldColor(ctx.palette->eventColor(t, longest), 0.35 + 0.65 * std::min(1.0, busy)));
            continue;
        }
        size_t longest = it.first;
        t.lod.longest(t, it.first, it.first + it.count, &longest);
        if (col)
            folds.push_back({&it, ctx.palette->eventColor(t, longest)});
        else
            buildFold(ctx, t, lane, std::max(it.start, ctx.t0), std::min(it.end, ctx.t1), y,
                      ctx.palette->eventColor(t, longest), nullptr, out);
        // Overlaid tracks would print their counts on top of each other.
        if (w >= 60 && m_tracks.size() == 1)
            out.labels.push_back(
                {x0 + 2, y, w - 4, h, TimelineTheme::current().foldText,
                 formatCount(it.count) +
                     (t.key.kind == EventKind::CpuSample ? " samples" : " events")});
    }
    if (!col) return;
    // Folds last: drawn as strips after every box, they won the pixel they share with a
    // neighbour, and the columns keep that.
    for (const auto& [it, color] : folds)
        buildFold(ctx, t, lane, std::max(it->start, ctx.t0), std::min(it->end, ctx.t1), y, color,
                  &columns, out);
    emitColumns(ctx, columns, y, out);
}

void TrackRow::emitColumns(const RowContext& ctx, const std::vector<uint32_t>& columns, float y,
                           DrawList& out) const {
    // Runs of one color at least kBoxRun columns long become boxes, the other columns strips
    // (cut at gaps of kStripGap empty columns): llvmpipe fills a box's pixels several times
    // faster than a strip's (a texture fetch each), and a strip or box costs about as much as
    // a hundred strip pixels. Boxes and strips cover disjoint columns, so their order does not
    // matter.
    const float h = kLaneHeight - 1;
    const size_t n = columns.size();
    bool open = false;
    for (size_t c = 0; c < n;) {
        const uint32_t argb = columns[c];
        size_t e = c + 1;
        while (e < n && columns[e] == argb) ++e;
        const size_t len = e - c;
        if (argb != 0 && len >= kBoxRun) {
            if (open) out.endStrip();
            open = false;
            pushBox(out, ctx.x + static_cast<float>(c), y, static_cast<float>(len), h, argb);
        } else if (argb != 0 || open) {
            if (argb == 0 && len >= kStripGap) {
                out.endStrip();
                open = false;
            } else {
                if (!open) out.beginStrip(ctx.x + static_cast<float>(c), y, h);
                open = true;
                for (size_t k = c; k < e; ++k) out.addColumn(argb);
            }
        }
        c = e;
    }
    if (open) out.endStrip();  // trims a trailing gap
}

uint32_t TrackRow::foldColor(uint32_t color, double coverage) const {
    // A row of its own has the plain background under its folds, so they are drawn opaque,
    // pre-blended (on llvmpipe a blended pixel costs several opaque ones). Overlay rows stack
    // several tracks' folds, which must stay translucent to show each other.
    return m_overlay ? withAlpha(color, coverage)
                     : blendOver(color, coverage, TimelineTheme::current().background);
}

void TrackRow::buildFold(const RowContext& ctx, const Track& t, uint32_t lane, int64_t s, int64_t e,
                         float y, uint32_t color, std::vector<uint32_t>* laneColumns,
                         DrawList& out) const {
    // One bucket per pixel column of the fold, aligned to the frame's pixel grid.
    const double px0 = std::floor(static_cast<double>(s - ctx.t0) / ctx.nsPerPixel);
    const double px1 = std::ceil(static_cast<double>(e - ctx.t0) / ctx.nsPerPixel);
    const auto n = static_cast<uint32_t>(std::max(1.0, px1 - px0));
    const int64_t b0 = ctx.t0 + static_cast<int64_t>(px0 * ctx.nsPerPixel);
    const int64_t b1 = ctx.t0 + static_cast<int64_t>(px1 * ctx.nsPerPixel);
    const bool samples = t.key.kind == EventKind::CpuSample;
    // Busy time per column for ranges; samples find their column's first sample themselves.
    thread_local std::vector<LodBucket> buckets;
    if (!samples) queryBuckets(t, lane, b0, b1, n, buckets, false);  // no per-pixel longest
    const double bucketNs = static_cast<double>(b1 - b0) / n;
    // Column b is pixel x = firstX + b; only the columns inside the event area are drawn.
    const double firstX = ctx.x + px0;
    const auto bBegin = static_cast<uint32_t>(std::clamp(
        std::floor(static_cast<double>(ctx.x) - firstX - 1) + 1, 0.0, static_cast<double>(n)));
    const auto bEnd = static_cast<uint32_t>(std::clamp(
        std::ceil(static_cast<double>(ctx.x + ctx.width) - firstX), 0.0, static_cast<double>(n)));
    // Into the lane's columns (column 0 is pixel ctx.x: b is lane column px0 + b; an empty
    // column leaves what is there), or a strip of its own.
    auto column = [&](uint32_t b, uint32_t argb) {
        if (!laneColumns) {
            out.addColumn(argb);
            return;
        }
        const double c = px0 + b;
        if (argb != 0 && c >= 0 && c < static_cast<double>(laneColumns->size()))
            (*laneColumns)[static_cast<size_t>(c)] = argb;
    };
    if (!laneColumns) out.beginStrip(static_cast<float>(firstX + bBegin), y, kLaneHeight - 1);
    for (uint32_t b = bBegin; b < bEnd; ++b) {
        if (samples) {
            // Each pixel in the leaf color of its first sample (one binary search per pixel):
            // hot functions show as bands of their color, whatever the zoom.
            const auto bs = b0 + static_cast<int64_t>(b * bucketNs);
            const IndexRange r =
                t.overlapping(lane, bs, b0 + static_cast<int64_t>((b + 1) * bucketNs));
            column(b, r.empty() ? 0 : ctx.palette->eventColor(t, r.begin));
            continue;
        }
        const LodBucket& k = buckets[b];
        if (k.count == 0) {
            column(b, 0);
            continue;
        }
        // Busy fraction in eighths: finer steps are not visible.
        const double busy =
            std::round(std::min(1.0, static_cast<double>(k.busyNs) / bucketNs) * 8) / 8;
        column(b, foldColor(color, 0.35 + 0.65 * busy));
    }
    if (!laneColumns) out.endStrip();
}

std::optional<HitInfo> TrackRow::hitTest(const RowContext& ctx, float x, float y) const {
    const float ly = y - ctx.y - kPad;
    if (ly < 0) return std::nullopt;
    const auto lane = static_cast<uint32_t>(ly / kLaneHeight);
    if (!m_overlay && lane >= laneCount()) return std::nullopt;
    const int64_t t = ctx.timeAt(x);
    const auto tol = static_cast<int64_t>(std::ceil(3 * ctx.nsPerPixel));
    const Track* best = nullptr;
    size_t bestIndex = 0, near = 0;
    int64_t bestDist = INT64_MAX;
    for (const Track* tr : m_tracks) {
        const uint32_t first = m_overlay ? 0 : lane;
        const uint32_t last =
            m_overlay ? std::min(tr->laneCount(), kMaxLanes) : std::min(lane + 1, tr->laneCount());
        for (uint32_t l = first; l < last; ++l) {
            const IndexRange r = tr->overlapping(l, t - tol, t + tol + 1);
            if (r.empty()) continue;
            near += r.size();
            // The last event starting at or before t, and its successor, are the candidates.
            auto sb = tr->start.begin() + static_cast<ptrdiff_t>(r.begin);
            auto se = tr->start.begin() + static_cast<ptrdiff_t>(r.end);
            const size_t k = static_cast<size_t>(std::upper_bound(sb, se, t) - tr->start.begin());
            for (size_t c : {k == r.begin ? r.begin : k - 1, std::min(k, r.end - 1)}) {
                const int64_t d =
                    t < tr->start[c] ? tr->start[c] - t : std::max<int64_t>(0, t - tr->endAt(c));
                if (d < bestDist) {
                    bestDist = d;
                    best = tr;
                    bestIndex = c;
                }
            }
        }
    }
    if (!best) return std::nullopt;
    HitInfo hit;
    hit.track = best;
    hit.index = bestIndex;
    hit.start = best->start[bestIndex];
    hit.end = best->endAt(bestIndex);  // its details: the one formatter, on demand (EventQueryDetails.h)
    const uint32_t bestLane = m_overlay ? 0 : lane;
    hit.y0 = ctx.y + kPad + static_cast<float>(bestLane) * kLaneHeight;
    hit.y1 = hit.y0 + kLaneHeight - 1;
    if (near > 2) hit.fields.emplace_back("Events near the mouse", formatCount(near));
    return hit;
}

}  // namespace sl::viewer
