// osrt_sum and cpu_util_sum.
#include <algorithm>
#include <map>
#include <set>

#include "model/analysis/DenseGroups.h"
#include "model/analysis/DurationScan.h"
#include "model/analysis/StatsReports.h"

namespace sl::analysis {

Table runOsrtSum(const Report& r, const StatsOptions& o) {
    Table t("osrt_sum", "OS Runtime Summary");
    const ScannedDurations* scanned = o.scanned ? o.scanned->find(EventKind::OsRuntime) : nullptr;
    if ((scanned ? scanned->events : r.eventCount(EventKind::OsRuntime)) == 0)
        return Table::skip(t.name, t.title, "does not contain OS Runtime trace data.");
    if (scanned) {
        std::vector<SummaryRow> rows = scannedRowsByName(*scanned, [&](uint32_t id) { return r.str(id); });
        fillSummaryRows(t, {"Num Calls", {"Name"}}, rows);
        return t;
    }
    DenseGroups byId = durationsByName(r, EventKind::OsRuntime, o);
    if (o.cancelled()) return cancelledTable(t);
    std::vector<SummaryGroup> g = mergedByName(byId, [&](uint32_t id) { return r.str(id); });
    fillSummary(t, {"Num Calls", {"Name"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

// Our own report (nsys has no equivalent under this name): how long each thread ran on a
// CPU, from the thread-state (scheduling) events, as a share of the session or window.
Table runCpuUtilSum(const Report& r, const StatsOptions& o) {
    Table t("cpu_util_sum", "CPU Utilization Summary (per thread)");
    if (r.eventCount(EventKind::ThreadState) == 0)
        return Table::skip(t.name, t.title, "does not contain CPU thread scheduling data.");
    struct Acc {
        int64_t running = 0, slices = 0;
        std::set<int> cpus;
    };
    std::map<std::pair<int64_t, int64_t>, Acc> threads;
    for (const auto& tr : r.tracks) {
        if (tr.key.kind != EventKind::ThreadState) continue;
        const auto& cpu = tr.col<int16_t>(cols::ThreadState::Cpu);
        for (size_t i = 0; i < tr.size(); ++i) {
            if (o.stopAt(i)) return cancelledTable(t);
            if (!o.inWindow(tr.start[i], tr.end[i])) continue;
            Acc& a = threads[{tr.key.pid, tr.key.tid}];
            a.running += tr.end[i] - tr.start[i];
            ++a.slices;
            if (cpu[i] >= 0) a.cpus.insert(cpu[i]);
        }
    }
    int64_t span = r.session.durationNs > 0 ? r.session.durationNs : r.tMax() - r.tMin();
    if (o.bounded()) span = std::min(o.end, r.tMax()) - std::max(o.start, r.tMin());
    t.realCol("Util", Measure::Percent, 1);
    t.intCol("Running Time", Measure::Duration);
    t.intCol("Slices");
    t.intCol("CPUs");
    t.idCol("PID");
    t.idCol("TID");
    t.textCol("Thread Name");
    std::vector<std::pair<const std::pair<int64_t, int64_t>*, const Acc*>> rows;
    for (const auto& [k, a] : threads) rows.push_back({&k, &a});
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second->running > b.second->running; });
    for (const auto& [k, a] : rows) {
        const Thread* th = r.findThread(k->first, k->second);
        t.row()
            .r(span > 0 ? static_cast<double>(a->running) * 100.0 / static_cast<double>(span) : 0.0)
            .i(a->running)
            .i(a->slices)
            .i(static_cast<int64_t>(a->cpus.size()))
            .i(k->first)
            .i(k->second)
            .t(th ? th->name : std::string());
    }
    return t;
}

}  // namespace sl::analysis
