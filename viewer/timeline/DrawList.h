#pragma once
// The plain draw list a timeline frame is made of: boxes, strips, lines, labels and polylines
// in widget pixel coordinates (origin top-left). No OpenGL here: rows produce it, tests inspect
// it, and TimelineWidget uploads it (boxes and strips instanced, labels with QPainter).
#include <cstdint>
#include <string>
#include <vector>

namespace sl::viewer {

struct DrawBox {
    float x = 0, y = 0, w = 0, h = 0;
    uint32_t argb = 0;  // 0xAARRGGBB
};

// A run of one-pixel columns of one lane, each in its own color: how a fold is drawn per pixel
// (busy coverage, or a sample row's leaf colors). Column i covers [x + i, x + i + 1) x
// [y, y + h) in DrawList::stripPixels[first + i]; a column of alpha 0 stays empty. The renderer
// draws a strip as one textured quad: per-column boxes were most of a dense frame's instances,
// and a software rasterizer pays per instance (docs/viewer.md).
struct DrawStrip {
    float x = 0, y = 0, h = 0;
    uint32_t first = 0, count = 0;
    bool opaque = true;  // no column is translucent (empty ones may be)
};

struct DrawLine {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    uint32_t argb = 0;
};

// Text drawn left-aligned inside [x, x + w) and vertically centred in [y, y + h); elided to w.
struct DrawLabel {
    float x = 0, y = 0, w = 0, h = 0;
    uint32_t argb = 0;
    std::string text;
};

struct DrawPolyline {
    std::vector<float> xy;  // x0, y0, x1, y1, ...
    uint32_t argb = 0;
};

// Where a layer of a draw list starts: boxes[firstBox...] and strips[firstStrip...] up to the next
// layer's start. The renderer reorders items inside a layer (opaque first) but draws the layers
// one over the other, in order.
struct DrawLayerStart {
    uint32_t firstBox = 0, firstStrip = 0;
};

struct DrawList {
    std::vector<DrawBox> boxes;
    std::vector<DrawStrip> strips;
    std::vector<uint32_t> stripPixels;  // the strips' column colors, 0xAARRGGBB
    bool stripOpen = false;             // the last strip still takes columns
    std::vector<DrawLine> lines;
    std::vector<DrawLabel> labels;
    std::vector<DrawPolyline> polylines;
    // Layers after the first (empty: one layer). The scene's frame is one layer; what is added
    // after it (the widget's frame hook: find's opaque "hide" covers) goes into a layer on top,
    // so that it covers the lanes' strips as well as their boxes.
    std::vector<DrawLayerStart> layers;

    void clear() {
        boxes.clear();
        strips.clear();
        stripPixels.clear();
        stripOpen = false;
        lines.clear();
        labels.clear();
        polylines.clear();
        layers.clear();
    }
    // Everything added from here on is drawn over everything before.
    void beginLayer();
    // Starts a strip at x; columns are appended with addColumn() and the strip ends at the next
    // beginStrip() or endStrip(), which trims its empty columns at both ends.
    void beginStrip(float x, float y, float h);
    void addColumn(uint32_t argb) { stripPixels.push_back(argb); }
    void endStrip();
    // Moves `other`'s items to the end of this list (strips keep their columns); `other` is
    // left empty with its capacity, to be filled again.
    void append(DrawList& other);
    // The color a strip gives pixel column `px` of the lane at y, 0 where none does (tests).
    uint32_t stripColorAt(float px, float y) const;
    size_t memoryBytes() const;
};

}  // namespace sl::viewer
