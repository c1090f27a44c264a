// InjectionSink over the shared capture data path (capture/common/ProcessWriter): converted CUDA
// events become generic EventRecords of this module's raw stream (<session>/cupti-<pid>-<n>.slraw),
// metadata becomes MetaRecords, and the launcher's SessionMerger turns them into the report like
// every other module's. Called with the injection's lock held (one producer at a time).
// With --capture-range=nvtx, events that start outside the capture windows are not written
// (CaptureGate::covers: CUPTI delivers records late, so the switch's state now does not apply).
#include <unistd.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/common/CaptureGate.h"
#include "capture/common/Clock.h"
#include "capture/common/ProcessWriter.h"
#include "capture/cupti/CudaStreamWriter.h"  // LaunchInfoHash, StringHash
#include "capture/cupti/inject/InjectionSink.h"
#include "model/core/EventColumns.h"

namespace sl::cuda {
namespace {

using capture::MetaKind;
using capture::ProcessWriter;

class CaptureSink final : public InjectionSink {
public:
    uint32_t intern(std::string_view s) override {
        if (s.empty()) return 0;
        resetAfterFork();
        auto it = m_strings.find(s);
        if (it != m_strings.end()) return it->second;
        uint32_t id = ProcessWriter::defineString(s);
        if (id == 0) return 0;  // dropped (counted by the writer): the event goes without a name
        m_strings.emplace(std::string(s), id);
        if (m_text.size() <= id) m_text.resize(id + 1);
        m_text[id] = std::string(s);
        return id;
    }

    // The columns of each kind come from model/core/EventColumns.h, as the ReportBuilder's.
    void add(const CudaApiCall& e) override {
        if (!capture::CaptureGate::covers(e.start)) return;
        emit(e, e.tid, e.start, e.end, e.name);
    }
    void add(const KernelExec& e) override {
        if (!capture::CaptureGate::covers(e.start)) return;
        const auto c = columnsOf(e, [this](const KernelLaunchInfo& l) { return launchId(l); });
        ProcessWriter::emitEvent(EventKind::Kernel, 0, e.start, e.end, e.name, c.data(), int(c.size()),
                                 e.place.device, e.place.context, e.place.stream);
    }
    void add(const MemcpyOp& e) override {
        if (!capture::CaptureGate::covers(e.start)) return;
        emitOnStream(e);
    }
    void add(const MemsetOp& e) override {
        if (!capture::CaptureGate::covers(e.start)) return;
        emitOnStream(e);
    }
    void add(const SyncOp& e) override {
        if (!capture::CaptureGate::covers(e.start)) return;
        emitOnStream(e);
    }
    void add(const GraphExec& e) override {
        if (!capture::CaptureGate::covers(e.start)) return;
        emitOnStream(e, e.name);
    }
    void add(const CudaMemoryEvent& e) override {
        if (!capture::CaptureGate::covers(e.time)) return;
        const auto c = columnsOf(e);
        ProcessWriter::emitEvent(EventKind::CudaMemory, 0, e.time, e.time, 0, c.data(), int(c.size()),
                                 e.device);
    }
    void add(const CuptiOverheadEvent& e) override {
        if (!capture::CaptureGate::covers(e.start)) return;
        emit(e, e.tid, e.start, e.end, 0);
    }
    void add(const MetricSample&) override {
        // The raw stream has no metric series definitions (MetaKind); pool sizes are counted.
        ++m_samplesLeftOut;
    }

    void addGpu(const Gpu& g) override {
        int64_t i[] = {
            g.deviceId,     g.smCount,    g.memoryBytes,    g.computeMajor,
            g.computeMinor, g.smClockKHz, g.memoryClockKHz, g.memoryBandwidthBytesPerSec};
        std::string_view s[] = {g.name, g.uuid, g.pciBusId};
        ProcessWriter::emitMeta(MetaKind::Gpu, i, 8, s, 3);
    }
    void addContext(const CudaContext& c) override {
        int64_t i[] = {c.deviceId, c.contextId};
        std::string_view s[] = {c.name};
        ProcessWriter::emitMeta(MetaKind::Context, i, 2, s, 1);
    }
    void addStream(const CudaStream& st) override {
        int64_t i[] = {st.deviceId, st.contextId, st.streamId,
                       st.priority, st.flags,     st.isDefault ? 1 : 0};
        std::string_view s[] = {st.name};
        ProcessWriter::emitMeta(MetaKind::Stream, i, 6, s, 1);
    }
    void addSeries(const MetricSeries&) override {}
    // Counted here and written as totals at flush/close: a converter diagnostic can fire per
    // record.
    void addDiagnostic(std::string_view name, int64_t count, std::string_view reason,
                       int64_t) override {
        auto& d = m_diags[std::string(name)];
        d.pending += count;
        if (d.reason.empty()) d.reason = std::string(reason);
    }

    void flush() override {
        writeDiagnostics();
        ProcessWriter::flushThread();
    }
    void markToolThread(std::string_view name) override {
        ProcessWriter::ToolScope scope;
        int64_t ints[3] = {ProcessWriter::threadId(), capture::nowNs(), 2};
        ProcessWriter::emitMeta(MetaKind::ThreadName, ints, 3, &name, 1);
    }
    uint32_t openRange() override {
        int64_t time = 0;
        // Joined, not only opened: ranks of an MPI job each call cudaProfilerStart, and the
        // window lasts until the last one's stop.
        return capture::CaptureGate::present()
                   ? capture::CaptureGate::join(ProcessWriter::pid(), &time)
                   : 0;
    }
    bool closeRange(uint32_t window) override {
        return window != 0 && capture::CaptureGate::leave(window, capture::nowNs()) &&
               capture::CaptureGate::shutdownAtEnd();
    }
    void close() override {
        if (m_samplesLeftOut)
            addDiagnostic("cuda.memory_pool_samples_left_out",
                          static_cast<int64_t>(m_samplesLeftOut),
                          "CUDA memory pool sizes were captured but the raw stream cannot carry "
                          "metric series yet",
                          0);
        m_samplesLeftOut = 0;
        writeDiagnostics();
        // This module's own writer (each injection module links its own copy): final flush.
        // The exit code is not known here (-1); the launcher's reaping records it.
        ProcessWriter::shutdown(capture::ExitHow::Exit, -1, 0);
    }

private:
    template <class E>
    static void emit(const E& e, int64_t tid, int64_t start, int64_t end, uint32_t name) {
        const auto c = columnsOf(e);
        ProcessWriter::emitEvent(EventColumns<E>::kind, tid, start, end, name, c.data(), int(c.size()));
    }
    template <class E>
    static void emitOnStream(const E& e, uint32_t name = 0) {
        const auto c = columnsOf(e);
        ProcessWriter::emitEvent(EventColumns<E>::kind, 0, e.start, e.end, name, c.data(), int(c.size()),
                                 e.place.device, e.place.context, e.place.stream);
    }

    struct Diag {
        int64_t pending = 0;
        std::string reason;
    };

    uint32_t launchId(const KernelLaunchInfo& l) {
        auto [it, inserted] =
            m_launches.try_emplace(l, static_cast<uint32_t>(m_launches.size() + 1));
        if (inserted) {
            int64_t i[] = {it->second,
                           l.grid[0],
                           l.grid[1],
                           l.grid[2],
                           l.block[0],
                           l.block[1],
                           l.block[2],
                           l.registersPerThread,
                           l.staticSharedBytes,
                           l.dynamicSharedBytes,
                           l.localBytesPerThread,
                           static_cast<int64_t>(l.launchType),
                           l.graphId,
                           static_cast<int64_t>(l.graphNodeId)};
            std::string_view s[] = {text(l.mangledName), text(l.shortName)};
            ProcessWriter::emitMeta(MetaKind::KernelLaunch, i, 14, s, 2);
        }
        return it->second;
    }
    std::string_view text(uint32_t id) const {
        return id < m_text.size() ? std::string_view(m_text[id]) : "";
    }

    void writeDiagnostics() {
        for (auto& [name, d] : m_diags) {
            if (d.pending == 0) continue;
            int64_t i[] = {d.pending};
            std::string_view s[] = {name, d.reason};
            if (ProcessWriter::emitMeta(MetaKind::Diagnostic, i, 1, s, 2)) d.pending = 0;
        }
    }

    // Stream-local ids die with the parent's stream after fork.
    void resetAfterFork() {
        uint32_t gen = ProcessWriter::generation();
        if (gen == m_generation) return;
        m_generation = gen;
        m_strings.clear();
        m_text.clear();
        m_launches.clear();
    }

    std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> m_strings;
    std::vector<std::string> m_text;  // string id -> text (launch metadata carries text)
    std::unordered_map<KernelLaunchInfo, uint32_t, LaunchInfoHash> m_launches;
    std::map<std::string, Diag> m_diags;
    uint64_t m_samplesLeftOut = 0;
    uint32_t m_generation = 0;
};

}  // namespace

std::unique_ptr<InjectionSink> makeInjectionSink(int64_t, std::string& why) {
    if (!ProcessWriter::start("cupti")) {
        why =
            "SIGHTLINE_SESSION_DIR is not set or its stream file cannot be created (run the "
            "program under "
            "`sightline profile`)";
        return nullptr;
    }
    return std::make_unique<CaptureSink>();
}

}  // namespace sl::cuda
