#pragma once
// Maps Chrome trace events onto the report model. CPU-side ranges (cpu_op, user_annotation,
// python_function, Operator, any X or B/E) become NVTX ranges on their thread, one NVTX domain
// per category; CUDA runtime/driver calls become CudaApi calls; GPU events (kernel, memcpy,
// memset, sync) go to (device, stream) tracks of the traced process, found through their
// correlation id once every event is seen; counters become metric series. What it cannot map
// is counted in diagnostics. Single-threaded.
//
// GPU events wait for their process in tracks of their own (a pending pid, KinetoGpuPlacement.cpp)
// like every other event, so a streamed import (setSpool) holds them compressed too.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/core/ReportBuilder.h"
#include "model/import/ChromeEvent.h"
#include "model/import/CorrelationPids.h"
#include "model/import/TrackSpool.h"

namespace sl {
class RepWriter;
}

namespace sl::import {

// The trace format's CPU-sample records (top-level "stackFrames" and "samples"), copied out of
// the parser's buffers.
struct ChromeStackFrame {
    std::string name, category, parent;  // parent: "" for a root
};
struct ChromeSample {
    std::optional<int64_t> pid;  // our exporter writes it; the format itself has only tid
    int64_t tid = 0, ts = 0, cpu = -1;
    std::string sf;
};

struct TraceHeader {
    std::optional<int64_t> baseTimeNs;
    std::string displayTimeUnit;
    std::string traceName;
    std::optional<int64_t> rank;
    std::optional<int64_t> schemaVersion;
    bool kinetoMarkers = false;  // deviceProperties, schemaVersion, baseTimeNanoseconds ...
    std::vector<Gpu> gpus;       // deviceProperties
    std::unordered_map<std::string, ChromeStackFrame> stackFrames;
    std::vector<ChromeSample> samples;
    int64_t badSamples = 0;  // "samples" entries without a numeric tid/ts
    // otherData.diagnostics: what the report a Sightline export came from had lost.
    std::vector<Diagnostic> diagnostics;
};

class KinetoEventMapper {
public:
    KinetoEventMapper();
    ReportBuilder& builder() { return m_b; }
    void add(const ChromeEvent& e);
    void countNotAnObject() { ++m_notObjects; }
    uint64_t eventsSeen() const { return m_seen; }
    std::shared_ptr<Report> finish(const TraceHeader& header,
                                   const std::function<void(double)>& progress);

    // Streaming: events are moved into `spool` as they accumulate (add) and written
    // by finishInto, track by track in key order. The spool must outlive the mapper's use.
    void setSpool(TrackSpool* spool) { m_spool = spool; }
    struct Streamed {
        std::shared_ptr<Report> meta;  // everything but the events
        uint64_t events = 0;
    };
    // Writes every event to `writer` (not committed: the caller commits with `meta`).
    Result<Streamed> finishInto(const TraceHeader& header, RepWriter& writer,
                                const std::function<void(double)>& progress);

    // Synthetic thread ids for GPU-side annotation rows (far above any real tid).
    static constexpr int64_t kGpuAnnotationTidBase = int64_t{1} << 40;
    static constexpr int64_t kStringIdBase = int64_t{1} << 41;
    // GPU events wait in tracks whose pid is this base plus the event's own pid field (clamped
    // to [-1, 2^40]) until their process is known.
    static constexpr int64_t kPendingPidBase = INT64_MIN / 2;
    static bool isPendingPid(int64_t pid) {
        return pid >= kPendingPidBase - 1 && pid <= kPendingPidBase + (int64_t{1} << 40);
    }

private:
    enum class GpuKind : uint8_t { Kernel, Memcpy, Memset, Sync, Annotation };
    struct PendingGpu {
        GpuKind kind;
        int64_t start, end;
        uint32_t name;
        int32_t device;
        uint32_t context, stream;
        int64_t correlation;  // -1: none
        int64_t rawPid;
        uint64_t bytes;
        uint32_t
            launch;  // Kernel: launch id; Memcpy: packed copy kinds; Memset: mem kind; Sync: type
    };
    struct Open {
        int64_t start;
        uint32_t name;
        uint32_t cat;  // interned: the parser's buffers are reused between chunks
    };

    int64_t resolveId(const ChromeId& id);
    uint32_t domainFor(std::string_view category);
    void addCpuRange(const ChromeEvent& e, int64_t pid, int64_t tid, int64_t start, int64_t end);
    void addApiCall(const ChromeEvent& e, int64_t pid, int64_t tid, ApiKind api);
    void addGpu(const ChromeEvent& e, GpuKind kind);
    void addCounter(const ChromeEvent& e, int64_t pid);
    void addInstant(const ChromeEvent& e, int64_t pid, int64_t tid);
    void addMemoryInstant(const ChromeEvent& e, int64_t pid);
    void addMetadata(const ChromeEvent& e);
    // CPU samples (KinetoSamples.cpp): instants with "sf", or the "samples" array.
    struct PendingSample {
        int64_t pid, tid, time, cpu;
        std::string sf;
    };
    void addSampleInstant(const ChromeEvent& e, int64_t pid, int64_t tid);
    void addSamples(const TraceHeader& header);
    uint32_t sampleStack(const TraceHeader& header, const std::string& sf);
    void beginEnd(const ChromeEvent& e, int64_t pid, int64_t tid);
    uint32_t seriesFor(int64_t pid, const std::string& name, const std::string& unit,
                       int32_t device);
    // GPU placement (KinetoGpuPlacement.cpp): the process of each pending GPU event.
    struct PendingTrack {
        TrackKey key;           // the pending key
        std::set<int64_t> pids;  // processes its events go to
        int64_t fallbackPid = 0;  // for events whose correlation finds no API call
    };
    Status flushGpu();
    Status planGpu(const std::vector<Track>& inMemory, std::vector<PendingTrack>& plan);
    int64_t pidOf(const PendingTrack& p, uint32_t storedCorrelation) const;
    int64_t fallbackPid(int32_t device, int64_t rawPid) const;
    void moveGpuInMemory(const std::vector<PendingTrack>& plan, const std::vector<Track>& pending);
    void addGpuAnnotations();
    void addGpuEntities(const std::vector<PendingTrack>& plan);
    Status writeTracks(RepWriter& writer, int64_t base,
                       const std::function<void(double)>& progress);
    void finishSession(const TraceHeader& header);
    void finishEntities(const TraceHeader& header);
    void noteTime(int64_t s, int64_t e);
    void diag(const std::string& name, const std::string& reason, int64_t count = 1) {
        m_b.addDiagnostic(name, count, reason);
    }

    ReportBuilder m_b;
    std::vector<PendingGpu> m_gpu;  // gpu_user_annotation events (rows of NVTX ranges)
    CorrelationPids m_corrPid;  // correlation id -> pid of its API call
    std::vector<PendingTrack> m_gpuPlan;  // streamed: the pending tracks, placed
    std::map<int32_t, int64_t> m_devicePid;  // device -> process with most correlated work
    int64_t m_busiestPid = -1;               // process with most CUDA API calls
    TrackSpool* m_spool = nullptr;
    uint64_t m_sinceDrain = 0;  // events added since the spool last looked
    std::string m_spoolError;   // the first spill that failed (finishInto reports it)
    std::map<int64_t, uint64_t> m_apiCallsPerPid;
    std::map<std::string, uint32_t, std::less<>> m_domains;  // category -> NVTX domain id
    std::set<std::pair<int64_t, uint32_t>> m_usedDomains;    // (pid, domain)
    std::set<std::pair<int64_t, int64_t>> m_threads;
    std::set<int64_t> m_cpuPids;
    std::map<std::pair<int64_t, int64_t>, std::vector<Open>> m_openB;
    std::map<std::string, int64_t, std::less<>> m_stringIds;  // string pid/tid -> synthetic id
    std::map<int64_t, std::string> m_syntheticNames;
    std::map<int64_t, std::string> m_processNames;
    std::map<std::pair<int64_t, int64_t>, std::string> m_threadNames;
    std::map<std::tuple<int64_t, std::string, std::string, int32_t>, uint32_t> m_series;
    std::map<std::pair<int64_t, int64_t>, double> m_memoryTotals;  // (pid, device) running total
    std::vector<PendingSample> m_samples;
    std::unordered_map<std::string, uint32_t> m_sampleStacks;  // sf -> call stack id
    int64_t m_minTs = INT64_MAX, m_maxTs = INT64_MIN;
    int64_t m_notObjects = 0;
    uint64_t m_seen = 0;  // event objects handed to add()
    bool m_kinetoCategories = false;
};

}  // namespace sl::import
