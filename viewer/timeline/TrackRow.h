#pragma once
// A row of timed events from one track (lanes stacked by nesting depth) or, as a summary row,
// from several tracks overlaid in one lane ("All kernels" of a GPU). Rendering cost depends on
// the pixel width, not the event count: layoutLane() folds sub-pixel events into "N events"
// items, and a fold wider than a few pixels is drawn per pixel from queryBuckets(): the color
// of the fold's longest event, the opacity of each pixel's busy fraction. A lane of a row of
// its own is one strip of pixel columns plus a box per event wide enough for a label (at most
// a few dozen), whatever the zoom. CPU samples (instants
// without a duration to weigh) draw each pixel opaque in the leaf-function color of its first
// sample.
#include <vector>

#include "model/core/Report.h"
#include "viewer/timeline/Row.h"

namespace sl::viewer {

class TrackRow : public Row {
public:
    static constexpr float kLaneHeight = 18;
    static constexpr float kPad = 2;
    static constexpr uint32_t kMaxLanes =
        32;  // deeper nesting is not drawn (counted in the header)
    static constexpr double kMinPixels = 2.0;  // narrower events fold
    static constexpr float kLabelMinWidth = 28;

    TrackRow(const Report& report, std::string title, std::vector<const Track*> tracks,
             bool overlay);

    // Whether lanes of rows of their own are drawn as pixel columns (the default) or, as
    // overlay rows are, one box per item and a strip per fold: the same pixels with many more
    // instances. For tests and benchmarks that compare the two; rebuild the frame after it.
    static void setLaneColumns(bool on);
    static bool laneColumns();

    float height() const override;
    void build(const RowContext& ctx, DrawList& out) const override;
    std::optional<HitInfo> hitTest(const RowContext& ctx, float x, float y) const override;
    bool isGroup() const override { return false; }
    uint32_t laneCount() const;
    const std::vector<const Track*>& tracks() const { return m_tracks; }

private:
    void buildLane(const RowContext& ctx, const Track& t, uint32_t lane, float y,
                   DrawList& out) const;
    // Draws a lane's painted pixel columns (column 0 at ctx.x; 0 is empty) as boxes and strips.
    void emitColumns(const RowContext& ctx, const std::vector<uint32_t>& columns, float y,
                     DrawList& out) const;
    // The color of a fold pixel or box covered `coverage` (0-1) by events.
    uint32_t foldColor(uint32_t color, double coverage) const;
    // The fold's pixel columns, into `laneColumns` (the lane's, column 0 at ctx.x) when given,
    // else as a strip of its own.
    void buildFold(const RowContext& ctx, const Track& t, uint32_t lane, int64_t s, int64_t e,
                   float y, uint32_t color, std::vector<uint32_t>* laneColumns,
                   DrawList& out) const;

    const Report& m_report;
    std::vector<const Track*> m_tracks;
    bool m_overlay = false;
};

}  // namespace sl::viewer
