#pragma once
// Tick marks of the time ruler: a 1-2-5 step chosen so labels are ~100 px apart, labelled
// relative to the session's time origin in the unit that suits the step (ns, us, ms, s).
#include <cstdint>
#include <string>
#include <vector>

namespace sl::viewer {

struct RulerTick {
    int64_t time = 0;  // absolute
    bool major = false;
    std::string label;  // empty for minor ticks
};

struct RulerTicks {
    int64_t step = 1;  // ns between minor ticks
    std::vector<RulerTick> ticks;
};

RulerTicks rulerTicks(int64_t t0, int64_t t1, int64_t origin, double widthPx,
                      double spacingPx = 100);
// "12.5 ms" with as many decimals as `step` needs.
std::string formatTickLabel(int64_t relNs, int64_t step);

}  // namespace sl::viewer
