#pragma once
// --cudabacktrace=all|none|kernel|memory|sync|other[:THRESHOLD_NS][,...] (nsys): which CUDA API
// calls get the native call stack of their thread, and from what duration. Pure: parsed by the
// launcher, passed to libsightline-cuda in SIGHTLINE_CUDA_BACKTRACE, read back there.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "model/core/Result.h"

namespace sl::cuda {

// nsys's classes: kernel = launches; memory = copies, sets, allocations and frees;
// sync = synchronizations and waits (device, stream, event, context); other = the rest.
enum class ApiClass : uint8_t { Kernel = 0, Memory = 1, Sync = 2, Other = 3 };
ApiClass apiClassOf(std::string_view apiName);

struct CudaBacktraceOptions {
    std::array<int64_t, 4> thresholdNs{-1, -1, -1, -1};  // per ApiClass; -1: no stacks
    uint32_t depth = 24;                                  // frames at most

    bool any() const;
    // Whether a call of `name` that took `ns` gets a stack.
    bool wants(std::string_view name, int64_t ns) const {
        const int64_t t = thresholdNs[static_cast<size_t>(apiClassOf(name))];
        return t >= 0 && ns >= t;
    }
    // "kernel:NS,sync:NS,depth:N" (classes without stacks left out); "" when none.
    std::string toEnvironment() const;
    static Result<CudaBacktraceOptions> fromEnvironment(std::string_view text);
};

inline constexpr const char* kCudaBacktraceEnv = "SIGHTLINE_CUDA_BACKTRACE";

// The command line: --cudabacktrace's value ("true" is nsys's old spelling of all, "false" and
// "none" of none) with --cudabacktrace-threshold's value for classes given without one.
Result<CudaBacktraceOptions> parseCudaBacktrace(std::string_view text, int64_t defaultNs,
                                                uint32_t depth);

}  // namespace sl::cuda
