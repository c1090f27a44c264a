// KinetoEventMapper, second half: the entities (processes, threads, domains, session) of the
// report, and its end in memory (finish) or streamed to a writer (finishInto).
#include <algorithm>

#include "model/import/KinetoEventMapper.h"

namespace sl::import {

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

void KinetoEventMapper::finishSession(const TraceHeader& header) {
    // Kineto writes ts relative to baseTimeNanoseconds (since 2023), which may come after the
    // events in the file: every time is shifted once all are seen.
    const int64_t base = header.baseTimeNs.value_or(0);
    Session& s = m_b.report().session;
    if (m_minTs <= m_maxTs) {
        s.startMonotonicNs = m_minTs + base;
        s.durationNs = m_maxTs - m_minTs;
        // Kineto's clock is the Unix epoch in microseconds; a generic trace may use any origin.
        constexpr int64_t kYear2000Ns = 946684800LL * 1000000000LL;
        if (s.startMonotonicNs > kYear2000Ns) s.startUtcNs = s.startMonotonicNs;
    }
}

std::shared_ptr<Report> KinetoEventMapper::finish(const TraceHeader& header,
                                                  const std::function<void(double)>& progress) {
    for (const Gpu& g : header.gpus) m_b.report().gpus.push_back(g);
    for (const Diagnostic& d : header.diagnostics) m_b.report().diagnostics.push_back(d);
    (void)flushGpu();  // in memory it cannot fail
    addSamples(header);
    finishEntities(header);
    Report& r = m_b.report();
    const int64_t base = header.baseTimeNs.value_or(0);
    if (base != 0) {
        for (auto& t : r.tracks) {
            for (auto& v : t.start) v += base;
            for (auto& v : t.end) v += base;
        }
    }
    finishSession(header);
    if (m_b.eventCount() == 0)
        diag("chrome.no_events", "the trace holds no event Sightline can import");
    return m_b.finish(progress);
}

}  // namespace sl::import
