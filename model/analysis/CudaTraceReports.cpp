// cuda_api_trace, cuda_gpu_trace, cuda_kern_exec_sum, cuda_kern_exec_trace.
#include <algorithm>
#include <map>
#include <tuple>

#include "model/analysis/StatsReports.h"

namespace sl::analysis {
namespace {

struct Ref {
    int64_t start;
    uint32_t track, index;
};

// Events of the given kinds inside the window, ordered by start time (then track order);
// none once the run is cancelled.
std::vector<Ref> eventsByStart(const Report& r, const StatsOptions& o, std::initializer_list<EventKind> kinds) {
    std::vector<Ref> out;
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& t = r.tracks[ti];
        if (std::find(kinds.begin(), kinds.end(), t.key.kind) == kinds.end()) continue;
        for (uint32_t i = 0; i < t.size(); ++i) {
            if (o.stopAt(i)) return {};
            if (o.inWindow(t.start[i], t.endAt(i))) out.push_back({t.start[i], ti, i});
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Ref& a, const Ref& b) {
        if (a.start != b.start) return a.start < b.start;
        return a.track < b.track;
    });
    return out;
}

std::string deviceLabel(const Report& r, int32_t device) {
    const Gpu* g = r.findGpu(device);
    return (g && !g->name.empty() ? g->name + " " : std::string()) + "(" + std::to_string(device) + ")";
}

// One kernel joined with the API call that launched it.
struct KernelLaunch {
    const Track* api;
    size_t apiIndex;
    const Track* kernel;
    size_t kernelIndex;
    int64_t apiDur() const { return api->end[apiIndex] - api->start[apiIndex]; }
    int64_t queueDur() const { return kernel->start[kernelIndex] - api->end[apiIndex]; }  // < 0: none
    int64_t kernelDur() const { return kernel->end[kernelIndex] - kernel->start[kernelIndex]; }
    int64_t totalDur() const { return std::max(api->end[apiIndex], kernel->end[kernelIndex]) - api->start[apiIndex]; }
};

// The launches of the kernels inside the window; none once the run is cancelled.
std::vector<KernelLaunch> kernelLaunches(const Report& r, const StatsOptions& o) {
    if (o.cancelled()) return {};  // before the correlation index is built
    const CorrelationIndex& ci = o.cacheFor(r).correlation();
    std::vector<KernelLaunch> out;
    for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
        const Track& k = r.tracks[ti];
        if (k.key.kind != EventKind::Kernel) continue;
        for (uint32_t i = 0; i < k.size(); ++i) {
            if (o.stopAt(i)) return {};
            if (!o.inWindow(k.start[i], k.end[i])) continue;
            EventRef api = ci.launcherOf({ti, i});
            if (api.valid()) out.push_back({&r.tracks[api.track], api.index, &k, i});
        }
    }
    return out;
}

bool hasKind(const Report& r, EventKind kind) { return r.eventCount(kind) > 0; }

}  // namespace

Table runCudaApiTrace(const Report& r, const StatsOptions& o) {
    Table t("cuda_api_trace", "CUDA API Trace");
    if (!hasKind(r, EventKind::CudaApi)) return Table::skip(t.name, t.title, "does not contain CUDA API data.");
    t.intCol("Start", Measure::Timestamp);
    t.intCol("Duration", Measure::Duration);
    t.textCol("Name");
    t.intCol("Result");
    t.idCol("CorrID");
    t.idCol("Pid");
    t.idCol("Tid");
    t.intCol("T-Pri");
    t.textCol("Thread Name");
    const int64_t origin = r.timeOrigin();
    const std::vector<Ref> events = eventsByStart(r, o, {EventKind::CudaApi});
    for (size_t k = 0; k < events.size(); ++k) {
        if (o.stopAt(k)) return cancelledTable(t);
        const Ref& e = events[k];
        const Track& tr = r.tracks[e.track];
        const Thread* th = r.findThread(tr.key.pid, tr.key.tid);
        t.row()
            .i(tr.start[e.index] - origin)
            .i(tr.end[e.index] - tr.start[e.index])
            .t(std::string(apiDisplayName(r.str(tr.name[e.index]))))
            .i(tr.intAt(cols::CudaApi::Result, e.index))
            .i(tr.intAt(cols::CudaApi::Correlation, e.index))
            .i(tr.key.pid)
            .i(tr.key.tid)
            .null()
            .t(th ? th->name : std::string());
    }
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runCudaGpuTrace(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_trace", "CUDA GPU Trace");
    if (!hasKind(r, EventKind::Kernel) && !hasKind(r, EventKind::Memcpy) && !hasKind(r, EventKind::Memset))
        return Table::skip(t.name, t.title, "does not contain CUDA kernel or GPU memory data.");
    t.intCol("Start", Measure::Timestamp);
    t.intCol("Duration", Measure::Duration);
    t.idCol("CorrId");
    for (const char* n : {"GrdX", "GrdY", "GrdZ", "BlkX", "BlkY", "BlkZ", "Reg/Trd"}) t.intCol(n);
    for (const char* n : {"StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)", "Throughput (MB/s)"}) t.realCol(n, Measure::None, 3);
    t.textCol("SrcMemKd");
    t.textCol("DstMemKd");
    t.textCol("Device");
    t.idCol("Ctx");
    t.idCol("Strm");
    t.textCol("Name");
    const int64_t origin = r.timeOrigin();
    const KernelNaming naming = kernelNaming(o);
    const std::vector<Ref> events =
        eventsByStart(r, o, {EventKind::Kernel, EventKind::Memcpy, EventKind::Memset});
    for (size_t e = 0; e < events.size(); ++e) {
        if (o.stopAt(e)) return cancelledTable(t);
        const Track& tr = r.tracks[events[e].track];
        const size_t i = events[e].index;
        const int64_t dur = tr.end[i] - tr.start[i];
        auto row = t.row();
        row.i(tr.start[i] - origin).i(dur).i(tr.intAt(0, i));
        if (tr.key.kind == EventKind::Kernel) {
            const uint32_t launch = tr.col<uint32_t>(cols::Kernel::Launch)[i];
            KernelLaunchInfo li;
            if (launch < r.kernelLaunches.size()) li = r.kernelLaunches[launch];
            for (uint32_t v : li.grid) row.i(v);
            for (uint32_t v : li.block) row.i(v);
            row.i(li.registersPerThread).r(li.staticSharedBytes / 1e6).r(li.dynamicSharedBytes / 1e6);
            row.null().null().null().null();
        } else {
            for (int k = 0; k < 7; ++k) row.null();
            row.null().null();
            const bool copy = tr.key.kind == EventKind::Memcpy;
            const double bytes = static_cast<double>(tr.intAt(copy ? int(cols::Memcpy::Bytes) : int(cols::Memset::Bytes), i));
            row.r(bytes / 1e6);
            if (dur > 0) row.r(bytes / 1e6 / (static_cast<double>(dur) / 1e9));
            else row.null();
            if (copy) {
                row.t(std::string(memoryKindName(static_cast<MemoryKind>(tr.col<uint8_t>(cols::Memcpy::SrcKind)[i]))));
                row.t(std::string(memoryKindName(static_cast<MemoryKind>(tr.col<uint8_t>(cols::Memcpy::DstKind)[i]))));
            } else {
                row.t(std::string(memoryKindName(static_cast<MemoryKind>(tr.col<uint8_t>(cols::Memset::MemKind)[i])))).null();
            }
        }
        row.t(deviceLabel(r, tr.key.device)).i(tr.key.context).i(tr.key.stream);
        if (tr.key.kind == EventKind::Kernel) row.t(std::string(r.str(kernelNameId(r, tr, i, naming))));
        else if (tr.key.kind == EventKind::Memcpy)
            row.t(memcpyOperationName(static_cast<CopyKind>(tr.col<uint8_t>(cols::Memcpy::CopyKind)[i])));
        else row.t("[CUDA memset]");
    }
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runCudaKernExecTrace(const Report& r, const StatsOptions& o) {
    Table t("cuda_kern_exec_trace", "CUDA Kernel Launch & Exec Time Trace");
    if (!hasKind(r, EventKind::Kernel)) return Table::skip(t.name, t.title, "does not contain CUDA kernel data.");
    if (!hasKind(r, EventKind::CudaApi)) return Table::skip(t.name, t.title, "does not contain CUDA API data.");
    for (const char* n : {"API Start", "API Dur", "Queue Start", "Queue Dur", "Kernel Start", "Kernel Dur", "Total Dur"})
        t.intCol(n, std::string_view(n).find("Start") != std::string_view::npos ? Measure::Timestamp : Measure::Duration);
    t.idCol("PID");
    t.idCol("TID");
    t.idCol("DevId");
    for (const char* n : {"API Function", "GridXYZ", "BlockXYZ", "Kernel Name"}) t.textCol(n);
    auto launches = kernelLaunches(r, o);
    if (o.cancelled()) return cancelledTable(t);
    std::stable_sort(launches.begin(), launches.end(), [](const KernelLaunch& a, const KernelLaunch& b) {
        return a.api->start[a.apiIndex] < b.api->start[b.apiIndex];
    });
    const int64_t origin = r.timeOrigin();
    const KernelNaming naming = kernelNaming(o);
    for (size_t k = 0; k < launches.size(); ++k) {
        if (o.stopAt(k)) return cancelledTable(t);
        const KernelLaunch& l = launches[k];
        auto row = t.row();
        row.i(l.api->start[l.apiIndex] - origin).i(l.apiDur());
        if (l.queueDur() >= 0) row.i(l.api->end[l.apiIndex] - origin).i(l.queueDur());
        else row.null().null();
        row.i(l.kernel->start[l.kernelIndex] - origin).i(l.kernelDur()).i(l.totalDur());
        row.i(l.api->key.pid).i(l.api->key.tid).i(l.kernel->key.device);
        const uint32_t launch = l.kernel->col<uint32_t>(cols::Kernel::Launch)[l.kernelIndex];
        KernelLaunchInfo li;
        if (launch < r.kernelLaunches.size()) li = r.kernelLaunches[launch];
        row.t(std::string(apiDisplayName(r.str(l.api->name[l.apiIndex])))).t(dims3(li.grid)).t(dims3(li.block));
        row.t(std::string(r.str(kernelNameId(r, *l.kernel, l.kernelIndex, naming))));
    }
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runCudaKernExecSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_kern_exec_sum", "CUDA Kernel Launch & Exec Time Summary");
    if (!hasKind(r, EventKind::Kernel)) return Table::skip(t.name, t.title, "does not contain CUDA kernel data.");
    if (!hasKind(r, EventKind::CudaApi)) return Table::skip(t.name, t.title, "does not contain CUDA API data.");
    struct Acc {
        std::vector<int64_t> total, api, queue, kernel;
    };
    const KernelNaming naming = kernelNaming(o);
    std::map<std::tuple<int64_t, int64_t, int32_t, std::string_view, std::string_view>, Acc> groups;
    const std::vector<KernelLaunch> launches = kernelLaunches(r, o);
    for (size_t k = 0; k < launches.size(); ++k) {
        if (o.stopAt(k)) return cancelledTable(t);
        const KernelLaunch& l = launches[k];
        Acc& a = groups[{l.api->key.pid, l.api->key.tid, l.kernel->key.device, apiDisplayName(r.str(l.api->name[l.apiIndex])),
                         r.str(kernelNameId(r, *l.kernel, l.kernelIndex, naming))}];
        a.total.push_back(l.totalDur());
        a.api.push_back(l.apiDur());
        if (l.queueDur() >= 0) a.queue.push_back(l.queueDur());
        a.kernel.push_back(l.kernelDur());
    }
    t.idCol("PID");
    t.idCol("TID");
    t.idCol("DevId");
    t.intCol("Count");
    t.intCol("QCount");
    for (const char* p : {"T", "A", "Q", "K"}) {
        t.realCol(std::string(p) + "Avg", Measure::Duration, 1);
        t.realCol(std::string(p) + "Med", Measure::Duration, 1);
        t.intCol(std::string(p) + "Min", Measure::Duration);
        t.intCol(std::string(p) + "Max", Measure::Duration);
        t.realCol(std::string(p) + "StdDev", Measure::Duration, 1);
    }
    t.textCol("API Name");
    t.textCol("Kernel Name");
    struct Row {
        decltype(groups)::const_iterator it;
        DurationStats s[4];
    };
    std::vector<Row> rows;
    if (o.cancelled()) return cancelledTable(t);
    for (auto it = groups.begin(); it != groups.end(); ++it) {
        if (o.cancelled()) return cancelledTable(t);  // a group's four summaries may be long
        Acc a = it->second;
        rows.push_back({it, {summarize(a.total), summarize(a.api), summarize(a.queue), summarize(a.kernel)}});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.s[0].avg > b.s[0].avg; });
    for (const Row& row : rows) {
        const auto& [pid, tid, dev, api, kernel] = row.it->first;
        auto w = t.row();
        w.i(pid).i(tid).i(dev).i(row.s[0].count).i(row.s[2].count);
        for (const DurationStats& s : row.s) {
            if (s.count == 0) w.null().null().null().null().null();
            else w.r(s.avg).r(s.median).i(s.min).i(s.max).r(s.stddev);
        }
        w.t(std::string(api)).t(std::string(kernel));
    }
    return t;
}

}  // namespace sl::analysis
