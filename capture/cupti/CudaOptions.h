#pragma once
// CUDA trace options: what `sightline profile` passes to the CUPTI injection library through
// the environment (the traced program and its children inherit it), and their parsing. Pure:
// used by the launcher (to set), by the injection library (to read) and by tests.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/core/Result.h"

namespace sl::cuda {

namespace env {
constexpr const char* kFlushMs = "SIGHTLINE_CUDA_FLUSH_MS";  // --cuda-flush-interval
constexpr const char* kMemory = "SIGHTLINE_CUDA_MEMORY";     // --cuda-memory-usage: "1"
constexpr const char* kGraph = "SIGHTLINE_CUDA_GRAPH";       // --cuda-graph-trace: graph|node
constexpr const char* kProfilerRange = "SIGHTLINE_CUDA_PROFILER_RANGE";  // -c cudaProfilerApi: "1"
constexpr const char* kRangeEnd = "SIGHTLINE_CUDA_RANGE_END";            // --capture-range-end
constexpr const char* kBufferMb = "SIGHTLINE_CUDA_BUFFER_MB";            // CUPTI buffer pool limit
constexpr const char* kAllApis = "SIGHTLINE_CUDA_ALL_APIS";  // --cuda-trace-all-apis: "1"
constexpr const char* kEventTrace = "SIGHTLINE_CUDA_EVENTS";  // --cuda-event-trace=true: "1"
// For measuring what tracing costs (docs/cuda.md, "Overhead"), not set by the launcher:
// "cupti" leaves CUPTI on its own clock (then its timestamps are not on the capture's clock).
constexpr const char* kClock = "SIGHTLINE_CUDA_CLOCK";
// Only these activity kinds, comma-separated: kernel, memcpy, memset, runtime, driver, sync,
// event, overhead, stream (unset: all of them). runtime and driver only with API records by
// activity; API records by callbacks are made whatever this says.
constexpr const char* kKinds = "SIGHTLINE_CUDA_KINDS";
// How CUDA API calls are recorded: "callbacks" (the default: our own record at each call's exit,
// from CUPTI's API callbacks, only for the functions that are recorded) or "activity" (CUPTI's
// RUNTIME and DRIVER activity records, as before 2026-11-27). docs/cuda.md, "API records".
constexpr const char* kApiRecords = "SIGHTLINE_CUDA_API_RECORDS";
}  // namespace env

enum class GraphTrace { Graph, Node };
enum class ApiRecords { Activity, Callbacks };
// What happens at cudaProfilerStop: stop for good, stop and end the program, or start again
// at the next cudaProfilerStart (repeat[:N], N ranges at most; 0 = no limit).
enum class RangeEnd { Stop, StopShutdown, Repeat };

struct CudaTraceOptions {
    uint32_t flushIntervalMs = 0;  // 0: only when buffers fill, at cudaProfilerStop and at exit
    bool memoryUsage = false;
    GraphTrace graphTrace = GraphTrace::Graph;
    bool profilerRange = false;
    RangeEnd rangeEnd = RangeEnd::Stop;
    int repeatCount = 0;
    uint32_t bufferPoolMb = 256;
    bool allApis = false;           // --cuda-trace-all-apis: also the negligible queries
    // --cuda-event-trace=true: CUPTI's CUDA_EVENT records (where each cudaEventRecord lands on
    // its stream). Off by default: together with the SYNCHRONIZATION records they make each
    // negligible query 0.2-0.4 us slower (docs/cuda.md, "Which kinds cost").
    bool eventTrace = false;
    bool cuptiClock = false;        // SIGHTLINE_CUDA_CLOCK=cupti
    bool pythonBacktrace = false;   // --python-backtrace=cuda (SIGHTLINE_PYTHON_BACKTRACE has "cuda")
    std::vector<std::string> kinds;  // SIGHTLINE_CUDA_KINDS; empty: all
    ApiRecords apiRecords = ApiRecords::Callbacks;  // SIGHTLINE_CUDA_API_RECORDS

    // The variables to put in the traced program's environment.
    std::vector<std::pair<std::string, std::string>> toEnvironment() const;
    // From the environment (getenv-like lookup); a bad value is an error naming the variable.
    static Result<CudaTraceOptions> fromEnvironment(
        const std::function<const char*(const char*)>& get);
};

// Command-line values, with errors worded for the option.
Result<uint32_t> parseFlushInterval(std::string_view text);        // --cuda-flush-interval=MS
Result<bool> parseMemoryUsage(std::string_view text);              // --cuda-memory-usage=true|false
Result<GraphTrace> parseGraphTrace(std::string_view text);         // --cuda-graph-trace=graph|node
Status parseRangeEnd(std::string_view text, CudaTraceOptions& o);  // stop|stop-shutdown|repeat[:N]

}  // namespace sl::cuda
