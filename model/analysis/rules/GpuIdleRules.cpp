// Where the GPU's idle time comes from (Sightline's rules): the idle time between the operations
// of each stream split as HTA splits it (host wait, kernel wait, other), and the NVTX ranges of
// the CPU threads that were open while the GPU was idle.
#include <algorithm>
#include <map>

#include "model/analysis/rules/RuleSupport.h"
#include "model/util/Format.h"

namespace sl::analysis::rules {

Finding runGpuIdleBreakdown(const Report& r, const RuleContext& c) {
    Finding f = newFinding("gpu_idle_breakdown", "GPU Idle Time Breakdown");
    const CorrelationIndex& ci = c.window.cacheFor(r).correlation();
    const int64_t kernelWait = c.value("kernel_wait");
    struct Stream {
        int64_t pid;
        int32_t device;
        uint32_t stream;
        int64_t host = 0, kernel = 0, other = 0, span = 0;
    };
    std::vector<Stream> streams;
    WorstOf worst;
    for (const DeviceOps& d : gpuOpsByDevice(r, c.window)) {
        std::map<uint32_t, std::vector<const GpuOp*>> byStream;
        for (const GpuOp& o : d.ops) byStream[keyOf(r, o).stream].push_back(&o);
        for (auto& entry : byStream) {
            // Plain names, not a structured binding: clang 14 cannot capture bindings in lambdas.
            const uint32_t stream = entry.first;
            const std::vector<const GpuOp*>& ops = entry.second;
            Stream s{d.pid, d.device, stream};
            CorrelationIndex::Cursor cursor;
            s.span = ops.back()->end - ops.front()->start;
            for (size_t k = 1; k < ops.size(); ++k) {
                const int64_t gapStart = ops[k - 1]->end, gap = ops[k]->start - gapStart;
                if (gap <= 0) continue;
                // Host wait: the call that launched the next operation began only after the
                // previous one had ended (the CPU was late); kernel wait: back-to-back launch
                // overhead; other: waits on events, other streams, queueing.
                const EventRef api = ci.launcherOf(ops[k]->ref, cursor);
                const bool hostLate = api.valid() && r.tracks[api.track].start[api.index] > gapStart;
                if (hostLate) {
                    s.host += gap;
                    worst.offer(gap, gapStart, [&] {
                        return FindingExample{UINT32_MAX, 0, gapStart, ops[k]->start, d.pid, d.device,
                                              "stream " + std::to_string(stream) + " waiting for the host"};
                    });
                } else if (gap < kernelWait) {
                    s.kernel += gap;
                } else {
                    s.other += gap;
                }
            }
            if (s.host + s.kernel + s.other > 0) streams.push_back(s);
        }
    }
    std::stable_sort(streams.begin(), streams.end(), [](const Stream& a, const Stream& b) {
        return a.host + a.kernel + a.other > b.host + b.kernel + b.other;
    });
    int64_t host = 0, kernel = 0, other = 0, span = 0;
    for (const Stream& s : streams) host += s.host, kernel += s.kernel, other += s.other, span += s.span;
    const int64_t idle = host + kernel + other;
    f.count = static_cast<int64_t>(streams.size());
    f.totalNs = host;  // what the CPU side can win back
    worst.into(f);
    Table& t = f.table;
    t.idCol("PID");
    t.idCol("Device ID");
    t.idCol("Stream ID");
    t.intCol("Idle", Measure::Duration);
    t.intCol("Host Wait", Measure::Duration);
    t.intCol("Kernel Wait", Measure::Duration);
    t.intCol("Other Wait", Measure::Duration);
    t.realCol("Host Wait", Measure::Percent, 1);
    t.realCol("Idle of Stream Span", Measure::Percent, 1);
    for (size_t k = 0; k < rowLimit(c, streams.size()); ++k) {
        const Stream& s = streams[k];
        const int64_t sIdle = s.host + s.kernel + s.other;
        t.row().i(s.pid).i(s.device).i(s.stream).i(sIdle).i(s.host).i(s.kernel).i(s.other)
            .r(percent(s.host, sIdle)).r(percent(sIdle, s.span));
    }
    if (idle == 0) {
        f.summary = "No stream was idle between its operations.";
        return f;
    }
    char text[400];
    std::snprintf(text, sizeof text,
                  "The streams were idle %s between their operations (%.1f%% of their spans): host wait "
                  "%.1f%% (the next launch came after the previous operation ended), kernel wait %.1f%% "
                  "(launch overhead under %lld ns), other %.1f%% (events, other streams, queueing).",
                  formatDuration(idle).c_str(), percent(idle, span), percent(host, idle), percent(kernel, idle),
                  static_cast<long long>(kernelWait), percent(other, idle));
    f.summary = text;
    f.severity = percent(host, span) >= static_cast<double>(c.value("host_share")) ? Severity::Warning : Severity::Info;
    f.advice = "Host wait means the CPU did not queue work ahead of the GPU: look at what the launching "
               "thread did before the late launches (CPU samples, OS runtime calls, Python), batch more "
               "work per launch, or capture the steady loop in a CUDA graph. Kernel wait is launch "
               "overhead: fewer, larger kernels or CUDA graphs reduce it.";
    return f;
}

Finding runNvtxGpuIdle(const Report& r, const RuleContext& c) {
    Finding f = newFinding("nvtx_gpu_idle", "NVTX Ranges Holding GPU Idle Time");
    const int64_t minGap = c.value("gap") * 1000;  // us
    // Idle intervals of each process's GPUs (all devices together: the process's GPU work).
    std::map<int64_t, Intervals> idleByPid;
    for (const DeviceOps& d : gpuOpsByDevice(r, c.window)) {
        const Intervals busy = mergedOps(d, [](const GpuOp&) { return true; });
        for (size_t k = 1; k < busy.size(); ++k)
            if (busy[k].first - busy[k - 1].second >= minGap)
                idleByPid[d.pid].push_back({busy[k - 1].second, busy[k].first});
    }
    for (auto& [pid, v] : idleByPid) v = merged(std::move(v));
    struct Range {
        int64_t idle = 0, time = 0, count = 0;
        int64_t worstInside = -1;
        FindingExample worst;
    };
    std::map<uint32_t, Range> byName;  // by name (string id)
    int64_t idleTotal = 0;
    for (const auto& [pid, v] : idleByPid) idleTotal += totalLength(v);
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& t = r.tracks[ti];
        if (t.key.kind != EventKind::NvtxRange || t.key.device >= 0) continue;  // CPU-side ranges
        auto it = idleByPid.find(t.key.pid);
        if (it == idleByPid.end()) continue;
        const Intervals& idle = it->second;
        for (size_t i = 0; i < t.size(); ++i) {
            const int64_t s = t.start[i], e = t.endAt(i);
            if (!overlaps(c.window, s, e)) continue;
            int64_t inside = 0;
            auto g = std::upper_bound(idle.begin(), idle.end(), std::pair<int64_t, int64_t>{s, INT64_MIN});
            if (g != idle.begin()) --g;
            for (; g != idle.end() && g->first < e; ++g)
                inside += std::max<int64_t>(0, std::min(e, g->second) - std::max(s, g->first));
            if (inside <= 0) continue;
            Range& rg = byName[t.nameAt(i)];
            rg.idle += inside;
            rg.time += e - s;
            rg.count += 1;
            if (inside > rg.worstInside) {
                rg.worstInside = inside;
                rg.worst = {ti, static_cast<uint32_t>(i), s, e, t.key.pid, -1, std::string(r.str(t.nameAt(i)))};
            }
        }
    }
    std::vector<std::pair<std::string, Range>> rows;
    for (auto& [name, rg] : byName) rows.emplace_back(std::string(r.str(name)), rg);
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.idle > b.second.idle; });
    f.count = static_cast<int64_t>(rows.size());
    WorstOf worst;
    for (const auto& row : rows) {
        const Range& rg = row.second;
        worst.offer(rg.worstInside, rg.worst.start, [&] { return rg.worst; });
    }
    worst.into(f);
    f.totalNs = rows.empty() ? 0 : rows.front().second.idle;
    Table& t = f.table;
    t.textCol("Range");
    t.intCol("GPU Idle Inside", Measure::Duration);
    t.realCol("Of All GPU Idle", Measure::Percent, 1);
    t.intCol("Instances");
    t.realCol("Of Range Time", Measure::Percent, 1);
    for (size_t k = 0; k < rowLimit(c, rows.size()); ++k) {
        const Range& rg = rows[k].second;
        t.row().t(rows[k].first).i(rg.idle).r(percent(rg.idle, idleTotal)).i(rg.count).r(percent(rg.idle, rg.time));
    }
    if (rows.empty()) {
        f.summary = idleTotal ? "The GPU was idle " + formatDuration(idleTotal) +
                                    " in gaps of at least the threshold, outside every NVTX range."
                              : "No GPU idle gap of at least " + std::to_string(c.value("gap")) + " us.";
        if (idleTotal) f.severity = Severity::Info;
        return f;
    }
    f.severity = Severity::Info;
    f.summary = "The GPU was idle " + formatDuration(idleTotal) + " in gaps of at least " +
                std::to_string(c.value("gap")) + " us; the range holding most of it is \"" + rows.front().first +
                "\" (" + formatDuration(rows.front().second.idle) + ", " +
                std::to_string(static_cast<int>(percent(rows.front().second.idle, idleTotal) + 0.5)) + "%).";
    f.advice = "The CPU work inside these ranges is what the GPU waited for: profile it (CPU samples, OS "
               "runtime calls, --python-sampling) or move it off the critical path (prefetch, overlap, "
               "more data-loader workers).";
    return f;
}

}  // namespace sl::analysis::rules
