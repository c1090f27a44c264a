#pragma once
// The environment contract between `sightline profile` and the injection modules it loads
// into the traced processes. The launcher sets these; children inherit them (and the exec
// interposers put them back when a program execs with a cleaned environment).
namespace sl::capture::env {

constexpr const char* kSessionDir = "SIGHTLINE_SESSION_DIR";  // where stream files go
constexpr const char* kTrace = "SIGHTLINE_TRACE";             // "nvtx,osrt" (what is on)
constexpr const char* kOsrtThresholdNs = "SIGHTLINE_OSRT_THRESHOLD_NS";
constexpr const char* kTraceForkBeforeExec = "SIGHTLINE_TRACE_FORK_BEFORE_EXEC";  // "1" or "0"
constexpr const char* kBufferMb = "SIGHTLINE_BUFFER_MB";  // per-process in-flight limit
constexpr const char* kBufferKb = "SIGHTLINE_BUFFER_KB";  // size of one thread buffer
// Where the buffer arenas go (RawFormat.h, ArenaHeader); the session directory when unset.
constexpr const char* kArenaDir = "SIGHTLINE_ARENA_DIR";
constexpr const char* kLauncherPid = "SIGHTLINE_LAUNCHER_PID";
// Orphans: the launcher is the tree's subreaper, so a process whose parent ended is given to it.
// kOrphanReaper is the pid the kernel would have given it to without the profiler (init, or a
// subreaper above it; OrphanReaper.h), kRootPid the program's first process, the launcher's
// own child (set by that process itself before its exec). getppid answers with the former in
// an orphan (capture/inject/ParentInterpose.cpp).
constexpr const char* kOrphanReaper = "SIGHTLINE_ORPHAN_REAPER";
constexpr const char* kRootPid = "SIGHTLINE_ROOT_PID";
// The device of the launcher's /proc (st_dev of the /proc/self link, decimal). A process whose
// /proc is another one (its PID namespace's own) asks the launcher for its pid (PidQuery.h);
// set only while the launcher answers.
constexpr const char* kProcDevice = "SIGHTLINE_PROC_DEV";
// --capture-range=nvtx: the NVTX range that switches the capture on (GateState.h, the file
// <session>/capture.gate), and its domain ("" default, "*" any). With stop-shutdown the module
// signals the launcher (SIGUSR1) when that range ends.
constexpr const char* kCaptureRange = "SIGHTLINE_CAPTURE_RANGE";
constexpr const char* kCaptureDomain = "SIGHTLINE_CAPTURE_DOMAIN";
// --python-functions-trace: the table of functions (capture/launcher/PythonFunctionsConfig.h)
// that capture/python/sightline_pytrace.py reads; the hook's directory is first in PYTHONPATH.
constexpr const char* kPythonFunctions = "SIGHTLINE_PYTHON_FUNCTIONS";
// --python-sampling: samples per second of the hook's sampler (unset: off).
constexpr const char* kPythonSamplingHz = "SIGHTLINE_PYTHON_SAMPLING_HZ";
// --pytorch: the modes, comma-separated (unset: none).
constexpr const char* kPytorch = "SIGHTLINE_PYTORCH";
// --python-backtrace: the kinds of calls that take one ("osrt,nvtx"; unset: none). Read by the
// injected library (which calls) and the hook (which checks the layout first).
constexpr const char* kPythonBacktrace = "SIGHTLINE_PYTHON_BACKTRACE";
// --osrt-backtrace-threshold/-depth: "THRESHOLD_NS:DEPTH" (unset: OS runtime calls get no native
// stack).
constexpr const char* kOsrtBacktrace = "SIGHTLINE_OSRT_BACKTRACE";
// Every variable the exec interposers restore, in this order.
constexpr const char* kAll[] = {"LD_PRELOAD",
                                "NVTX_INJECTION64_PATH",
                                "CUDA_INJECTION64_PATH",
                                kSessionDir,
                                kTrace,
                                kOsrtThresholdNs,
                                kTraceForkBeforeExec,
                                kBufferMb,
                                kBufferKb,
                                kArenaDir,
                                kLauncherPid,
                                kOrphanReaper,
                                kRootPid,
                                kProcDevice,
                                kCaptureRange,
                                kCaptureDomain,
                                kPythonFunctions,
                                kPythonSamplingHz,
                                kPytorch,
                                kPythonBacktrace,
                                kOsrtBacktrace};

}  // namespace sl::capture::env
