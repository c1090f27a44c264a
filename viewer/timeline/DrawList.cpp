#include "viewer/timeline/DrawList.h"

#include <cmath>
#include <iterator>

namespace sl::viewer {

void DrawList::beginStrip(float x, float y, float h) {
    endStrip();
    strips.push_back({x, y, h, static_cast<uint32_t>(stripPixels.size()), 0, true});
    stripOpen = true;
}

void DrawList::endStrip() {
    if (!stripOpen) return;
    stripOpen = false;
    DrawStrip& s = strips.back();
    const auto end = static_cast<uint32_t>(stripPixels.size());
    uint32_t b = s.first, e = end;
    while (e > b && (stripPixels[e - 1] >> 24) == 0) --e;
    while (b < e && (stripPixels[b] >> 24) == 0) ++b;
    if (b == e) {  // nothing to draw
        stripPixels.resize(s.first);
        strips.pop_back();
        return;
    }
    if (b > s.first) {  // drop the empty head: the strip starts later
        stripPixels.erase(stripPixels.begin() + s.first, stripPixels.begin() + b);
        s.x += static_cast<float>(b - s.first);
        e -= b - s.first;
    }
    stripPixels.resize(e);
    s.count = e - s.first;
    for (uint32_t i = s.first; i < e; ++i) {
        const uint32_t a = stripPixels[i] >> 24;
        if (a != 0 && a != 0xFF) {
            s.opaque = false;
            break;
        }
    }
}

void DrawList::beginLayer() {
    endStrip();
    layers.push_back({static_cast<uint32_t>(boxes.size()), static_cast<uint32_t>(strips.size())});
}

void DrawList::append(DrawList& other) {
    other.endStrip();
    endStrip();
    const auto boxBase = static_cast<uint32_t>(boxes.size());
    const auto stripBase = static_cast<uint32_t>(strips.size());
    for (DrawLayerStart l : other.layers)
        layers.push_back({l.firstBox + boxBase, l.firstStrip + stripBase});
    boxes.insert(boxes.end(), other.boxes.begin(), other.boxes.end());
    const auto base = static_cast<uint32_t>(stripPixels.size());
    for (DrawStrip s : other.strips) {
        s.first += base;
        strips.push_back(s);
    }
    stripPixels.insert(stripPixels.end(), other.stripPixels.begin(), other.stripPixels.end());
    lines.insert(lines.end(), other.lines.begin(), other.lines.end());
    labels.insert(labels.end(), std::make_move_iterator(other.labels.begin()),
                  std::make_move_iterator(other.labels.end()));
    polylines.insert(polylines.end(), std::make_move_iterator(other.polylines.begin()),
                     std::make_move_iterator(other.polylines.end()));
    other.clear();
}

uint32_t DrawList::stripColorAt(float px, float y) const {
    for (const DrawStrip& s : strips) {
        if (y < s.y || y >= s.y + s.h || px < s.x || px >= s.x + static_cast<float>(s.count))
            continue;
        return stripPixels[s.first + static_cast<uint32_t>(std::floor(px - s.x))];
    }
    return 0;
}

size_t DrawList::memoryBytes() const {
    size_t n = boxes.capacity() * sizeof(DrawBox) + strips.capacity() * sizeof(DrawStrip) +
               stripPixels.capacity() * sizeof(uint32_t) + lines.capacity() * sizeof(DrawLine) +
               labels.capacity() * sizeof(DrawLabel) + polylines.capacity() * sizeof(DrawPolyline) +
               layers.capacity() * sizeof(DrawLayerStart);
    for (const auto& l : labels) n += l.text.capacity();
    for (const auto& p : polylines) n += p.xy.capacity() * sizeof(float);
    return n;
}

}  // namespace sl::viewer
