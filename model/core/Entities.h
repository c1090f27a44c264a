#pragma once
// The metadata entities of a report: everything that is not a timed event. Times are int64
// nanoseconds on the report's single clock (see Session::startMonotonicNs).
#include <cstdint>
#include <string>
#include <utility>
#include <tuple>
#include <vector>

#include "model/core/Schema.h"

namespace sl {

constexpr int64_t kUnknownTime = INT64_MIN;

struct Session {
    std::vector<std::string> argv;  // the profiled command, argv[0] first
    std::string workingDirectory;
    std::vector<std::pair<std::string, std::string>> environment;  // the subset we keep
    std::string hostName;
    std::string os;
    std::string cpuModel;
    std::string toolVersion;     // Sightline version that wrote the report
    std::string captureOptions;  // the options of the capture, as given on the command line
    std::string source;          // "capture", "nsys-sqlite", "kineto-json", "chrome-json", "generated"
    int64_t startUtcNs = 0;        // wall clock (ns since the Unix epoch) at the session start
    int64_t startMonotonicNs = kUnknownTime;  // the event clock's value at the session start
                                              // (nsys imports: 0, their times count from it)
    int64_t durationNs = 0;
};

constexpr int32_t kExitStatusUnknown = -1;

struct Process {
    int64_t pid = 0;
    int64_t parentPid = 0;
    std::string name;
    std::string commandLine;
    int64_t start = kUnknownTime;
    int64_t end = kUnknownTime;
    int32_t exitCode = 0;    // valid when exitSignal == 0 and end is known
    // The signal that ended it, 0 if none; kExitStatusUnknown when it ended (end is known) but
    // how is not: a process only the kernel's records show, reaped by one we did not trace.
    int32_t exitSignal = 0;
    // Its rank in MPI_COMM_WORLD and that communicator's size, when it called MPI_Init under
    // -t mpi (-1 and 0 otherwise).
    int32_t mpiRank = -1;
    int32_t mpiWorldSize = 0;
};

struct Thread {
    int64_t tid = 0;
    int64_t pid = 0;
    std::string name;
    int64_t start = kUnknownTime;
    int64_t end = kUnknownTime;
};

struct Gpu {
    int32_t deviceId = 0;  // the CUDA device ordinal
    std::string name;
    std::string uuid;
    std::string pciBusId;
    int32_t smCount = 0;
    int64_t memoryBytes = 0;
    int32_t computeMajor = 0;
    int32_t computeMinor = 0;
    int64_t smClockKHz = 0;
    int64_t memoryClockKHz = 0;
    int64_t memoryBandwidthBytesPerSec = 0;
};

struct CudaContext {
    int64_t pid = 0;
    int32_t deviceId = 0;
    uint32_t contextId = 0;
    std::string name;  // from nvtxNameCuContext
};

struct CudaStream {
    int64_t pid = 0;
    int32_t deviceId = 0;
    uint32_t contextId = 0;
    uint32_t streamId = 0;
    int32_t priority = 0;
    uint32_t flags = 0;
    bool isDefault = false;
    std::string name;  // from nvtxNameCuStream / nvtxNameCudaStream
};

struct NvtxDomain {
    int64_t pid = 0;
    uint32_t domainId = 0;  // 0 is the default domain
    std::string name;
};

struct NvtxCategory {
    int64_t pid = 0;
    uint32_t domainId = 0;
    uint32_t category = 0;
    std::string name;
};

struct MetricSeries {
    uint32_t seriesId = 0;
    std::string name;    // "GPU utilization", "CPU 3 user"
    std::string unit;    // "%", "bytes", "W", "MHz"
    std::string source;  // "nvml", "proc", "cupti-pm", "import"
    int32_t deviceId = -1;  // GPU the series belongs to, -1 if none
    int64_t pid = 0;        // process the series belongs to, 0 if system-wide
};

// Launch parameters of a kernel. Kernel events reference these by index: launches repeat the
// same configuration millions of times, so the events stay small.
struct KernelLaunchInfo {
    uint32_t mangledName = 0;  // string ids
    uint32_t shortName = 0;
    uint32_t grid[3] = {0, 0, 0};
    uint32_t block[3] = {0, 0, 0};
    uint32_t registersPerThread = 0;
    uint32_t staticSharedBytes = 0;
    uint32_t dynamicSharedBytes = 0;
    uint32_t localBytesPerThread = 0;
    LaunchType launchType = LaunchType::Regular;
    uint32_t graphId = 0;
    uint64_t graphNodeId = 0;
    bool operator==(const KernelLaunchInfo&) const = default;
};

// One frame of a sampled call stack: the function and the module (executable or shared
// library) it belongs to, and the instruction's offset in that module (file offset space, so
// a frame stays meaningful after the process is gone). Unresolved frames have function 0
// (the empty string) and are shown as "module+0xoffset".
struct StackFrame {
    uint32_t function = 0;  // string ids
    uint32_t module = 0;
    uint64_t offset = 0;
    bool operator==(const StackFrame&) const = default;
};

// A distinct call stack: indices into Report::stackFrames, leaf (the sampled instruction)
// first. CPU samples reference stacks by index; identical stacks are stored once.
struct CallStack {
    std::vector<uint32_t> frames;
    bool operator==(const CallStack&) const = default;
};

// The call stack taken when an event began (--python-backtrace: the Python stack of an OS
// runtime call, an NVTX push, start or mark): the event is the one of `kind` on thread
// (pid, tid) starting at `start`. Report::backtraces is sorted by (kind, pid, tid, start).
struct EventBacktrace {
    EventKind kind = EventKind::OsRuntime;
    int64_t pid = 0, tid = 0, start = 0;
    uint32_t stack = 0;  // index into Report::callStacks
    auto key() const { return std::tuple(kind, pid, tid, start); }
};

// A named counter of something that went wrong or was left out: dropped events, lost
// buffers, records skipped on import. Shown to the user; never silent.
struct Diagnostic {
    std::string name;    // "nvtx.events_dropped", "import.skipped_rows"
    int64_t count = 0;
    std::string reason;  // one sentence a user can act on
    int64_t pid = 0;     // the process it concerns, 0 for the session
    bool operator==(const Diagnostic&) const = default;
};

// A process orphaned while it ran: its parent `fromPid` ended at `time` (kUnknownTime when the
// parent's end was not seen) and `toPid` adopted it (the profiler, a subreaper, a namespace's
// init). Process::parentPid stays the real parent.
struct ProcessReparent {
    int64_t pid = 0;
    int64_t time = kUnknownTime;
    int64_t fromPid = 0;
    int64_t toPid = 0;
};

// Program output captured with --show-output.
struct ProgramOutput {
    int64_t pid = 0;
    int32_t stream = 1;  // 1 stdout, 2 stderr
    int64_t time = 0;
    std::string text;
};

}  // namespace sl
