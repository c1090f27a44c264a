#include "capture/cupti/CudaOptions.h"

#include "capture/common/SessionEnv.h"

#include <algorithm>
#include <charconv>
#include <iterator>

namespace sl::cuda {
namespace {

template <class T>
bool parseInt(std::string_view s, T& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

Result<uint32_t> parseFlushInterval(std::string_view text) {
    uint32_t v = 0;
    if (!parseInt(text, v))
        return makeError("--cuda-flush-interval: '" + std::string(text) +
                         "' is not a number of milliseconds");
    return v;
}

Result<bool> parseMemoryUsage(std::string_view text) {
    if (text == "true") return true;
    if (text == "false") return false;
    return makeError("--cuda-memory-usage: '" + std::string(text) + "' is not true or false");
}

Result<GraphTrace> parseGraphTrace(std::string_view text) {
    if (text == "graph") return GraphTrace::Graph;
    if (text == "node") return GraphTrace::Node;
    return makeError("--cuda-graph-trace: '" + std::string(text) + "' is not graph or node");
}

Status parseRangeEnd(std::string_view text, CudaTraceOptions& o) {
    if (text == "stop") {
        o.rangeEnd = RangeEnd::Stop;
    } else if (text == "stop-shutdown") {
        o.rangeEnd = RangeEnd::StopShutdown;
    } else if (text == "repeat") {
        o.rangeEnd = RangeEnd::Repeat;
        o.repeatCount = 0;
    } else if (text.starts_with("repeat:") && parseInt(text.substr(7), o.repeatCount) &&
               o.repeatCount > 0) {
        o.rangeEnd = RangeEnd::Repeat;
    } else if (text.starts_with("repeat-shutdown:") && parseInt(text.substr(16), o.repeatCount) &&
               o.repeatCount > 0) {
        // The module records the first N ranges; ending the program is the launcher's part.
        o.rangeEnd = RangeEnd::Repeat;
    } else {
        return makeError("--capture-range-end: '" + std::string(text) +
                         "' is not stop, stop-shutdown, repeat or repeat:N");
    }
    return {};
}

std::vector<std::pair<std::string, std::string>> CudaTraceOptions::toEnvironment() const {
    std::vector<std::pair<std::string, std::string>> e;
    e.emplace_back(env::kFlushMs, std::to_string(flushIntervalMs));
    e.emplace_back(env::kMemory, memoryUsage ? "1" : "0");
    e.emplace_back(env::kGraph, graphTrace == GraphTrace::Node ? "node" : "graph");
    e.emplace_back(env::kProfilerRange, profilerRange ? "1" : "0");
    std::string end = rangeEnd == RangeEnd::Stop           ? "stop"
                      : rangeEnd == RangeEnd::StopShutdown ? "stop-shutdown"
                                                           : "repeat";
    if (rangeEnd == RangeEnd::Repeat && repeatCount > 0) end += ":" + std::to_string(repeatCount);
    e.emplace_back(env::kRangeEnd, end);
    e.emplace_back(env::kBufferMb, std::to_string(bufferPoolMb));
    e.emplace_back(env::kAllApis, allApis ? "1" : "0");
    e.emplace_back(env::kEventTrace, eventTrace ? "1" : "0");
    return e;
}

Result<CudaTraceOptions> CudaTraceOptions::fromEnvironment(
    const std::function<const char*(const char*)>& get) {
    CudaTraceOptions o;
    auto bad = [](const char* var, const char* value) {
        return makeError(std::string(var) + "='" + value + "' is not valid");
    };
    if (const char* v = get(env::kFlushMs)) {
        if (!parseInt(std::string_view(v), o.flushIntervalMs)) return bad(env::kFlushMs, v);
    }
    if (const char* v = get(env::kMemory)) o.memoryUsage = std::string_view(v) == "1";
    if (const char* v = get(env::kGraph)) {
        auto g = parseGraphTrace(v);
        if (!g) return bad(env::kGraph, v);
        o.graphTrace = *g;
    }
    if (const char* v = get(env::kProfilerRange)) o.profilerRange = std::string_view(v) == "1";
    if (const char* v = get(env::kRangeEnd)) {
        if (!parseRangeEnd(v, o)) return bad(env::kRangeEnd, v);
    }
    if (const char* v = get(env::kAllApis)) o.allApis = std::string_view(v) == "1";
    if (const char* v = get(env::kEventTrace)) o.eventTrace = std::string_view(v) == "1";
    if (const char* v = get(env::kClock)) {
        std::string_view c(v);
        if (c != "cupti" && c != "monotonic") return bad(env::kClock, v);
        o.cuptiClock = c == "cupti";
    }
    if (const char* v = get(env::kApiRecords)) {
        std::string_view a(v);
        if (a != "activity" && a != "callbacks") return bad(env::kApiRecords, v);
        o.apiRecords = a == "activity" ? ApiRecords::Activity : ApiRecords::Callbacks;
    }
    if (const char* v = get(env::kKinds)) {
        static constexpr std::string_view kKnown[] = {"kernel", "memcpy",   "memset",
                                                      "runtime", "driver",  "sync",
                                                      "event",  "overhead", "stream"};
        std::string_view rest(v);
        while (!rest.empty()) {
            size_t comma = rest.find(',');
            std::string_view k = rest.substr(0, comma);
            if (std::find(std::begin(kKnown), std::end(kKnown), k) == std::end(kKnown))
                return bad(env::kKinds, v);
            o.kinds.emplace_back(k);
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
    }
    // The launcher's list of kinds (osrt,nvtx,cuda) for --python-backtrace, shared with the
    // preloaded module.
    if (const char* v = get(capture::env::kPythonBacktrace)) {
        for (std::string_view rest(v); !rest.empty();) {
            const size_t comma = rest.find(',');
            if (rest.substr(0, comma) == "cuda") o.pythonBacktrace = true;
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
    }
    if (const char* v = get(env::kBufferMb)) {
        if (!parseInt(std::string_view(v), o.bufferPoolMb) || o.bufferPoolMb < 8)
            return bad(env::kBufferMb, v);
    }
    return o;
}

}  // namespace sl::cuda
