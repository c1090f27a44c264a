#include "viewer/timeline/TimelineScene.h"

#include <algorithm>
#include <cmath>

#include "model/util/Format.h"
#include "viewer/timeline/ParallelFor.h"
#include "viewer/timeline/TimeRuler.h"
#include "viewer/timeline/TimelineTheme.h"
#include "viewer/timeline/TrackRow.h"

namespace sl::viewer {

namespace {

const TimelineTheme& theme() { return TimelineTheme::current(); }

// Cuts the items [from, end) of `v` (boxes or strips) at y = top, dropping those above it.
template <typename Item>
void clipTop(std::vector<Item>& v, size_t from, float top) {
    for (size_t i = from; i < v.size(); ++i)
        if (v[i].y < top) {
            v[i].h -= top - v[i].y;
            v[i].y = top;
        }
    v.erase(std::remove_if(v.begin() + static_cast<ptrdiff_t>(from), v.end(),
                           [](const Item& d) { return d.h <= 0; }),
            v.end());
}

}  // namespace

TimelineScene::TimelineScene(ReportPtr report, std::unique_ptr<Row> root)
    : m_report(std::move(report)), m_root(std::move(root)), m_palette(*m_report) {}

void TimelineScene::setSize(float w, float h) {
    if (w == m_width && h == m_height) return;
    m_width = std::max(1.0f, w);
    m_height = std::max(1.0f, h);
    m_layoutDirty = true;
}

int64_t TimelineScene::timeAt(const TimeRange& r, float x) const {
    return r.start + static_cast<int64_t>(std::llround((x - eventX()) * nsPerPixel(r)));
}

float TimelineScene::xOf(const TimeRange& r, int64_t t) const {
    return eventX() + static_cast<float>(static_cast<double>(t - r.start) / nsPerPixel(r));
}

void TimelineScene::setExpanded(Row* row, bool e) {
    row->setExpanded(e);
    m_layoutDirty = true;
}

bool TimelineScene::revealTrack(uint32_t track) {
    if (track >= m_report->tracks.size()) return false;
    const Track* t = &m_report->tracks[track];
    auto shows = [t](const Row& r) {
        const auto* tr = dynamic_cast<const TrackRow*>(&r);
        return tr && std::find(tr->tracks().begin(), tr->tracks().end(), t) != tr->tracks().end();
    };
    for (const LayoutRow& lr : layout())
        if (shows(*lr.row)) return false;
    // The row of exactly this track, else any row showing it (a summary).
    Row* best = nullptr;
    auto walk = [&](auto&& self, Row& r) -> void {
        for (const auto& c : r.children()) {
            if (shows(*c)) {
                const bool exact = static_cast<const TrackRow*>(c.get())->tracks().size() == 1;
                if (!best || exact) best = c.get();
                if (exact) return;
            }
            self(self, *c);
        }
    };
    walk(walk, *m_root);
    if (!best) return false;
    bool changed = false;
    for (Row* r = best->parent(); r && r != m_root.get(); r = r->parent())
        if (!r->expanded()) {
            r->setExpanded(true);
            changed = true;
        }
    if (changed) m_layoutDirty = true;
    return changed;
}

void TimelineScene::setPinned(Row* row, bool p) {
    row->setPinned(p);
    m_layoutDirty = true;
}

float TimelineScene::maxScroll() const {
    return std::max(0.0f, m_contentHeight - (m_height - m_pinnedBottom));
}

void TimelineScene::setScroll(float y) {
    layout();
    const float s = std::clamp(y, 0.0f, maxScroll());
    if (s == m_scroll) return;
    m_scroll = s;
    m_layoutDirty = true;
}

const std::vector<LayoutRow>& TimelineScene::layout() {
    if (m_layoutDirty) relayout();
    return m_layout;
}

void TimelineScene::relayout() {
    m_layoutDirty = false;
    m_layout.clear();
    // Pinned rows: a pinned row and, when it is an expanded group, its subtree.
    std::vector<LayoutRow> pinned, scrolled;
    auto walk = [&](auto&& self, Row& parent, bool underPinned) -> void {
        for (const auto& c : parent.children()) {
            const bool p = underPinned || c->pinned();
            (p ? pinned : scrolled).push_back({c.get(), 0, c->height(), p});
            if (c->expanded()) self(self, *c, p);
        }
    };
    walk(walk, *m_root, false);
    float y = kRulerHeight;
    for (auto& lr : pinned) {
        lr.y = y;
        y += lr.h;
    }
    m_pinnedBottom = y;
    m_contentHeight = 0;
    for (const auto& lr : scrolled) m_contentHeight += lr.h;
    m_scroll = std::clamp(m_scroll, 0.0f, maxScroll());
    y = m_pinnedBottom - m_scroll;
    for (auto& lr : scrolled) {
        lr.y = y;
        y += lr.h;
    }
    m_layout = std::move(pinned);
    m_layout.insert(m_layout.end(), scrolled.begin(), scrolled.end());
}

const LayoutRow* TimelineScene::rowAt(float y) {
    layout();
    if (y < kRulerHeight || y >= m_height) return nullptr;
    const bool inPinned = y < m_pinnedBottom;
    for (const LayoutRow& lr : m_layout)
        if (lr.pinned == inPinned && y >= lr.y && y < lr.y + lr.h) return &lr;
    return nullptr;
}

RowContext TimelineScene::contextFor(const TimeRange& range, const LayoutRow& lr) {
    RowContext c;
    c.t0 = range.start;
    c.t1 = range.end;
    c.nsPerPixel = nsPerPixel(range);
    c.x = eventX();
    c.width = eventWidth();
    c.y = lr.y;
    c.height = lr.h;
    c.palette = &m_palette;
    return c;
}

void TimelineScene::buildRow(const TimeRange& range, const RulerTicks& ticks,
                             const LayoutRow& lr, bool pinnedPass, DrawList& out) {
    // Plain rows show the cleared background (no box: fill rate); groups are tinted.
    if (lr.row->isGroup())
        out.boxes.push_back({eventX(), lr.y, m_width - eventX(), lr.h, theme().groupBg});
    else if (pinnedPass)
        out.boxes.push_back({eventX(), lr.y, m_width - eventX(), lr.h, theme().background});
    if (!lr.row->isGroup()) {
        for (const RulerTick& t : ticks.ticks)
            if (t.major) out.boxes.push_back({std::round(xOf(range, t.time)), lr.y, 1, lr.h, theme().grid});
    }
    lr.row->build(contextFor(range, lr), out);
    out.endStrip();
    out.boxes.push_back({0, lr.y + lr.h - 1, m_width, 1, theme().separator});
    out.boxes.push_back({0, lr.y, kHeaderWidth, lr.h - 1, lr.row->isGroup() ? theme().groupBg : theme().headerBg});
    buildHeader(lr, out);
}

void TimelineScene::buildHeader(const LayoutRow& lr, DrawList& out) const {
    const Row& r = *lr.row;
    const float indent = 4 + kIndent * static_cast<float>(std::max(0, r.depth()));
    std::string text;
    if (r.isGroup()) text = r.expanded() ? "\u25BE " : "\u25B8 ";
    text += r.title();
    const float h = std::min(lr.h, 20.0f);
    out.labels.push_back(
        {indent, lr.y, kHeaderWidth - indent - 70, h, r.isGroup() ? theme().text : theme().rowText, text});
    if (r.count() > 0)
        out.labels.push_back({kHeaderWidth - 68, lr.y, 64, h, theme().dimText, formatCount(r.count())});
    if (r.pinned()) out.labels.push_back({kHeaderWidth - 82, lr.y, 14, h, 0xFFB03A2E, "\u25CF"});
}

void TimelineScene::buildRuler(const TimeRange& range, DrawList& out) const {
    out.boxes.push_back({0, 0, m_width, kRulerHeight, theme().headerBg});
    const RulerTicks ticks =
        rulerTicks(range.start, range.end, m_report->timeOrigin(), eventWidth());
    for (const RulerTick& t : ticks.ticks) {
        const float x = std::round(xOf(range, t.time));
        out.boxes.push_back({x, t.major ? kRulerHeight - 12 : kRulerHeight - 5, 1,
                             t.major ? 12.0f : 5.0f, theme().dimText});
        if (t.major) out.labels.push_back({x + 3, 2, 110, 16, theme().text, t.label});
    }
    out.boxes.push_back({0, kRulerHeight - 1, m_width, 1, theme().separator});
    // The corner: the visible span and where 0 is, or, when the ticks are offsets ("+200 ns"),
    // the time they count from.
    out.labels.push_back(
        {6, 0, kHeaderWidth - 10, 15, theme().text, "Span " + formatDuration(range.span())});
    if (ticks.offsets())
        out.labels.push_back({6, 15, kHeaderWidth - 10, 15, theme().text, "+0 = " + ticks.baseLabel});
    else
        out.labels.push_back({6, 15, kHeaderWidth - 10, 15, theme().dimText, m_originLabel});
}

void TimelineScene::build(const TimeRange& range, DrawList& out) {
    build(range, out, ParallelFor::shared());
}

size_t TimelineScene::scratchBytes() const {
    size_t n = 0;
    for (const DrawList& l : m_rowLists) n += l.memoryBytes();
    return n;
}

void TimelineScene::build(const TimeRange& range, DrawList& out, ParallelFor& pool) {
    out.clear();
    layout();
    // The widget clears to theme().background: no full-screen box (fill rate is what llvmpipe lacks).
    const RulerTicks ticks =
        rulerTicks(range.start, range.end, m_report->timeOrigin(), eventWidth());
    // Step 1: scrolled rows that intersect the visible band; their labels never cover the
    // pinned area or the ruler.
    for (int pass = 0; pass < 2; ++pass) {
        const bool pinnedPass = pass == 1;
        if (pinnedPass && m_pinnedBottom > kRulerHeight)
            out.boxes.push_back(
                {0, kRulerHeight, m_width, m_pinnedBottom - kRulerHeight, theme().background});
        const size_t labelsBefore = out.labels.size();
        const size_t boxesBefore = out.boxes.size();
        const size_t stripsBefore = out.strips.size();
        std::vector<const LayoutRow*> rows;
        for (const LayoutRow& lr : m_layout) {
            if (lr.pinned != pinnedPass) continue;
            if (lr.y + lr.h <= (pinnedPass ? kRulerHeight : m_pinnedBottom) || lr.y >= m_height)
                continue;
            rows.push_back(&lr);
        }
        // Rows build in parallel, each into its own list, appended in order.
        if (m_rowLists.size() < rows.size()) m_rowLists.resize(rows.size());
        pool.run(rows.size(), [&](size_t k) {
            m_rowLists[k].clear();
            buildRow(range, ticks, *rows[k], pinnedPass, m_rowLists[k]);
        });
        for (size_t k = 0; k < rows.size(); ++k) out.append(m_rowLists[k]);
        if (!pinnedPass) {
            // Clip scrolled rows at the pinned area: the renderer draws translucent boxes after
            // opaque ones, so nothing may rely on a later box covering it.
            clipTop(out.boxes, boxesBefore, m_pinnedBottom);
            clipTop(out.strips, stripsBefore, m_pinnedBottom);  // columns stay, unused
            auto& l = out.labels;
            l.erase(std::remove_if(l.begin() + static_cast<ptrdiff_t>(labelsBefore), l.end(),
                                   [this](const DrawLabel& d) { return d.y < m_pinnedBottom; }),
                    l.end());
        } else if (m_pinnedBottom > kRulerHeight) {
            out.boxes.push_back({0, m_pinnedBottom - 2, m_width, 2, theme().pinnedLine});
        }
    }
    out.boxes.push_back({kHeaderWidth - 1, kRulerHeight, 1, m_height - kRulerHeight, theme().separator});
    buildRuler(range, out);
    // What callers add to the frame (the find bar's covers, opaque when they hide) is drawn
    // over it: over the lanes' strips too, which the renderer draws after a layer's boxes.
    out.beginLayer();
}

void TimelineScene::buildOverlay(const TimeRange& range, const ViewState& view,
                                 const std::optional<HitInfo>& hover, float mouseX, DrawList& out) {
    out.clear();
    const float left = eventX(), right = m_width;
    auto clampX = [&](float x) { return std::clamp(x, left, right); };
    if (view.hasSelection()) {
        const TimeRange s = view.selection();
        const float x0 = clampX(xOf(range, s.start)), x1 = clampX(xOf(range, s.end));
        if (x1 > x0)
            out.boxes.push_back(
                {x0, kRulerHeight, std::max(1.0f, x1 - x0), m_height - kRulerHeight, 0x3C1E88E5});
        out.boxes.push_back({x0, 0, std::max(1.0f, x1 - x0), kRulerHeight, 0x801E88E5});
        out.labels.push_back({x0 + 3, kRulerHeight - 16, std::max(120.0f, x1 - x0), 14, theme().rangeLabel,
                              formatDuration(s.span())});
    }
    for (int64_t m : view.markers()) {
        const float x = xOf(range, m);
        if (x < left || x > right) continue;
        out.boxes.push_back({std::round(x), 0, 1, m_height, 0xFFE53935});
    }
    if (hover && hover->end >= range.start && hover->start <= range.end && hover->track) {
        // An outline around the hovered event, and its extent on the ruler.
        const float x0 = clampX(xOf(range, hover->start)), x1 = clampX(xOf(range, hover->end));
        const float w = std::max(1.0f, x1 - x0), y0 = hover->y0, h = hover->y1 - hover->y0;
        out.boxes.push_back({x0, kRulerHeight - 3, w, 3, theme().outline});
        if (h > 0) {
            out.boxes.push_back({x0 - 1, y0, w + 2, 1, theme().outline});
            out.boxes.push_back({x0 - 1, y0 + h - 1, w + 2, 1, theme().outline});
            out.boxes.push_back({x0 - 1, y0, 1, h, theme().outline});
            out.boxes.push_back({x0 + w, y0, 1, h, theme().outline});
        }
    }
    if (mouseX >= left && mouseX <= right)
        out.boxes.push_back({std::round(mouseX), kRulerHeight - 12, 1, 12, theme().outline});
}

std::optional<HitInfo> TimelineScene::hitTest(const TimeRange& range, float x, float y) {
    if (x < eventX()) return std::nullopt;
    const LayoutRow* lr = rowAt(y);
    if (!lr) return std::nullopt;
    auto hit = lr->row->hitTest(contextFor(range, *lr), x, y);
    if (hit && hit->y1 <= hit->y0) {
        hit->y0 = lr->y;
        hit->y1 = lr->y + lr->h;
    }
    return hit;
}

int64_t viewEnd(const Report& r) {
    const int64_t end = r.tMax();
    for (const Track& t : r.tracks)
        if (!t.schema().hasEnd && t.size() > 0 && t.tMax == end) return end + 1;
    return end;
}

}  // namespace sl::viewer
