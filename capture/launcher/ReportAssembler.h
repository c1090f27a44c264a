#pragma once
// The last step of `sightline profile`: merges the session's streams (SessionMerger) with what
// the launcher itself measured (process exits it reaped, CPU metrics, context switches, program
// output) into finished reports, one per capture window, and writes them as .rep files.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "capture/launcher/ArenaSalvage.h"
#include "capture/launcher/ProfileOptions.h"
#include "model/core/Entities.h"
#include "model/core/Result.h"

namespace sl::cuda {
class CudaCaptureSession;
}

namespace sl::capture {

class ProcSampler;
class SchedTracer;
class CpuSampler;

struct AssemblyInput {
    const ProfileOptions* options = nullptr;
    std::string sessionDir;
    // Where the arenas are, when apart from the session directory: streams written at a
    // process's end are there (ArenaSalvage.h).
    std::string arenaDir;
    // An import's copies of streams with what their arenas held (salvageArenas' copyDir): each
    // replaces the stream of its name.
    std::string copiesDir;
    int64_t startMono = 0, startUtc = 0, sessionEnd = 0;
    int64_t rootPid = 0;
    int64_t launcherPid = 0;  // the root's parent; it adopts the tree's orphans (subreaper)
    int64_t writerPid = 0;    // the process making the report, when not the launcher (DetachedFinish.h)
    // Where the tree's orphans would have gone without the profiler (the orphan probe: init or
    // a subreaper above it); 0 when not known. The report names it as their adopter, as the
    // orphans' getppid() does.
    int64_t orphanReaper = 0;
    // Where the program started (taken then: the program may remove it, and an import runs
    // elsewhere).
    std::string workingDirectory;
    std::map<int64_t, std::pair<int64_t, int>>
        exits;  // pid -> (time, wait status) reaped by the launcher
    const ProcSampler* sampler = nullptr;
    const SchedTracer* sched = nullptr;
    cuda::CudaCaptureSession* cuda = nullptr;  // GPU metrics and CUDA diagnostics (may be null)
    std::string schedProblem;
    const CpuSampler* cpuSampler = nullptr;  // -s process-tree (null when off or refused)
    std::string samplingProblem;             // why perf_event_open refused sampling
    bool cudaRequestedButUnavailable = false;
    std::vector<ProgramOutput> output;
    std::string outputPath;  // expanded; empty with defaultName
    bool defaultName = true;
    bool detached = false;  // --kill=none: the program was still running
    // Why it was left running, when not --kill=none or --wait=primary (a terminal's stop
    // signal for a program that left the terminal's session).
    std::string detachedBecause;
    // --capture-range=nvtx: the windows the traced processes opened (GateFile), in order; an end
    // of 0 means the window was still open when the program ended.
    bool gateUsed = false;
    std::vector<std::pair<int64_t, int64_t>> gateWindows;
    uint64_t gateWindowsOpened = 0;  // more than gateWindows.size() past kGateMaxWindows
    bool fromKeptSession = false;    // `sightline import SESSION-DIR`: made after the capture
    // Blocks processes could not write to their streams, as the arenas said (ArenaSalvage).
    std::vector<SalvageSummary::WriteLoss> writeLosses;
    // Set by assembleReports when a report could not be written where it was asked for (a full
    // disk, a directory that went away) and was written whole into the session directory
    // instead: the profiler's own records (CPU samples, context switches, CPU metrics, the
    // program's output) exist nowhere else.
    std::vector<std::string> writtenInstead;
};

// Returns the files written. `say` prints one progress line.
Result<std::vector<std::string>> assembleReports(
    AssemblyInput& in, const std::function<void(const std::string&)>& say);

}  // namespace sl::capture
