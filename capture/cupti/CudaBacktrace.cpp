#include "capture/cupti/CudaBacktrace.h"

#include <charconv>

namespace sl::cuda {
namespace {

constexpr std::string_view kClassNames[] = {"kernel", "memory", "sync", "other"};

bool has(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

bool parseInt(std::string_view s, int64_t& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && out >= 0;
}

// Calls f(item) for each comma-separated item; stops at the first false.
template <class F>
bool forEachItem(std::string_view text, F f) {
    for (std::string_view rest = text; !rest.empty();) {
        const size_t comma = rest.find(',');
        if (!f(rest.substr(0, comma))) return false;
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    return true;
}

int classIndex(std::string_view name) {
    for (size_t i = 0; i < 4; ++i)
        if (kClassNames[i] == name) return static_cast<int>(i);
    return -1;
}

}  // namespace

ApiClass apiClassOf(std::string_view n) {
    // Runtime names (cudaLaunchKernel) and driver names (cuLaunchKernel_v2) alike.
    if (has(n, "Launch")) return ApiClass::Kernel;
    if (has(n, "Synchronize") || has(n, "WaitEvent") || has(n, "WaitValue") ||
        has(n, "StreamQuery") || has(n, "EventQuery"))
        return ApiClass::Sync;
    if (has(n, "Memcpy") || has(n, "Memset") || has(n, "Malloc") || has(n, "Free") ||
        has(n, "MemAlloc") || has(n, "MemHostAlloc") || has(n, "HostAlloc") ||
        has(n, "HostRegister") || has(n, "MemPrefetch") || has(n, "cuMemcpy") ||
        n.starts_with("cuMem"))
        return ApiClass::Memory;
    return ApiClass::Other;
}

bool CudaBacktraceOptions::any() const {
    for (int64_t t : thresholdNs)
        if (t >= 0) return true;
    return false;
}

std::string CudaBacktraceOptions::toEnvironment() const {
    if (!any()) return {};
    std::string out;
    for (size_t i = 0; i < 4; ++i)
        if (thresholdNs[i] >= 0)
            out += std::string(kClassNames[i]) + ":" + std::to_string(thresholdNs[i]) + ",";
    return out + "depth:" + std::to_string(depth);
}

Result<CudaBacktraceOptions> CudaBacktraceOptions::fromEnvironment(std::string_view text) {
    CudaBacktraceOptions o;
    const bool ok = forEachItem(text, [&](std::string_view item) {
        const size_t colon = item.find(':');
        if (colon == std::string_view::npos) return false;
        int64_t v = 0;
        if (!parseInt(item.substr(colon + 1), v)) return false;
        const std::string_view name = item.substr(0, colon);
        if (name == "depth") {
            if (v < 1 || v > 256) return false;
            o.depth = static_cast<uint32_t>(v);
            return true;
        }
        const int c = classIndex(name);
        if (c < 0) return false;
        o.thresholdNs[static_cast<size_t>(c)] = v;
        return true;
    });
    if (!ok) return makeError(std::string(kCudaBacktraceEnv) + "='" + std::string(text) + "' is not valid");
    return o;
}

Result<CudaBacktraceOptions> parseCudaBacktrace(std::string_view text, int64_t defaultNs,
                                                uint32_t depth) {
    CudaBacktraceOptions o;
    o.depth = depth;
    std::string why;
    const bool ok = forEachItem(text, [&](std::string_view item) {
        const size_t colon = item.find(':');
        const std::string_view name = item.substr(0, colon);
        int64_t ns = defaultNs;
        if (colon != std::string_view::npos && !parseInt(item.substr(colon + 1), ns)) {
            why = "the threshold of '" + std::string(item) + "' is not a number of nanoseconds";
            return false;
        }
        if (name == "none" || name == "false") {
            o.thresholdNs.fill(-1);
            return true;
        }
        if (name == "all" || name == "true") {
            o.thresholdNs.fill(ns);
            return true;
        }
        const int c = classIndex(name);
        if (c < 0) {
            why = "'" + std::string(name) + "' is not one of all, none, kernel, memory, sync, other";
            return false;
        }
        o.thresholdNs[static_cast<size_t>(c)] = ns;
        return true;
    });
    if (!ok) return makeError("--cudabacktrace: " + why);
    return o;
}

}  // namespace sl::cuda
