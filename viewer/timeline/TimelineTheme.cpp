#include "viewer/timeline/TimelineTheme.h"

#include <atomic>

namespace sl::viewer {

namespace {

constexpr TimelineTheme kLight{
    .dark = false,
    .background = 0xFFFFFFFF,
    .groupBg = 0xFFE9ECF1,
    .headerBg = 0xFFF0F2F5,
    .separator = 0xFFD5D9E0,
    .grid = 0xFFE4E7EC,
    .text = 0xFF202428,
    .rowText = 0xFF343A40,
    .dimText = 0xFF6A717B,
    .foldText = 0xFF202020,
    .metricText = 0xFF505050,
    .outline = 0xFF000000,
    .pinnedLine = 0xFF9AA3AF,
    .rangeLabel = 0xFF0D47A1,
    .cover = 0xB4FFFFFF,
    .summary = 0xFF3F6FB5,
};

// Dark: the grey steps of common dark desktop themes; text light enough for 7:1 contrast.
constexpr TimelineTheme kDark{
    .dark = true,
    .background = 0xFF1E1F22,
    .groupBg = 0xFF2B2D31,
    .headerBg = 0xFF25272B,
    .separator = 0xFF3A3D42,
    .grid = 0xFF2E3035,
    .text = 0xFFE6E8EB,
    .rowText = 0xFFD0D3D8,
    .dimText = 0xFF9AA1AB,
    .foldText = 0xFFE6E8EB,  // folds are blended onto the dark background
    .metricText = 0xFFB8BDC4,
    .outline = 0xFFFFFFFF,
    .pinnedLine = 0xFF6A717B,
    .rangeLabel = 0xFF90CAF9,
    .cover = 0xB41E1F22,
    .summary = 0xFF7FA8E0,
};

std::atomic<const TimelineTheme*> g_current{&kLight};

}  // namespace

const TimelineTheme& TimelineTheme::light() { return kLight; }
const TimelineTheme& TimelineTheme::dark_() { return kDark; }
const TimelineTheme& TimelineTheme::current() { return *g_current.load(std::memory_order_relaxed); }
void TimelineTheme::setCurrent(bool dark) {
    g_current.store(dark ? &kDark : &kLight, std::memory_order_relaxed);
}

}  // namespace sl::viewer
