#pragma once
// The one contract between libsightline-inject.so (LD_PRELOADed, sees every way a process ends)
// and other Sightline modules loaded later (libsightline-cuda.so, loaded by the CUDA driver).
//
// Why: a module that keeps records outside its ProcessWriter buffers (CUPTI's activity buffers)
// must hand them over before the process ends. At exit() its own atexit handler does; _exit,
// exec and a signal's default action skip atexit, and only the preloaded module interposes
// those. So the preloaded module exports a registration function, and runs what was registered
// just before its own final flush.
//
// Registration: the other module looks the function up with dlsym(RTLD_DEFAULT,
// kFinalFlushRegisterSymbol) and calls it with its hook. Absent (the program runs without the
// preloaded module): nothing is registered, and atexit alone flushes.
//
// The hook: called once per way out, from the thread that is ending the process, with the
// ExitHow of RawFormat.h as an int. For ExitHow::Signal it runs inside a signal handler: it must
// only use async-signal-safe calls (hand the work to a thread of its own and wait a bounded
// time).
namespace sl::capture {

using FinalFlushHook = void (*)(int exitHow);
using FinalFlushRegisterFn = int (*)(FinalFlushHook);  // 0 on success, -1 when the table is full
inline constexpr const char* kFinalFlushRegisterSymbol = "sightline_register_final_flush";

}  // namespace sl::capture
