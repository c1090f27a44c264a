// KinetoEventMapper, second half: placing GPU events in their processes once every event is
// seen, and the entities (processes, threads, domains, session) of the report.
#include <algorithm>

#include "model/import/KinetoEventMapper.h"

namespace sl::import {

void KinetoEventMapper::flushGpu() {
    // Step 1: the traced process of each GPU event is the process of the API call with the same
    // correlation id; events without one go to the process that made most CUDA calls on that
    // device's correlated work, else to the process with most CUDA calls overall.
    std::map<int32_t, std::map<int64_t, uint64_t>> votes;
    for (const auto& g : m_gpu) {
        if (g.correlation < 0) continue;
        auto it = m_corrPid.find(g.correlation);
        if (it != m_corrPid.end()) ++votes[g.device][it->second];
    }
    int64_t busiest = -1;
    uint64_t most = 0;
    for (const auto& [pid, n] : m_apiCallsPerPid)
        if (n > most) {
            most = n;
            busiest = pid;
        }
    std::map<int32_t, int64_t> devicePid;
    for (const auto& [device, counts] : votes) {
        auto best =
            std::max_element(counts.begin(), counts.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        devicePid[device] = best->first;
    }
    int64_t uncorrelated = 0;
    std::set<std::tuple<int64_t, int32_t, uint32_t, uint32_t>> streams;
    // Step 2: emit the events.
    for (const auto& g : m_gpu) {
        int64_t pid = -1;
        if (g.correlation >= 0) {
            if (auto it = m_corrPid.find(g.correlation); it != m_corrPid.end()) pid = it->second;
        }
        if (pid < 0) {
            if (g.kind != GpuKind::Annotation) ++uncorrelated;
            if (auto it = devicePid.find(g.device); it != devicePid.end())
                pid = it->second;
            else if (busiest >= 0)
                pid = busiest;
            else
                pid = std::max<int64_t>(0, g.rawPid);
        }
        const GpuPlace place{pid, g.device, g.context, g.stream};
        const uint32_t corr = g.correlation >= 0 ? static_cast<uint32_t>(g.correlation) : 0;
        switch (g.kind) {
            case GpuKind::Kernel: {
                int64_t x[] = {corr, g.launch};
                m_b.addRaw(
                    TrackKey::forStream(EventKind::Kernel, pid, g.device, g.context, g.stream),
                    g.start, g.end, g.name, x);
                break;
            }
            case GpuKind::Memcpy: {
                MemcpyOp m;
                m.place = place;
                m.start = g.start;
                m.end = g.end;
                m.correlation = corr;
                m.bytes = g.bytes;
                m.copyKind = static_cast<CopyKind>(g.launch & 0xFF);
                m.srcKind = static_cast<MemoryKind>((g.launch >> 8) & 0xFF);
                m.dstKind = static_cast<MemoryKind>((g.launch >> 16) & 0xFF);
                m_b.add(m);
                break;
            }
            case GpuKind::Memset: {
                MemsetOp m;
                m.place = place;
                m.start = g.start;
                m.end = g.end;
                m.correlation = corr;
                m.bytes = g.bytes;
                m.memKind = static_cast<MemoryKind>(g.launch);
                m_b.add(m);
                break;
            }
            case GpuKind::Sync: {
                SyncOp s;
                s.place = place;
                s.start = g.start;
                s.end = g.end;
                s.correlation = corr;
                s.type = static_cast<SyncType>(g.launch);
                m_b.add(s);
                break;
            }
            case GpuKind::Annotation: {
                // gpu_user_annotation: the span of GPU work a user annotation caused on one
                // stream. Shown as NVTX ranges on a row of their own per (device, stream) in the
                // traced process, named after the stream, in an NVTX domain of the category.
                const int64_t tid = kGpuAnnotationTidBase + (int64_t{g.device} << 24) + g.stream;
                NvtxRangeEvent r;
                r.pid = pid;
                r.tid = tid;
                r.domain = domainFor("gpu_user_annotation");
                r.start = g.start;
                r.end = g.end;
                r.message = g.name;
                m_b.add(r);
                m_threads.emplace(pid, tid);
                m_threadNames[{pid, tid}] = "GPU " + std::to_string(g.device) + " stream " +
                                            std::to_string(g.stream) + " (gpu_user_annotation)";
                m_usedDomains.emplace(pid, r.domain);
                m_cpuPids.insert(pid);
                continue;
            }
        }
        streams.emplace(pid, g.device, g.context, g.stream);
        m_cpuPids.insert(pid);
    }
    if (uncorrelated)
        diag("kineto.gpu_events_without_api_call",
             "GPU events whose correlation id matches no CUDA runtime/driver "
             "call; placed in the process that launched most work on their device",
             uncorrelated);
    Report& r = m_b.report();
    std::set<std::tuple<int64_t, int32_t, uint32_t>> contexts;
    for (const auto& [pid, device, context, stream] : streams) {
        CudaStream s;
        s.pid = pid;
        s.deviceId = device;
        s.contextId = context;
        s.streamId = stream;
        r.streams.push_back(s);
        contexts.emplace(pid, device, context);
    }
    for (const auto& [pid, device, context] : contexts) {
        r.contexts.push_back(CudaContext{pid, device, context, {}});
        if (!r.findGpu(device)) {
            Gpu g;
            g.deviceId = device;
            g.name = "GPU " + std::to_string(device);
            r.gpus.push_back(g);
        }
    }
    std::sort(r.gpus.begin(), r.gpus.end(),
              [](const Gpu& a, const Gpu& b) { return a.deviceId < b.deviceId; });
    m_gpu.clear();
    m_gpu.shrink_to_fit();
}

void KinetoEventMapper::finishEntities(const TraceHeader& header) {
    Report& r = m_b.report();
    for (int64_t pid : m_cpuPids) {
        Process& p = m_b.ensureProcess(pid);
        if (auto it = m_processNames.find(pid); it != m_processNames.end())
            p.name = it->second;
        else if (auto jt = m_syntheticNames.find(pid); jt != m_syntheticNames.end())
            p.name = jt->second;
    }
    for (const auto& key : m_threads) {
        Thread& t = m_b.ensureThread(key.first, key.second);
        if (auto it = m_threadNames.find(key); it != m_threadNames.end())
            t.name = it->second;
        else if (auto jt = m_syntheticNames.find(key.second); jt != m_syntheticNames.end())
            t.name = jt->second;
    }
    std::map<uint32_t, std::string> domainNames;
    for (const auto& [name, id] : m_domains) domainNames[id] = name;
    for (const auto& [pid, domain] : m_usedDomains)
        r.nvtxDomains.push_back(NvtxDomain{pid, domain, domainNames[domain]});
    for (const auto& [name, id] : m_domains)
        if (name == "cpu_op" || name == "Operator" || name == "user_annotation" ||
            name == "python_function")
            m_kinetoCategories = true;
    Session& s = r.session;
    s.source = (m_kinetoCategories || header.kinetoMarkers) ? "kineto-json" : "chrome-json";
    s.toolVersion = SIGHTLINE_VERSION;
    if (!header.traceName.empty()) s.argv = {header.traceName};
    std::string opts = s.source == "kineto-json" ? "imported from a PyTorch profiler (Kineto) trace"
                                                 : "imported from a Chrome trace";
    if (header.schemaVersion) opts += ", schemaVersion " + std::to_string(*header.schemaVersion);
    if (header.rank) opts += ", rank " + std::to_string(*header.rank);
    if (!header.displayTimeUnit.empty()) opts += ", displayTimeUnit " + header.displayTimeUnit;
    s.captureOptions = opts;
    if (m_notObjects)
        diag("chrome.not_an_object", "entries of traceEvents that are not objects were skipped",
             m_notObjects);
    for (const auto& [key, stack] : m_openB)
        if (!stack.empty())
            diag("chrome.unterminated_begin",
                 "B events never closed by an E event were not imported",
                 static_cast<int64_t>(stack.size()));
}

std::shared_ptr<Report> KinetoEventMapper::finish(const TraceHeader& header,
                                                  const std::function<void(double)>& progress) {
    for (const Gpu& g : header.gpus) m_b.report().gpus.push_back(g);
    flushGpu();
    addSamples(header);
    finishEntities(header);
    Report& r = m_b.report();
    // Kineto writes ts relative to baseTimeNanoseconds (since 2023), which may come after the
    // events in the file: shift every time now.
    const int64_t base = header.baseTimeNs.value_or(0);
    if (base != 0) {
        for (auto& t : r.tracks) {
            for (auto& v : t.start) v += base;
            for (auto& v : t.end) v += base;
        }
    }
    Session& s = r.session;
    if (m_minTs <= m_maxTs) {
        s.startMonotonicNs = m_minTs + base;
        s.durationNs = m_maxTs - m_minTs;
        // Kineto's clock is the Unix epoch in microseconds; a generic trace may use any origin.
        constexpr int64_t kYear2000Ns = 946684800LL * 1000000000LL;
        if (s.startMonotonicNs > kYear2000Ns) s.startUtcNs = s.startMonotonicNs;
    }
    if (m_b.eventCount() == 0)
        diag("chrome.no_events", "the trace holds no event Sightline can import");
    return m_b.finish(progress);
}

}  // namespace sl::import
