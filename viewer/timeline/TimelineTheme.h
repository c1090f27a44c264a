#pragma once
// The colors of the timeline's own drawing (background, headers, grid, text, selection), in a
// light and a dark variant (issue #21 item 5: the palette follows the desktop's light or dark
// scheme). Event colors (Palette.h) are the same in both: a kernel keeps its color. The
// current theme is read while draw lists are built, also on worker threads; it is changed only
// on the GUI thread between frames (a new frame then rebuilds every draw list).
#include <cstdint>

namespace sl::viewer {

struct TimelineTheme {
    bool dark;
    uint32_t background;   // event area; folds of sparse events are blended onto it
    uint32_t groupBg;      // group rows (processes, threads)
    uint32_t headerBg;     // row headers and the ruler
    uint32_t separator;
    uint32_t grid;
    uint32_t text;         // group names, ruler labels
    uint32_t rowText;      // row names
    uint32_t dimText;      // counts, minor ticks, the origin
    uint32_t foldText;     // "N events" on folds
    uint32_t metricText;   // a metric row's scale
    uint32_t outline;      // the selected event, the ruler's selection, the mouse mark
    uint32_t pinnedLine;   // under the pinned rows
    uint32_t rangeLabel;   // NVTX range names projected onto the ruler
    uint32_t cover;        // dims events that do not match a filter (ARGB, translucent)
    uint32_t summary;      // a collapsed group's activity (GroupSummary.h), blended on groupBg

    static const TimelineTheme& light();
    static const TimelineTheme& dark_();
    static const TimelineTheme& current();
    static void setCurrent(bool dark);
};

}  // namespace sl::viewer
