#include "model/core/ReportBuilder.h"

#include <algorithm>

#include "model/core/EventColumns.h"
#include "model/util/ThreadPool.h"

namespace sl {

size_t KernelLaunchInfoHash::operator()(const KernelLaunchInfo& k) const noexcept {
    uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
    mix(k.mangledName); mix(k.shortName);
    for (int i = 0; i < 3; ++i) { mix(k.grid[i]); mix(k.block[i]); }
    mix(k.registersPerThread); mix(k.staticSharedBytes); mix(k.dynamicSharedBytes);
    mix(k.localBytesPerThread); mix(static_cast<uint64_t>(k.launchType)); mix(k.graphId); mix(k.graphNodeId);
    return static_cast<size_t>(h);
}

size_t StackFrameHash::operator()(const StackFrame& f) const noexcept {
    uint64_t h = (static_cast<uint64_t>(f.function) << 32 | f.module) * 0x9E3779B97F4A7C15ULL;
    return static_cast<size_t>(h ^ (f.offset * 0xC2B2AE3D27D4EB4FULL));
}

size_t CallStackHash::operator()(const CallStack& s) const noexcept {
    uint64_t h = 1469598103934665603ULL;
    for (uint32_t f : s.frames) h = (h ^ f) * 1099511628211ULL;
    return static_cast<size_t>(h);
}

ReportBuilder::ReportBuilder() : m_report(std::make_unique<Report>()) {}

Track& ReportBuilder::track(const TrackKey& key) {
    if (m_lastTrack != SIZE_MAX && key == m_lastKey) return m_report->tracks[m_lastTrack];
    auto [it, inserted] = m_trackIndex.try_emplace(key, m_report->tracks.size());
    if (inserted) m_report->tracks.emplace_back(key);
    m_lastKey = key;
    m_lastTrack = it->second;
    return m_report->tracks[it->second];
}

uint32_t ReportBuilder::launchId(const KernelLaunchInfo& info) {
    auto [it, inserted] = m_launchIndex.try_emplace(info, static_cast<uint32_t>(m_report->kernelLaunches.size()));
    if (inserted) m_report->kernelLaunches.push_back(info);
    return it->second;
}

uint32_t ReportBuilder::frameId(const StackFrame& frame) {
    auto [it, inserted] = m_frameIndex.try_emplace(frame, static_cast<uint32_t>(m_report->stackFrames.size()));
    if (inserted) m_report->stackFrames.push_back(frame);
    return it->second;
}

uint32_t ReportBuilder::stackId(std::vector<uint32_t> frames) {
    CallStack stack{std::move(frames)};
    auto it = m_stackIndex.find(stack);
    if (it != m_stackIndex.end()) return it->second;
    const auto id = static_cast<uint32_t>(m_report->callStacks.size());
    m_report->callStacks.push_back(stack);
    m_stackIndex.emplace(std::move(stack), id);
    return id;
}

void ReportBuilder::addRaw(const TrackKey& key, int64_t start, int64_t end, uint32_t name, const int64_t* extra) {
    track(key).append(start, end, name, extra);
    ++m_events;
}

// The columns come from EventColumns.h; the track key and times from each kind's fields.
void ReportBuilder::add(const OsRuntimeCall& e) {
    addRaw(TrackKey::forThread(EventKind::OsRuntime, e.pid, e.tid), e.start, e.end, e.function, columnsOf(e).data());
}

void ReportBuilder::add(const CudaApiCall& e) {
    addRaw(TrackKey::forThread(EventKind::CudaApi, e.pid, e.tid), e.start, e.end, e.name, columnsOf(e).data());
}

void ReportBuilder::add(const KernelExec& e) {
    const auto x = columnsOf(e, [this](const KernelLaunchInfo& l) { return launchId(l); });
    const GpuPlace& p = e.place;
    addRaw(TrackKey::forStream(EventKind::Kernel, p.pid, p.device, p.context, p.stream), e.start, e.end, e.name,
           x.data());
}

void ReportBuilder::add(const MemcpyOp& e) {
    const GpuPlace& p = e.place;
    addRaw(TrackKey::forStream(EventKind::Memcpy, p.pid, p.device, p.context, p.stream), e.start, e.end, 0,
           columnsOf(e).data());
}

void ReportBuilder::add(const MemsetOp& e) {
    const GpuPlace& p = e.place;
    addRaw(TrackKey::forStream(EventKind::Memset, p.pid, p.device, p.context, p.stream), e.start, e.end, 0,
           columnsOf(e).data());
}

void ReportBuilder::add(const SyncOp& e) {
    const GpuPlace& p = e.place;
    addRaw(TrackKey::forStream(EventKind::Sync, p.pid, p.device, p.context, p.stream), e.start, e.end, 0,
           columnsOf(e).data());
}

void ReportBuilder::add(const GraphExec& e) {
    const GpuPlace& p = e.place;
    addRaw(TrackKey::forStream(EventKind::GraphTrace, p.pid, p.device, p.context, p.stream), e.start, e.end, e.name,
           columnsOf(e).data());
}

void ReportBuilder::add(const NvtxRangeEvent& e) {
    addRaw(TrackKey::forThread(EventKind::NvtxRange, e.pid, e.tid, e.domain), e.start, e.end, e.message,
           columnsOf(e).data());
}

void ReportBuilder::add(const NvtxMarkEvent& e) {
    addRaw(TrackKey::forThread(EventKind::NvtxMark, e.pid, e.tid, e.domain), e.time, e.time, e.message,
           columnsOf(e).data());
}

void ReportBuilder::add(const MetricSample& e) {
    addRaw(TrackKey::forMetric(e.series), e.time, e.time, 0, columnsOf(e).data());
}

void ReportBuilder::add(const CudaMemoryEvent& e) {
    addRaw(TrackKey::forProcessDevice(EventKind::CudaMemory, e.pid, e.device), e.time, e.time, 0,
           columnsOf(e).data());
}

void ReportBuilder::add(const ThreadRunning& e) {
    addRaw(TrackKey::forThread(EventKind::ThreadState, e.pid, e.tid), e.start, e.end, 0, columnsOf(e).data());
}

void ReportBuilder::add(const CpuSampleEvent& e) {
    addRaw(TrackKey::forThread(EventKind::CpuSample, e.pid, e.tid), e.time, e.time, e.name, columnsOf(e).data());
}

void ReportBuilder::add(const CuptiOverheadEvent& e) {
    addRaw(TrackKey::forThread(EventKind::CuptiOverhead, e.pid, e.tid), e.start, e.end, 0, columnsOf(e).data());
}

void ReportBuilder::add(const MpiCall& e) {
    addRaw(TrackKey::forThread(EventKind::Mpi, e.pid, e.tid), e.start, e.end, e.name, columnsOf(e).data());
}

void ReportBuilder::add(const OpenMpConstruct& e) {
    addRaw(TrackKey::forThread(EventKind::OpenMp, e.pid, e.tid), e.start, e.end, e.name, columnsOf(e).data());
}

void ReportBuilder::add(const CublasCall& e) {
    addRaw(TrackKey::forThread(EventKind::Cublas, e.pid, e.tid), e.start, e.end, e.name, columnsOf(e).data());
}

void ReportBuilder::add(const CudnnCall& e) {
    addRaw(TrackKey::forThread(EventKind::Cudnn, e.pid, e.tid), e.start, e.end, e.name, columnsOf(e).data());
}

void ReportBuilder::add(const NcclCall& e) {
    addRaw(TrackKey::forThread(EventKind::Nccl, e.pid, e.tid), e.start, e.end, e.name, columnsOf(e).data());
}

void ReportBuilder::addDiagnostic(std::string_view name, int64_t count, std::string_view reason, int64_t pid) {
    for (auto& d : m_report->diagnostics) {
        if (d.name == name && d.pid == pid) {
            d.count += count;
            return;
        }
    }
    m_report->diagnostics.push_back({std::string(name), count, std::string(reason), pid});
}

Thread& ReportBuilder::ensureThread(int64_t pid, int64_t tid) {
    for (auto& t : m_report->threads)
        if (t.tid == tid && t.pid == pid) return t;
    Thread t;
    t.pid = pid;
    t.tid = tid;
    m_report->threads.push_back(t);
    return m_report->threads.back();
}

Process& ReportBuilder::ensureProcess(int64_t pid) {
    for (auto& p : m_report->processes)
        if (p.pid == pid) return p;
    Process p;
    p.pid = pid;
    m_report->processes.push_back(p);
    return m_report->processes.back();
}

void ReportBuilder::addBacktraceByCorrelation(int64_t pid, uint32_t correlation, uint32_t stack) {
    m_correlatedBacktraces.push_back({pid, correlation, stack});
}

void ReportBuilder::resolveCorrelatedBacktraces() {
    if (m_correlatedBacktraces.empty()) return;
    // (pid, correlation) -> the backtrace; CUPTI's correlation ids are unique in a process.
    std::unordered_map<uint64_t, size_t> wanted;
    auto keyOf = [](int64_t pid, uint64_t correlation) { return uint64_t(pid) << 32 ^ correlation; };
    for (size_t i = 0; i < m_correlatedBacktraces.size(); ++i) {
        const CorrelatedBacktrace& c = m_correlatedBacktraces[i];
        wanted.emplace(keyOf(c.pid, c.correlation), i);
    }
    for (const Track& t : m_report->tracks) {
        if (t.key.kind != EventKind::CudaApi) continue;
        for (size_t i = 0; i < t.size(); ++i) {
            const auto it = wanted.find(keyOf(t.key.pid, uint64_t(t.intAt(cols::CudaApi::Correlation, i))));
            if (it == wanted.end()) continue;
            // The call's own row names the thread (CUPTI's thread id, as the call's other records).
            const CorrelatedBacktrace& c = m_correlatedBacktraces[it->second];
            EventBacktrace b;
            b.kind = EventKind::CudaApi;
            b.pid = t.key.pid;
            b.tid = t.key.tid;
            b.start = t.start[i];
            b.stack = c.stack;
            m_report->backtraces.push_back(b);
            wanted.erase(it);
        }
    }
    m_correlatedBacktraces.clear();
    m_correlatedBacktraces.shrink_to_fit();
}

std::shared_ptr<Report> ReportBuilder::finish(const std::function<void(double)>& progress) {
    auto& tracks = m_report->tracks;
    // Deterministic track order: by key (kind, pid, tid, device, ...).
    std::sort(tracks.begin(), tracks.end(), [](const Track& a, const Track& b) { return a.key < b.key; });
    tracks.erase(std::remove_if(tracks.begin(), tracks.end(), [](const Track& t) { return t.empty(); }),
                 tracks.end());
    resolveCorrelatedBacktraces();
    // Backtraces are looked up by event (Report::backtraceOf): one per event (the first).
    auto& bts = m_report->backtraces;
    std::stable_sort(bts.begin(), bts.end(),
                     [](const EventBacktrace& a, const EventBacktrace& b) { return a.key() < b.key(); });
    bts.erase(std::unique(bts.begin(), bts.end(),
                          [](const EventBacktrace& a, const EventBacktrace& b) { return a.key() == b.key(); }),
              bts.end());
    // Finalize the biggest tracks first, on up to 8 threads.
    std::vector<size_t> order(tracks.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tracks[a].size() > tracks[b].size(); });
    parallelFor(order.size(), [&](size_t k) { tracks[order[k]].finalize(); }, ParallelOptions{8});
    if (progress) progress(1.0);
    std::sort(m_report->threads.begin(), m_report->threads.end(),
              [](const Thread& a, const Thread& b) { return std::tie(a.pid, a.tid) < std::tie(b.pid, b.tid); });
    std::sort(m_report->processes.begin(), m_report->processes.end(),
              [](const Process& a, const Process& b) { return a.pid < b.pid; });
    std::shared_ptr<Report> out(m_report.release());
    m_report = std::make_unique<Report>();
    m_trackIndex.clear();
    m_launchIndex.clear();
    m_frameIndex.clear();
    m_stackIndex.clear();
    m_lastTrack = SIZE_MAX;
    m_events = 0;
    return out;
}

}  // namespace sl
