#include "viewer/timeline/DrawList.h"

namespace sl::viewer {

size_t DrawList::memoryBytes() const {
    size_t n = boxes.capacity() * sizeof(DrawBox) + lines.capacity() * sizeof(DrawLine) +
               labels.capacity() * sizeof(DrawLabel) + polylines.capacity() * sizeof(DrawPolyline);
    for (const auto& l : labels) n += l.text.capacity();
    for (const auto& p : polylines) n += p.xy.capacity() * sizeof(float);
    return n;
}

}  // namespace sl::viewer
