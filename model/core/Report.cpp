#include "model/core/Report.h"

#include <algorithm>
#include <cstdio>

namespace sl {

uint64_t Report::eventCount() const {
    uint64_t n = 0;
    for (const auto& t : tracks) n += t.size();
    return n;
}

uint64_t Report::eventCount(EventKind kind) const {
    uint64_t n = 0;
    for (const auto& t : tracks)
        if (t.key.kind == kind) n += t.size();
    return n;
}

int64_t Report::tMin() const {
    int64_t v = unloadedTMin;
    for (const auto& t : tracks)
        if (!t.empty()) v = std::min(v, t.tMin);
    return v == INT64_MAX ? 0 : v;
}

int64_t Report::tMax() const {
    int64_t v = unloadedTMax;
    for (const auto& t : tracks)
        if (!t.empty()) v = std::max(v, t.tMax);
    return v == INT64_MIN ? 0 : v;
}

int64_t Report::timeOrigin() const {
    if (session.startMonotonicNs != kUnknownTime) return session.startMonotonicNs;
    return tMin();
}

const Process* Report::findProcess(int64_t pid) const {
    for (const auto& p : processes)
        if (p.pid == pid) return &p;
    return nullptr;
}

const Thread* Report::findThread(int64_t pid, int64_t tid) const {
    for (const auto& t : threads)
        if (t.tid == tid && (t.pid == pid || pid == 0)) return &t;
    return nullptr;
}

const Gpu* Report::findGpu(int32_t deviceId) const {
    for (const auto& g : gpus)
        if (g.deviceId == deviceId) return &g;
    return nullptr;
}

const CudaStream* Report::findStream(int64_t pid, int32_t device, uint32_t context, uint32_t stream) const {
    for (const auto& s : streams)
        if (s.pid == pid && s.deviceId == device && s.contextId == context && s.streamId == stream) return &s;
    return nullptr;
}

const NvtxDomain* Report::findDomain(int64_t pid, uint32_t domainId) const {
    for (const auto& d : nvtxDomains)
        if (d.pid == pid && d.domainId == domainId) return &d;
    return nullptr;
}

const MetricSeries* Report::findSeries(uint32_t seriesId) const {
    for (const auto& s : metricSeries)
        if (s.seriesId == seriesId) return &s;
    return nullptr;
}

const Track* Report::findTrack(const TrackKey& key) const {
    for (const auto& t : tracks)
        if (t.key == key) return &t;
    return nullptr;
}

std::vector<const Track*> Report::tracksOfKind(EventKind kind) const {
    std::vector<const Track*> out;
    for (const auto& t : tracks)
        if (t.key.kind == kind) out.push_back(&t);
    return out;
}

std::string Report::threadTitle(int64_t pid, int64_t tid) const {
    std::string s = "Thread " + std::to_string(tid);
    if (const Thread* th = findThread(pid, tid); th && !th->name.empty()) s += " (" + th->name + ")";
    return s;
}

std::string_view Report::domainName(int64_t pid, uint32_t domainId) const {
    if (const NvtxDomain* d = findDomain(pid, domainId); d && !d->name.empty()) return d->name;
    return domainId == 0 ? "default" : "unnamed domain";
}

std::string_view Report::categoryName(int64_t pid, uint32_t domainId, uint32_t category) const {
    for (const auto& c : nvtxCategories)
        if (c.pid == pid && c.domainId == domainId && c.category == category) return c.name;
    return {};
}

std::string Report::trackTitle(const Track& t) const {
    const TrackKey& k = t.key;
    const KindSchema& s = schemaOf(k.kind);
    switch (s.owner) {
        case OwnerKind::Thread: {
            std::string title = std::string(s.label) + " - " + threadTitle(k.pid, k.tid);
            if (k.kind == EventKind::NvtxRange || k.kind == EventKind::NvtxMark)
                title += " [" + std::string(domainName(k.pid, k.domain)) + "]";
            return title;
        }
        case OwnerKind::Stream: {
            std::string title = std::string(s.label) + " - GPU " + std::to_string(k.device) + " context " +
                                std::to_string(k.context);
            // Synchronization waits that are on no stream carry the stream id of all ones.
            title += k.stream == 0xFFFFFFFFu ? std::string(" (no stream)") : " stream " + std::to_string(k.stream);
            if (const CudaStream* cs = findStream(k.pid, k.device, k.context, k.stream); cs && !cs->name.empty())
                title += " (" + cs->name + ")";
            return title;
        }
        case OwnerKind::Series: {
            const MetricSeries* ms = findSeries(k.series);
            if (!ms) return "Metric " + std::to_string(k.series);
            std::string title = ms->name;
            if (ms->deviceId >= 0) title += " (GPU " + std::to_string(ms->deviceId) + ")";
            return title;
        }
        case OwnerKind::ProcessDevice:
            return std::string(s.label) + " - process " + std::to_string(k.pid) + " GPU " + std::to_string(k.device);
    }
    return std::string(s.label);
}

int64_t Report::diagnosticCount(std::string_view name) const {
    int64_t n = 0;
    for (const auto& d : diagnostics)
        if (d.name == name) n += d.count;
    return n;
}

const CallStack* Report::backtraceOf(EventKind kind, int64_t pid, int64_t tid, int64_t start) const {
    const auto key = std::tuple(kind, pid, tid, start);
    const auto it = std::lower_bound(backtraces.begin(), backtraces.end(), key,
                                     [](const EventBacktrace& b, const auto& k) { return b.key() < k; });
    if (it == backtraces.end() || it->key() != key || it->stack >= callStacks.size()) return nullptr;
    return &callStacks[it->stack];
}

bool Report::isPythonFrame(const StackFrame& f) const {
    const std::string_view module = str(f.module);
    return f.function != 0 && (module.ends_with(".py") || module.ends_with(".pyw"));
}

std::string Report::frameText(uint32_t frameId) const {
    if (frameId >= stackFrames.size()) return "[frame " + std::to_string(frameId) + "]";
    const StackFrame& f = stackFrames[frameId];
    std::string module(str(f.module));
    if (const auto slash = module.rfind('/'); slash != std::string::npos) module.erase(0, slash + 1);
    if (module.empty()) module = "[unknown]";
    if (f.function != 0) {
        // A Python frame (--python-sampling): the module is the source file, the offset the line.
        if (isPythonFrame(f)) return std::string(str(f.function)) + " (" + module + ":" + std::to_string(f.offset) + ")";
        return std::string(str(f.function)) + " (" + module + ")";
    }
    char offset[32];
    std::snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(f.offset));
    return module + offset;
}

size_t Report::memoryBytes() const {
    size_t bytes = sizeof(Report) + strings.memoryBytes() + kernelLaunches.capacity() * sizeof(KernelLaunchInfo);
    bytes += stackFrames.capacity() * sizeof(StackFrame) + callStacks.capacity() * sizeof(CallStack);
    for (const auto& s : callStacks) bytes += s.frames.capacity() * sizeof(uint32_t);
    for (const auto& t : tracks) bytes += t.memoryBytes();
    bytes += (processes.size() + threads.size()) * 96;
    return bytes;
}

}  // namespace sl
