#pragma once
// Tick marks of the time ruler: a 1-2-5 step chosen so labels are ~100 px apart, labelled
// relative to the session's time origin in the unit that suits the step (ns, us, ms, s).
// Labels never need more than kMaxTickDigits digits: when the origin is far away (deep zoom
// into a long report) they become offsets ("+200 ns") from a base shown once ("73.4147062 s").
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
    int64_t step = 1;  // ns between major ticks
    std::vector<RulerTick> ticks;
    int64_t base = 0;       // absolute time the labels count from (the origin unless offsets)
    std::string baseLabel;  // base relative to the origin, empty when labels are from the origin
    bool offsets() const { return !baseLabel.empty(); }
};

inline constexpr int kMaxTickDigits = 4;

RulerTicks rulerTicks(int64_t t0, int64_t t1, int64_t origin, double widthPx,
                      double spacingPx = 100);
// "12.5 ms" with as many decimals as `step` needs.
std::string formatTickLabel(int64_t relNs, int64_t step);
// "73.4147062 s": the value in the unit that suits it, exact to `step`.
std::string formatBaseLabel(int64_t relNs, int64_t step);

}  // namespace sl::viewer
