#pragma once
// A loaded report: metadata entities, the string table and the event tracks. Immutable once
// built or loaded; shared across threads as std::shared_ptr<const Report>.
#include <memory>
#include <string>
#include <vector>

#include "model/core/Entities.h"
#include "model/core/StringTable.h"
#include "model/core/Track.h"

namespace sl {

class Report {
public:
    Session session;
    std::vector<Process> processes;
    std::vector<ProcessReparent> reparents;  // orphans and who adopted them
    std::vector<Thread> threads;
    std::vector<Gpu> gpus;
    std::vector<CudaContext> contexts;
    std::vector<CudaStream> streams;
    std::vector<NvtxDomain> nvtxDomains;
    std::vector<NvtxCategory> nvtxCategories;
    std::vector<MetricSeries> metricSeries;
    std::vector<KernelLaunchInfo> kernelLaunches;
    std::vector<StackFrame> stackFrames;  // referenced by callStacks
    std::vector<CallStack> callStacks;    // referenced by CPU samples (cols::CpuSample::Stack)
    std::vector<EventBacktrace> backtraces;  // sorted by key(); stacks in callStacks
    std::vector<Diagnostic> diagnostics;
    std::vector<ProgramOutput> programOutput;
    StringTable strings;
    std::vector<Track> tracks;
    // Time bounds of the events of tracks a partial read left unloaded (ReadOptions::wantTrack),
    // so that tMin, tMax and timeOrigin stay those of the whole report.
    int64_t unloadedTMin = INT64_MAX, unloadedTMax = INT64_MIN;

    std::string_view str(uint32_t id) const { return strings.get(id); }
    uint64_t eventCount() const;
    uint64_t eventCount(EventKind kind) const;
    // Earliest and latest event time over all tracks, loaded or not (0, 0 when empty).
    int64_t tMin() const;
    int64_t tMax() const;
    // The time shown as 0 on rulers: the session start when known, else the first event.
    int64_t timeOrigin() const;

    const Process* findProcess(int64_t pid) const;
    const Thread* findThread(int64_t pid, int64_t tid) const;
    const Gpu* findGpu(int32_t deviceId) const;
    const CudaStream* findStream(int64_t pid, int32_t device, uint32_t context, uint32_t stream) const;
    const NvtxDomain* findDomain(int64_t pid, uint32_t domainId) const;
    const MetricSeries* findSeries(uint32_t seriesId) const;
    const Track* findTrack(const TrackKey& key) const;
    std::vector<const Track*> tracksOfKind(EventKind kind) const;

    // "Thread 1234 (worker)", "GPU 0 stream 7", "GPU utilization (GPU 0)".
    std::string trackTitle(const Track& track) const;
    std::string threadTitle(int64_t pid, int64_t tid) const;
    std::string_view domainName(int64_t pid, uint32_t domainId) const;
    // The name nvtxNameCategory / nvtxDomainNameCategory gave; "" when none.
    std::string_view categoryName(int64_t pid, uint32_t domainId, uint32_t category) const;
    int64_t diagnosticCount(std::string_view name) const;
    // The call stack taken when this event began (--python-backtrace), or nullptr.
    const CallStack* backtraceOf(EventKind kind, int64_t pid, int64_t tid, int64_t start) const;
    // "function (libfoo.so)", or "libfoo.so+0x1a2b" for a frame whose function is unknown.
    // A Python frame ("hot (app.py:12)"): the module is a source file, the offset its line.
    std::string frameText(uint32_t frameId) const;
    bool isPythonFrame(const StackFrame& f) const;
    size_t memoryBytes() const;
};

using ReportPtr = std::shared_ptr<const Report>;

}  // namespace sl
