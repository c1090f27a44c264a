#include "model/analysis/TimeRange.h"

#include <cmath>
#include <cstdlib>

namespace sl::analysis {

Result<int64_t> parseTimeValue(const std::string& text) {
    if (text.empty()) return makeError("empty time value");
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !std::isfinite(v)) return makeError("'" + text + "' is not a time (examples: 1500, 20us, 1.5ms, 2s)");
    const std::string unit(end);
    double scale = 0;
    if (unit.empty() || unit == "ns") scale = 1;
    else if (unit == "us") scale = 1e3;
    else if (unit == "ms") scale = 1e6;
    else if (unit == "s") scale = 1e9;
    else return makeError("'" + text + "' has an unknown unit '" + unit + "' (ns, us, ms or s)");
    const double ns = v * scale;
    if (std::fabs(ns) > 9.2e18) return makeError("'" + text + "' is out of range");
    return static_cast<int64_t>(std::llround(ns));
}

Result<std::pair<int64_t, int64_t>> parseTimeRange(const std::string& text) {
    const size_t slash = text.find('/');
    if (slash == std::string::npos) return makeError("'" + text + "' is not START/END");
    const std::string a = text.substr(0, slash), b = text.substr(slash + 1);
    std::pair<int64_t, int64_t> out{INT64_MIN, INT64_MAX};
    if (!a.empty()) {
        auto v = parseTimeValue(a);
        if (!v) return std::move(v).takeError();
        out.first = *v;
    }
    if (!b.empty()) {
        auto v = parseTimeValue(b);
        if (!v) return std::move(v).takeError();
        out.second = *v;
    }
    if (out.first > out.second) return makeError("'" + text + "': START is after END");
    return out;
}

}  // namespace sl::analysis
