#pragma once
// The contract between libsightline-inject.so (LD_PRELOADed; takes native stacks,
// NativeBacktrace.h) and libsightline-cuda.so, for --cudabacktrace: at the exit of a CUDA API
// call of a chosen class that took at least its threshold, the CUDA module's CUPTI callback
// asks for the calling thread's native stack, keyed by the call's correlation id as
// --python-backtrace=cuda is (PythonBacktraceHook.h: the merge gives it the start of the CUDA
// API event with that id). The frames of the CUDA module, CUPTI and the profiler above the
// program's call are left out.
//
// Lookup: dlsym(RTLD_DEFAULT, kNativeBacktraceSymbol); absent (no preloaded module), no stacks
// (the report says so).
#include <cstdint>

namespace sl::capture {

using NativeBacktraceFn = void (*)(uint32_t correlationId, uint32_t depth);
inline constexpr const char* kNativeBacktraceSymbol = "sightline_native_backtrace_cuda";

}  // namespace sl::capture
