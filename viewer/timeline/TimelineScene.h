#pragma once
// Everything the timeline shows, without GL: the row tree's layout (headers on the left,
// pinned rows under the ruler, the rest scrolled), the frame's draw list for a visible range,
// the overlay (selection, markers, hover) and hit testing. TimelineWidget is a thin GL adapter
// over it; tests drive it directly. Called from one thread at a time (the GUI thread); build()
// runs the visible rows on a ParallelFor pool, and rows only read the report.
#include <memory>
#include <optional>
#include <vector>

#include "model/core/Report.h"
#include "viewer/timeline/DrawList.h"
#include "viewer/timeline/ParallelFor.h"
#include "viewer/timeline/Palette.h"
#include "viewer/timeline/Row.h"
#include "viewer/timeline/TimeRuler.h"
#include "viewer/timeline/ViewState.h"

namespace sl::viewer {

struct LayoutRow {
    Row* row = nullptr;
    float y = 0;  // top, in widget pixels (after scrolling)
    float h = 0;
    bool pinned = false;
};

class TimelineScene {
public:
    static constexpr float kHeaderWidth = 280;
    static constexpr float kRulerHeight = 32;
    static constexpr float kIndent = 14;

    TimelineScene(ReportPtr report, std::unique_ptr<Row> root);

    const Report& report() const { return *m_report; }
    const ReportPtr& reportPtr() const { return m_report; }
    Row& root() { return *m_root; }

    void setSize(float width, float height);
    float width() const { return m_width; }
    float height() const { return m_height; }
    float eventX() const { return kHeaderWidth; }
    float eventWidth() const { return std::max(1.0f, m_width - kHeaderWidth); }
    double nsPerPixel(const TimeRange& r) const {
        return static_cast<double>(r.span()) / eventWidth();
    }
    int64_t timeAt(const TimeRange& r, float x) const;
    float xOf(const TimeRange& r, int64_t t) const;

    // Rows: expanding, pinning and scrolling change the layout (callers rebuild the frame).
    void setExpanded(Row* row, bool expanded);
    void setPinned(Row* row, bool pinned);
    // Makes a row of the report's track `track` part of the layout when none is (its row is
    // inside a collapsed group, such as "N more threads"): expands the collapsed groups above
    // the row of exactly that track. True when it expanded something (callers rebuild).
    bool revealTrack(uint32_t track);
    void setScroll(float y);
    void invalidateLayout() { m_layoutDirty = true; }
    float scroll() const { return m_scroll; }
    // The ruler corner's note on where 0 is (the compare view aligns at NVTX ranges too);
    // callers rebuild the frame.
    void setOriginLabel(std::string text) { m_originLabel = std::move(text); }
    const std::string& originLabel() const { return m_originLabel; }
    float maxScroll() const;
    // Where a laid-out row may draw from: scrolled rows are cut under the pinned ones.
    float visibleTop(const LayoutRow& lr) const { return lr.pinned ? kRulerHeight : m_pinnedBottom; }
    const std::vector<LayoutRow>& layout();
    // The row whose rectangle contains y, with its layout entry; nullptr if none.
    const LayoutRow* rowAt(float y);

    // The frame: row backgrounds, events, headers, ruler and grid. Rebuilt on range, layout
    // or data changes only.
    void build(const TimeRange& range, DrawList& out);
    // The same with the rows built on `pool` (tests compare pools of different sizes).
    void build(const TimeRange& range, DrawList& out, ParallelFor& pool);
    // Memory kept between frames besides the caller's lists (the per-row lists).
    size_t scratchBytes() const;
    // The cheap part redrawn on hover and selection: selection, markers, hovered event.
    void buildOverlay(const TimeRange& range, const ViewState& view,
                      const std::optional<HitInfo>& hover, float mouseX, DrawList& out);
    std::optional<HitInfo> hitTest(const TimeRange& range, float x, float y);

private:
    void relayout();
    RowContext contextFor(const TimeRange& range, const LayoutRow& lr);
    // One row's part of the frame: its background, grid, events and header (any thread).
    void buildRow(const TimeRange& range, const RulerTicks& ticks, const LayoutRow& lr,
                  bool pinnedPass, DrawList& out);
    void buildHeader(const LayoutRow& lr, DrawList& out) const;
    void buildRuler(const TimeRange& range, DrawList& out) const;

    ReportPtr m_report;
    std::unique_ptr<Row> m_root;
    Palette m_palette;
    float m_width = 1, m_height = 1;
    float m_scroll = 0;
    std::string m_originLabel = "0 = session start";
    float m_contentHeight = 0;  // scrolled rows only
    float m_pinnedBottom = kRulerHeight;
    bool m_layoutDirty = true;
    std::vector<LayoutRow> m_layout;  // pinned rows first
    std::vector<DrawList> m_rowLists;  // per visible row, reused across frames
};

// The end of a report's "show everything" view. Views are half-open, [start, end): when the
// report's last event is an instant (a mark, a CPU sample, a metric point) at tMax, the view
// reaches 1 ns further so that it is drawn.
int64_t viewEnd(const Report& r);

}  // namespace sl::viewer
