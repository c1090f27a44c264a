#pragma once
// The plain draw list a timeline frame is made of: boxes, lines, labels and polylines in
// widget pixel coordinates (origin top-left). No OpenGL here: rows produce it, tests inspect
// it, and TimelineWidget uploads it (boxes instanced, labels with QPainter).
#include <cstdint>
#include <string>
#include <vector>

namespace sl::viewer {

struct DrawBox {
    float x = 0, y = 0, w = 0, h = 0;
    uint32_t argb = 0;  // 0xAARRGGBB
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

struct DrawList {
    std::vector<DrawBox> boxes;
    std::vector<DrawLine> lines;
    std::vector<DrawLabel> labels;
    std::vector<DrawPolyline> polylines;

    void clear() {
        boxes.clear();
        lines.clear();
        labels.clear();
        polylines.clear();
    }
    size_t memoryBytes() const;
};

}  // namespace sl::viewer
