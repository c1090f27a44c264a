#pragma once
// Collects metadata and events in any order and produces a finalized Report (sorted lanes,
// LOD summaries). Used by the capture merge, the importers and tests. Not thread-safe: one
// producer at a time.
#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "model/core/Events.h"
#include "model/core/Report.h"

namespace sl {

struct KernelLaunchInfoHash {
    size_t operator()(const KernelLaunchInfo& k) const noexcept;
};
struct StackFrameHash {
    size_t operator()(const StackFrame& f) const noexcept;
};
struct CallStackHash {
    size_t operator()(const CallStack& s) const noexcept;
};

class ReportBuilder {
public:
    ReportBuilder();

    // Metadata is set directly on the report under construction.
    Report& report() { return *m_report; }
    uint32_t intern(std::string_view s) { return m_report->strings.intern(s); }
    uint32_t launchId(const KernelLaunchInfo& info);
    // Interned frames and stacks (identical ones share an id). `frames` are frameId()s, leaf first.
    uint32_t frameId(const StackFrame& frame);
    uint32_t stackId(std::vector<uint32_t> frames);

    void add(const OsRuntimeCall& e);
    void add(const CudaApiCall& e);
    void add(const KernelExec& e);
    void add(const MemcpyOp& e);
    void add(const MemsetOp& e);
    void add(const SyncOp& e);
    void add(const GraphExec& e);
    void add(const NvtxRangeEvent& e);
    void add(const NvtxMarkEvent& e);
    void add(const MetricSample& e);
    void add(const CudaMemoryEvent& e);
    void add(const ThreadRunning& e);
    void add(const CuptiOverheadEvent& e);
    void add(const CpuSampleEvent& e);
    void add(const MpiCall& e);
    void add(const OpenMpConstruct& e);
    void add(const CublasCall& e);
    void add(const CudnnCall& e);
    void add(const NcclCall& e);
    // Generic: one integer per schema column of key.kind.
    void addRaw(const TrackKey& key, int64_t start, int64_t end, uint32_t name, const int64_t* extra);

    // A backtrace taken at a CUDA API call's entry, which knew the call's correlation id but not
    // its start (CUPTI times the call itself): finish() gives it the start and thread of that
    // process's CUDA API event with that id. One with no such event is left out.
    void addBacktraceByCorrelation(int64_t pid, uint32_t correlation, uint32_t stack);

    // Adds `count` to the diagnostic `name` (created with `reason` on first use).
    void addDiagnostic(std::string_view name, int64_t count, std::string_view reason, int64_t pid = 0);
    // Adds a thread/process row when none exists yet (names can be set later).
    Thread& ensureThread(int64_t pid, int64_t tid);
    Process& ensureProcess(int64_t pid);
    uint64_t eventCount() const { return m_events; }

    // Sorts and indexes every track (in parallel) and returns the report. The builder is
    // empty afterwards. `progress` gets values in [0, 1].
    std::shared_ptr<Report> finish(const std::function<void(double)>& progress = {});

private:
    Track& track(const TrackKey& key);
    void resolveCorrelatedBacktraces();

    std::unique_ptr<Report> m_report;
    std::unordered_map<TrackKey, size_t, TrackKeyHash> m_trackIndex;
    std::unordered_map<KernelLaunchInfo, uint32_t, KernelLaunchInfoHash> m_launchIndex;
    std::unordered_map<StackFrame, uint32_t, StackFrameHash> m_frameIndex;
    std::unordered_map<CallStack, uint32_t, CallStackHash> m_stackIndex;
    TrackKey m_lastKey;
    size_t m_lastTrack = SIZE_MAX;
    uint64_t m_events = 0;
    struct CorrelatedBacktrace {
        int64_t pid;
        uint32_t correlation, stack;
    };
    std::vector<CorrelatedBacktrace> m_correlatedBacktraces;
};

}  // namespace sl
