#include "viewer/timeline/TimeRuler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

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

namespace {

// Significant digits of a tick label: "73414706 us" has 8, "1.25 us" 3.
int labelDigits(const std::string& label) {
    int n = 0;
    bool leading = true;
    for (char c : label) {
        if (c < '0' || c > '9') {
            if (c == ' ') break;
            continue;
        }
        if (leading && c == '0') continue;
        leading = false;
        ++n;
    }
    return std::max(n, 1);
}

}  // namespace

std::string formatBaseLabel(int64_t rel, int64_t step) {
    // The unit that suits the value itself (73.4 s, not 73414706 us), exact to the step.
    const int64_t a = rel < 0 ? -rel : rel;
    const char* unit = "ns";
    int64_t div = 1;
    if (a >= 1'000'000'000) {
        unit = "s";
        div = 1'000'000'000;
    } else if (a >= 1'000'000) {
        unit = "ms";
        div = 1'000'000;
    } else if (a >= 1'000) {
        unit = "us";
        div = 1'000;
    }
    int decimals = 0;
    for (int64_t scaled = step; decimals < 9 && scaled % div != 0; scaled *= 10) ++decimals;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals,
                  static_cast<double>(rel) / static_cast<double>(div), unit);
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
    // Labels relative to the origin while they stay short; deep in a long report they would
    // read "73414706 us", so they become offsets from a base (nsys: "+73.414s" then "+200ns").
    const int64_t farthest = std::max(std::abs(t0 - origin), std::abs(t1 - origin));
    if (labelDigits(formatTickLabel(farthest / major * major, major)) > kMaxTickDigits) {
        out.base = floorDiv(t0 - origin, major) * major + origin;
        out.baseLabel = formatBaseLabel(out.base - origin, major);
    } else {
        out.base = origin;
    }
    const int64_t first = floorDiv(t0 - origin, minor) * minor + origin;
    for (int64_t t = first; t <= t1; t += minor) {
        if (t < t0) continue;
        RulerTick tick;
        tick.time = t;
        tick.major = (t - origin) % major == 0;
        if (tick.major) {
            tick.label = formatTickLabel(t - out.base, major);
            if (out.offsets()) tick.label = "+" + tick.label;
        }
        out.ticks.push_back(std::move(tick));
        if (out.ticks.size() > 10'000) break;  // never for sane widths; a guard, not a limit
    }
    return out;
}

}  // namespace sl::viewer
