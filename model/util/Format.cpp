#include "model/util/Format.h"

#include <cstdio>
#include <ctime>

namespace sl {

std::string formatDuration(int64_t ns) {
    char buf[64];
    const double v = static_cast<double>(ns);
    const double a = v < 0 ? -v : v;
    if (a < 1e3) std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
    else if (a < 1e6) std::snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
    else if (a < 1e9) std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
    else std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
    return buf;
}

std::string formatUtc(int64_t ns) {
    if (ns <= 0) return "unknown";
    std::time_t secs = static_cast<std::time_t>(ns / 1'000'000'000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    char out[96];
    std::snprintf(out, sizeof out, "%s.%03d UTC", buf, static_cast<int>((ns / 1'000'000) % 1000));
    return out;
}

std::string formatBytes(uint64_t b) {
    char buf[64];
    const double v = static_cast<double>(b);
    if (b < 1024) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
    else if (v < 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.2f KiB", v / 1024);
    else if (v < 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f MiB", v / (1024.0 * 1024));
    else std::snprintf(buf, sizeof buf, "%.2f GiB", v / (1024.0 * 1024 * 1024));
    return buf;
}

std::string formatCount(uint64_t n) {
    std::string s = std::to_string(n);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
    return s;
}

}  // namespace sl
