#include "viewer/timeline/TimeRuler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sl::viewer {

std::string formatTickLabel(int64_t rel, int64_t step) {
    const char* unit = "ns";
    double div = 1;
    // The largest unit in which the step is at least 0.1: "1.5 ms" rather than "1500 us".
    if (step >= 100'000'000) {
        unit = "s";
        div = 1e9;
    } else if (step >= 100'000) {
        unit = "ms";
        div = 1e6;
    } else if (step >= 100) {
        unit = "us";
        div = 1e3;
    }
    // Enough decimals for the step in the chosen unit; big steps in seconds need none.
    // Just enough decimals for every multiple of the step to print exactly.
    int decimals = 0;
    for (int64_t scaled = step; decimals < 9 && scaled % static_cast<int64_t>(div) != 0;
         scaled *= 10)
        ++decimals;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, static_cast<double>(rel) / div, unit);
    return buf;
}

RulerTicks rulerTicks(int64_t t0, int64_t t1, int64_t origin, double widthPx, double spacingPx) {
    RulerTicks out;
    if (t1 <= t0 || widthPx <= 0) return out;
    const double target = static_cast<double>(t1 - t0) * spacingPx / widthPx;
    int64_t major = 1;
    while (true) {
        if (static_cast<double>(major) >= target) break;
        if (static_cast<double>(major * 2) >= target) {
            major *= 2;
            break;
        }
        if (static_cast<double>(major * 5) >= target) {
            major *= 5;
            break;
        }
        major *= 10;
    }
    int64_t lead = major;
    while (lead >= 10) lead /= 10;
    const int64_t minor = std::max<int64_t>(1, major / (lead == 2 ? 4 : 5));
    out.step = major;
    // Ticks are placed on multiples of the step relative to the origin.
    auto floorDiv = [](int64_t a, int64_t b) {
        return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    };
    const int64_t first = floorDiv(t0 - origin, minor) * minor + origin;
    for (int64_t t = first; t <= t1; t += minor) {
        if (t < t0) continue;
        RulerTick tick;
        tick.time = t;
        tick.major = (t - origin) % major == 0;
        if (tick.major) tick.label = formatTickLabel(t - origin, major);
        out.ticks.push_back(std::move(tick));
        if (out.ticks.size() > 10'000) break;  // never for sane widths; a guard, not a limit
    }
    return out;
}

}  // namespace sl::viewer
