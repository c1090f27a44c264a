// nvtx_sum, nvtx_pushpop_sum, nvtx_startend_sum, nvtx_pushpop_trace, nvtx_gpu_proj_sum, nvtx_gpu_proj_trace, nvtx_kern_sum.
#include <algorithm>
#include <map>
#include <tuple>

#include "model/analysis/DurationScan.h"
#include "model/analysis/StatsReports.h"

namespace sl::analysis {
namespace {

constexpr const char* kNoNvtx = "does not contain NV Tools Extension (NVTX) data.";

const Track& trackOf(const Report& r, EventRef e) { return r.tracks[e.track]; }

Table nvtxSummaryOfStyles(const Report& r, const StatsOptions& o, Table t, bool pushPop,
                          bool startEndStyle);

}  // namespace

Table runNvtxSum(const Report& r, const StatsOptions& o) {
    Table t("nvtx_sum", "NVTX Range Summary");
    if (const ScannedNvtx* s = o.scanned ? o.scanned->nvtx.get() : nullptr) {
        // Folded from the file's chunks (DurationScan.h): keys of the same label are one group.
        if (s->durations.events == 0) return Table::skip(t.name, t.title, kNoNvtx);
        auto labelOf = [&](uint32_t key) {
            const uint32_t rest = key % s->stride;
            return std::pair<std::string_view, std::string>{rest % 2 ? "StartEnd" : "PushPop",
                                                            s->prefixes[key / s->stride] + std::string(r.str(rest / 2))};
        };
        std::map<std::pair<std::string_view, std::string>, uint32_t> first;  // label -> its first key
        std::vector<SummaryRow> rows;
        for (auto& [key, stats] : s->durations.summarize([&](uint32_t key) { return first.emplace(labelOf(key), key).first->second; })) {
            auto [style, label] = labelOf(key);
            rows.push_back({{std::string(style), std::move(label)}, stats});
        }
        fillSummaryRows(t, {"Instances", {"Style", "Range"}}, rows);
        return t;
    }
    return nvtxSummaryOfStyles(r, o, t, true, true);
}

// nsys's per-style summaries of older releases, still shipped and scripted against: one style's
// ranges, without the Style column.
Table runNvtxPushPopSum(const Report& r, const StatsOptions& o) {
    Table t("nvtx_pushpop_sum", "NVTX Push/Pop Range Summary");
    return nvtxSummaryOfStyles(r, o, t, true, false);
}

Table runNvtxStartEndSum(const Report& r, const StatsOptions& o) {
    Table t("nvtx_startend_sum", "NVTX Start/End Range Summary");
    return nvtxSummaryOfStyles(r, o, t, false, true);
}

namespace {

// The ranges of the styles asked for, by (style, "domain:name") as shown; the Style column
// only when both styles are.
Table nvtxSummaryOfStyles(const Report& r, const StatsOptions& o, Table t, bool pushPop, bool startEndStyle) {
    if (r.eventCount(EventKind::NvtxRange) == 0) return Table::skip(t.name, t.title, kNoNvtx);
    const bool both = pushPop && startEndStyle;
    // Groups by (style, "domain:name") as shown. The label is built once per distinct (domain,
    // name id, style), not per range (a string and a map lookup per range cost ~150 ns, issue
    // #23); values still go to their group in the order of one pass, so the sums are the same.
    std::map<std::pair<std::string_view, std::string>, uint32_t> byLabel;
    std::vector<std::vector<int64_t>> values;
    // By the track's (pid, domain): group index + 1 (0: not seen) of each name id and style.
    std::map<std::pair<int64_t, uint32_t>, std::vector<uint32_t>> byId;
    for (const auto& tr : r.tracks) {
        if (tr.key.kind != EventKind::NvtxRange || tr.empty()) continue;
        std::vector<uint32_t>& slots = byId[{tr.key.pid, tr.key.domain}];
        const auto rangeType = tr.col<uint8_t>(cols::Nvtx::RangeType);
        for (size_t i = 0; i < tr.size(); ++i) {
            if (o.stopAt(i)) return cancelledTable(t);
            if (!o.inWindow(tr.start[i], tr.end[i])) continue;
            const bool startEnd = rangeType[i] == static_cast<uint8_t>(RangeType::StartEnd);
            if (startEnd ? !startEndStyle : !pushPop) continue;
            const size_t slot = 2 * size_t{tr.nameAt(i)} + (startEnd ? 1 : 0);
            if (slot >= slots.size()) slots.resize(std::max(slot + 1, 2 * r.strings.size()), 0);
            if (slots[slot] == 0) {
                auto [it, added] = byLabel.try_emplace({nvtxStyle(tr, i), nvtxRangeName(r, tr, i, false)},
                                                       static_cast<uint32_t>(values.size()));
                if (added) values.emplace_back();
                slots[slot] = it->second + 1;
            }
            values[slots[slot] - 1].push_back(tr.end[i] - tr.start[i]);
        }
    }
    // One style's summary of a report without that style: said, as nsys says a report lacks data.
    if (!both && byLabel.empty())
        return Table::skip(t.name, t.title,
                           pushPop ? "does not contain NVTX push/pop ranges."
                                   : "does not contain NVTX start/end ranges.");
    std::vector<SummaryGroup> g;
    for (auto& [key, index] : byLabel) {
        if (both)
            g.push_back({{std::string(key.first), key.second}, std::move(values[index])});
        else
            g.push_back({{key.second}, std::move(values[index])});
    }
    if (both)
        fillSummary(t, {"Instances", {"Style", "Range"}}, g, o.cancel);
    else
        fillSummary(t, {"Instances", {"Range"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

}  // namespace

Table runNvtxPushPopTrace(const Report& r, const StatsOptions& o) {
    Table t("nvtx_pushpop_trace", "NVTX Push/Pop Range Trace");
    if (r.eventCount(EventKind::NvtxRange) == 0) return Table::skip(t.name, t.title, kNoNvtx);
    if (o.cancelled()) return cancelledTable(t);  // before the range tree is built
    const NvtxRangeTree& tree = o.cacheFor(r).nvtxTree();
    const auto& nodes = tree.nodes();
    std::vector<int64_t> childDur(nodes.size(), 0);
    for (const auto& n : nodes)
        if (n.parent != NvtxRangeTree::kNone) childDur[n.parent] += n.end - n.start;
    std::vector<uint32_t> order;
    for (uint32_t n = 0; n < nodes.size(); ++n) {
        if (o.stopAt(n)) return cancelledTable(t);
        const Track& tr = trackOf(r, nodes[n].ref);
        if (nvtxStyle(tr, nodes[n].ref.index) == "PushPop" && o.inWindow(nodes[n].start, nodes[n].end)) order.push_back(n);
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return nodes[a].start < nodes[b].start; });
    t.intCol("Start", Measure::Timestamp);
    t.intCol("End", Measure::Timestamp);
    t.intCol("Duration", Measure::Duration);
    t.intCol("DurChild", Measure::Duration);
    t.intCol("DurNonChild", Measure::Duration);
    t.textCol("Name");
    t.idCol("PID");
    t.idCol("TID");
    t.intCol("Lvl");
    t.intCol("NumChild");
    t.idCol("RangeId");
    t.idCol("ParentId");
    t.textCol("RangeStack");
    const int64_t origin = r.timeOrigin();
    for (size_t k = 0; k < order.size(); ++k) {
        if (o.stopAt(k)) return cancelledTable(t);
        const uint32_t n = order[k];
        const auto& node = nodes[n];
        const int64_t dur = node.end - node.start;
        auto row = t.row();
        row.i(node.start - origin).i(node.end - origin).i(dur).i(childDur[n]).i(dur - childDur[n]);
        row.t(nvtxRangeName(r, trackOf(r, node.ref), node.ref.index, false)).i(node.pid).i(node.tid);
        row.i(node.level).i(node.childCount).i(tree.rangeId(n));
        if (node.parent == NvtxRangeTree::kNone) row.null();
        else row.i(tree.rangeId(node.parent));
        row.t(tree.rangeStack(n));
    }
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runNvtxGpuProjTrace(const Report& r, const StatsOptions& o) {
    Table t("nvtx_gpu_proj_trace", "NVTX GPU Projection Trace");
    if (r.eventCount(EventKind::NvtxRange) == 0) return Table::skip(t.name, t.title, kNoNvtx);
    if (r.eventCount(EventKind::CudaApi) == 0) return Table::skip(t.name, t.title, "does not contain CUDA API data.");
    if (o.cancelled()) return cancelledTable(t);  // before the indexes are built
    AnalysisCache& cache = o.cacheFor(r);
    const NvtxRangeTree& tree = cache.nvtxTree();
    t.textCol("Name");
    t.intCol("Projected Start", Measure::Timestamp);
    t.intCol("Projected Duration", Measure::Duration);
    t.intCol("Orig Start", Measure::Timestamp);
    t.intCol("Orig Duration", Measure::Duration);
    t.textCol("Style");
    t.idCol("PID");
    t.idCol("TID");
    t.intCol("NumGPUOps");
    t.intCol("Lvl");
    t.intCol("NumChild");
    t.idCol("RangeId");
    t.idCol("ParentId");
    t.textCol("RangeStack");
    const int64_t origin = r.timeOrigin();
    const std::vector<ProjectedRange>& ranges = cache.projection().ranges();
    for (size_t k = 0; k < ranges.size(); ++k) {
        if (o.stopAt(k)) return cancelledTable(t);
        const ProjectedRange& p = ranges[k];
        const auto& node = tree.nodes()[p.node];
        if (!o.inWindow(node.start, node.end)) continue;
        const Track& tr = trackOf(r, node.ref);
        auto row = t.row();
        row.t(nvtxRangeName(r, tr, node.ref.index, true)).i(p.projStart - origin).i(p.projDuration());
        row.i(node.start - origin).i(node.end - node.start).t(std::string(nvtxStyle(tr, node.ref.index)));
        row.i(node.pid).i(node.tid).i(p.gpuOps).i(node.level).i(p.projectedChildren).i(tree.rangeId(p.node));
        if (node.parent == NvtxRangeTree::kNone) row.null();
        else row.i(tree.rangeId(node.parent));
        row.t(tree.rangeStack(p.node));
    }
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runNvtxGpuProjSum(const Report& r, const StatsOptions& o) {
    Table t("nvtx_gpu_proj_sum", "NVTX GPU Projection Summary");
    if (r.eventCount(EventKind::NvtxRange) == 0) return Table::skip(t.name, t.title, kNoNvtx);
    if (r.eventCount(EventKind::CudaApi) == 0) return Table::skip(t.name, t.title, "does not contain CUDA API data.");
    if (o.cancelled()) return cancelledTable(t);  // before the indexes are built
    AnalysisCache& cache = o.cacheFor(r);
    const NvtxRangeTree& tree = cache.nvtxTree();
    struct Acc {
        std::vector<int64_t> proj;
        int64_t rangeTime = 0, ops = 0, levels = 0, children = 0;
    };
    std::map<std::pair<std::string, std::string_view>, Acc> groups;
    const std::vector<ProjectedRange>& ranges = cache.projection().ranges();
    for (size_t k = 0; k < ranges.size(); ++k) {
        if (o.stopAt(k)) return cancelledTable(t);
        const ProjectedRange& p = ranges[k];
        const auto& node = tree.nodes()[p.node];
        if (!o.inWindow(node.start, node.end)) continue;
        const Track& tr = trackOf(r, node.ref);
        Acc& a = groups[{nvtxRangeName(r, tr, node.ref.index, true), nvtxStyle(tr, node.ref.index)}];
        a.proj.push_back(p.projDuration());
        a.rangeTime += node.end - node.start;
        a.ops += p.gpuOps;
        a.levels += node.level;
        a.children += p.projectedChildren;
    }
    t.textCol("Range");
    t.textCol("Style");
    t.intCol("Total Proj Time", Measure::Duration);
    t.intCol("Total Range Time", Measure::Duration);
    t.intCol("Range Instances");
    t.realCol("Proj Avg", Measure::Duration, 1);
    t.realCol("Proj Med", Measure::Duration, 1);
    t.intCol("Proj Min", Measure::Duration);
    t.intCol("Proj Max", Measure::Duration);
    t.realCol("Proj StdDev", Measure::Duration, 1);
    t.intCol("Total GPU Ops");
    t.realCol("Avg GPU Ops", Measure::None, 1);
    t.realCol("Avg Range Lvl", Measure::None, 1);
    t.realCol("Avg Num Child", Measure::None, 1);
    struct Row {
        const std::pair<std::string, std::string_view>* key;
        Acc* acc;
        DurationStats s;
    };
    std::vector<Row> rows;
    for (auto& [key, acc] : groups) {
        if (o.cancelled()) return cancelledTable(t);
        std::vector<int64_t> v = acc.proj;
        rows.push_back({&key, &acc, summarize(v)});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.s.total > b.s.total; });
    for (const Row& row : rows) {
        const double n = static_cast<double>(row.s.count);
        t.row()
            .t(row.key->first)
            .t(std::string(row.key->second))
            .i(row.s.total)
            .i(row.acc->rangeTime)
            .i(row.s.count)
            .r(row.s.avg)
            .r(row.s.median)
            .i(row.s.min)
            .i(row.s.max)
            .r(row.s.stddev)
            .i(row.acc->ops)
            .r(static_cast<double>(row.acc->ops) / n)
            .r(static_cast<double>(row.acc->levels) / n)
            .r(static_cast<double>(row.acc->children) / n);
    }
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runNvtxKernSum(const Report& r, const StatsOptions& o) {
    Table t("nvtx_kern_sum", "NVTX Range Kernel Summary");
    if (r.eventCount(EventKind::NvtxRange) == 0) return Table::skip(t.name, t.title, kNoNvtx);
    if (r.eventCount(EventKind::Kernel) == 0) return Table::skip(t.name, t.title, "does not contain CUDA kernel data.");
    if (r.eventCount(EventKind::CudaApi) == 0) return Table::skip(t.name, t.title, "does not contain CUDA API data.");
    if (o.cancelled()) return cancelledTable(t);  // before the indexes are built
    AnalysisCache& cache = o.cacheFor(r);
    const CorrelationIndex& ci = cache.correlation();
    const NvtxRangeTree& tree = cache.nvtxTree();
    const KernelNaming naming = kernelNaming(o);
    // Groups are keyed by integers (interned range name, pid, tid, style, kernel name id):
    // a kernel inside d nested ranges is counted d times, so the hot path must not build strings.
    using Key = std::tuple<uint32_t, int64_t, int64_t, uint8_t, uint32_t>;
    struct Acc {
        uint32_t lastNode = UINT32_MAX;
        int64_t ranges = 0;
        std::vector<uint64_t> kernels;  // (track, index), deduplicated at the end
        std::vector<int64_t> durations;
    };
    std::map<Key, Acc> groups;
    std::vector<std::string> rangeNames;
    std::map<std::string, uint32_t> rangeIds;
    struct Call {
        int64_t start, end;
        uint32_t correlation;
    };
    std::vector<Call> calls;
    const auto& nodes = tree.nodes();
    for (uint32_t n = 0; n < nodes.size(); ++n) {
        if (o.stopAt(n)) return cancelledTable(t);
        const auto& node = nodes[n];
        if (n == 0 || nodes[n - 1].pid != node.pid || nodes[n - 1].tid != node.tid) {
            calls.clear();
            if (const Track* api = r.findTrack(TrackKey::forThread(EventKind::CudaApi, node.pid, node.tid))) {
                for (size_t i = 0; i < api->size(); ++i)
                    calls.push_back({api->start[i], api->end[i], api->col<uint32_t>(cols::CudaApi::Correlation)[i]});
                std::stable_sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) { return a.start < b.start; });
            }
        }
        const Track& rt = trackOf(r, node.ref);
        uint32_t rangeId = UINT32_MAX;
        const uint8_t style = nvtxStyle(rt, node.ref.index) == "StartEnd" ? 1 : 0;
        auto it = std::lower_bound(calls.begin(), calls.end(), node.start, [](const Call& c, int64_t s) { return c.start < s; });
        for (; it != calls.end() && it->start <= node.end; ++it) {
            if (it->end > node.end) continue;
            for (const EventRef& op : ci.gpuOps(node.pid, it->correlation)) {
                const Track& k = trackOf(r, op);
                if (k.key.kind != EventKind::Kernel || !o.inWindow(k.start[op.index], k.end[op.index])) continue;
                if (rangeId == UINT32_MAX) {
                    auto [pos, inserted] = rangeIds.try_emplace(nvtxRangeName(r, rt, node.ref.index, true),
                                                                static_cast<uint32_t>(rangeNames.size()));
                    if (inserted) rangeNames.push_back(pos->first);
                    rangeId = pos->second;
                }
                Acc& a = groups[{rangeId, node.pid, node.tid, style, kernelNameId(r, k, op.index, naming)}];
                if (a.lastNode != n) {
                    a.lastNode = n;
                    ++a.ranges;
                }
                a.kernels.push_back((static_cast<uint64_t>(op.track) << 32) | op.index);
                a.durations.push_back(k.end[op.index] - k.start[op.index]);
            }
        }
    }
    t.textCol("NVTX Range");
    t.textCol("Style");
    t.idCol("PID");
    t.idCol("TID");
    t.intCol("NVTX Inst");
    t.intCol("Kern Inst");
    t.intCol("Total Time", Measure::Duration);
    t.realCol("Avg", Measure::Duration, 1);
    t.realCol("Med", Measure::Duration, 1);
    t.intCol("Min", Measure::Duration);
    t.intCol("Max", Measure::Duration);
    t.realCol("StdDev", Measure::Duration, 1);
    t.textCol("Kernel Name");
    struct Row {
        const Key* key;
        int64_t ranges, kernels;
        DurationStats s;
    };
    std::vector<Row> rows;
    for (auto& [key, acc] : groups) {
        if (o.cancelled()) return cancelledTable(t);
        std::sort(acc.kernels.begin(), acc.kernels.end());
        const auto distinct = std::unique(acc.kernels.begin(), acc.kernels.end()) - acc.kernels.begin();
        rows.push_back({&key, acc.ranges, static_cast<int64_t>(distinct), summarize(acc.durations)});
    }
    // ORDER BY range name, pid, tid, total time descending (then kernel name for stable output).
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
        const auto& [an, ap, at, as, ak] = *a.key;
        const auto& [bn, bp, bt, bs, bk] = *b.key;
        if (an != bn) return rangeNames[an] < rangeNames[bn];
        if (ap != bp) return ap < bp;
        if (at != bt) return at < bt;
        if (a.s.total != b.s.total) return a.s.total > b.s.total;
        if (as != bs) return as < bs;
        return r.str(ak) < r.str(bk);
    });
    for (const Row& row : rows) {
        const auto& [name, pid, tid, style, kernel] = *row.key;
        t.row()
            .t(rangeNames[name])
            .t(style ? "StartEnd" : "PushPop")
            .i(pid)
            .i(tid)
            .i(row.ranges)
            .i(row.kernels)
            .i(row.s.total)
            .r(row.s.avg)
            .r(row.s.median)
            .i(row.s.min)
            .i(row.s.max)
            .r(row.s.stddev)
            .t(std::string(r.str(kernel)));
    }
    return o.cancelled() ? cancelledTable(t) : t;
}

}  // namespace sl::analysis
