#pragma once
// The second contract between libsightline-inject.so (LD_PRELOADed; reads the interpreter's
// frames, PythonBacktrace.h) and libsightline-cuda.so (loaded later by the CUDA driver), for
// --python-backtrace=cuda: the CUDA module's CUPTI callback, at the entry of an API call, asks
// for the calling thread's Python stack.
//
// Why by correlation id: the call's event is made from CUPTI's activity record, whose start
// CUPTI takes itself; at the callback only the correlation id is known, the same in the record.
// The merge gives the backtrace the start of the CUDA API event of that process with that id
// (ReportBuilder::addBacktraceByCorrelation).
//
// Lookup: dlsym(RTLD_DEFAULT, kPythonBacktraceSymbol); absent (no preloaded module), no
// backtraces. The function does nothing on a thread that runs no Python or in a process whose
// interpreter's frames could not be read (the report says why, once per process).
#include <cstdint>

namespace sl::capture {

using PythonBacktraceFn = void (*)(uint32_t correlationId);
inline constexpr const char* kPythonBacktraceSymbol = "sightline_python_backtrace_cuda";

}  // namespace sl::capture
