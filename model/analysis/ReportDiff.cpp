#include "model/analysis/ReportDiff.h"

#include <algorithm>
#include <map>

#include "model/analysis/StatsCommon.h"

namespace sl::analysis {
namespace {

using Totals = std::map<std::string, DiffSide>;

void add(Totals& t, std::string name, int64_t dur) {
    DiffSide& s = t[std::move(name)];
    ++s.count;
    s.total += dur;
}

Totals aggregate(const Report& r, DiffCategory c, DiffMatch match) {
    Totals out;
    for (const auto& t : r.tracks) {
        const EventKind k = t.key.kind;
        switch (c) {
            case DiffCategory::Kernels:
                if (k != EventKind::Kernel) continue;
                {
                    // Sum per string id first: names repeat millions of times.
                    std::map<uint32_t, DiffSide> byId;
                    const KernelNaming naming = match == DiffMatch::Base ? KernelNaming::Base : KernelNaming::Demangled;
                    for (size_t i = 0; i < t.size(); ++i) {
                        DiffSide& s = byId[kernelNameId(r, t, i, naming)];
                        ++s.count;
                        s.total += t.end[i] - t.start[i];
                    }
                    for (const auto& [id, s] : byId) {
                        DiffSide& d = out[std::string(r.str(id))];
                        d.count += s.count;
                        d.total += s.total;
                    }
                }
                break;
            case DiffCategory::Api:
                if (k != EventKind::CudaApi) continue;
                for (size_t i = 0; i < t.size(); ++i) add(out, std::string(apiDisplayName(r.str(t.name[i]))), t.end[i] - t.start[i]);
                break;
            case DiffCategory::Nvtx:
                if (k != EventKind::NvtxRange) continue;
                for (size_t i = 0; i < t.size(); ++i) add(out, nvtxRangeName(r, t, i, false), t.end[i] - t.start[i]);
                break;
            case DiffCategory::MemOps:
                if (k == EventKind::Memcpy) {
                    for (size_t i = 0; i < t.size(); ++i)
                        add(out, memcpyOperationName(static_cast<CopyKind>(t.col<uint8_t>(cols::Memcpy::CopyKind)[i])),
                            t.end[i] - t.start[i]);
                } else if (k == EventKind::Memset) {
                    for (size_t i = 0; i < t.size(); ++i) add(out, "[CUDA memset]", t.end[i] - t.start[i]);
                }
                break;
        }
    }
    return out;
}

std::optional<double> percentChange(double a, double b) {
    if (a == 0) return std::nullopt;
    return (b - a) * 100.0 / a;
}

}  // namespace

Result<std::vector<DiffCategory>> parseDiffCategories(const std::string& text) {
    std::vector<DiffCategory> out;
    size_t b = 0;
    while (b <= text.size()) {
        size_t e = text.find(',', b);
        if (e == std::string::npos) e = text.size();
        const std::string w = text.substr(b, e - b);
        if (w == "all") out = {DiffCategory::Kernels, DiffCategory::Api, DiffCategory::Nvtx, DiffCategory::MemOps};
        else if (w == "kernels") out.push_back(DiffCategory::Kernels);
        else if (w == "api") out.push_back(DiffCategory::Api);
        else if (w == "nvtx") out.push_back(DiffCategory::Nvtx);
        else if (w == "memops") out.push_back(DiffCategory::MemOps);
        else return makeError("unknown category '" + w + "' (kernels, api, nvtx, memops or all)");
        b = e + 1;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string_view diffCategoryName(DiffCategory c) {
    switch (c) {
        case DiffCategory::Kernels: return "kernel";
        case DiffCategory::Api: return "api";
        case DiffCategory::Nvtx: return "nvtx";
        case DiffCategory::MemOps: return "memops";
    }
    return "";
}

SessionSummary summarizeSession(const Report& r) {
    SessionSummary s;
    s.durationNs = r.session.durationNs > 0 ? r.session.durationNs : r.tMax() - r.tMin();
    std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>> byDevice;
    for (const auto& t : r.tracks) {
        switch (t.key.kind) {
            case EventKind::Kernel: s.kernels += static_cast<int64_t>(t.size()); break;
            case EventKind::CudaApi: s.apiCalls += static_cast<int64_t>(t.size()); break;
            case EventKind::NvtxRange: s.nvtxRanges += static_cast<int64_t>(t.size()); break;
            case EventKind::Memcpy:
            case EventKind::Memset: s.memOps += static_cast<int64_t>(t.size()); break;
            default: break;
        }
        if (t.key.kind != EventKind::Kernel && t.key.kind != EventKind::Memcpy && t.key.kind != EventKind::Memset) continue;
        auto& v = byDevice[t.key.device];
        for (size_t i = 0; i < t.size(); ++i) v.emplace_back(t.start[i], t.end[i]);
    }
    for (auto& [dev, v] : byDevice) {
        std::sort(v.begin(), v.end());
        int64_t curS = INT64_MIN, curE = INT64_MIN;
        for (const auto& [a, b] : v) {
            if (a > curE) {
                if (curE > curS) s.gpuBusyNs += curE - curS;
                curS = a;
                curE = b;
            } else {
                curE = std::max(curE, b);
            }
        }
        if (curE > curS && curS != INT64_MIN) s.gpuBusyNs += curE - curS;
    }
    return s;
}

DiffResult diffReports(const Report& baseline, const Report& comparison, const DiffOptions& o) {
    DiffResult d;
    d.baseline = summarizeSession(baseline);
    d.comparison = summarizeSession(comparison);
    for (DiffCategory c : o.categories) {
        if (o.cancel && o.cancel->load(std::memory_order_relaxed)) return d;
        Totals a = aggregate(baseline, c, o.match), b = aggregate(comparison, c, o.match);
        for (auto& [name, side] : a) {
            DiffItem item{c, name, side, {}};
            if (auto it = b.find(name); it != b.end()) item.comparison = it->second;
            d.items.push_back(std::move(item));
        }
        for (auto& [name, side] : b)
            if (!a.count(name)) d.items.push_back({c, name, {}, side});
    }
    std::stable_sort(d.items.begin(), d.items.end(), [](const DiffItem& x, const DiffItem& y) {
        const int64_t ax = x.delta() < 0 ? -x.delta() : x.delta(), ay = y.delta() < 0 ? -y.delta() : y.delta();
        if (ax != ay) return ax > ay;
        if (x.category != y.category) return x.category < y.category;
        return x.name < y.name;
    });
    return d;
}

Table diffSummaryTable(const DiffResult& d) {
    Table t("diff_summary", "Sessions");
    t.textCol("Metric");
    t.realCol("Baseline", Measure::None, 0);
    t.realCol("Comparison", Measure::None, 0);
    t.realCol("Delta", Measure::None, 0);
    t.realCol("Change", Measure::Percent, 1);
    auto row = [&](const char* name, int64_t a, int64_t b) {
        auto w = t.row();
        w.t(name).r(static_cast<double>(a)).r(static_cast<double>(b)).r(static_cast<double>(b - a));
        if (auto p = percentChange(static_cast<double>(a), static_cast<double>(b))) w.r(*p);
        else w.null();
    };
    row("Duration (ns)", d.baseline.durationNs, d.comparison.durationNs);
    row("GPU busy (ns)", d.baseline.gpuBusyNs, d.comparison.gpuBusyNs);
    row("Kernels", d.baseline.kernels, d.comparison.kernels);
    row("CUDA API calls", d.baseline.apiCalls, d.comparison.apiCalls);
    row("NVTX ranges", d.baseline.nvtxRanges, d.comparison.nvtxRanges);
    row("Memory operations", d.baseline.memOps, d.comparison.memOps);
    return t;
}

Table diffItemsTable(const DiffResult& d) {
    Table t("diff", "Differences (comparison minus baseline)");
    t.textCol("Category");
    t.intCol("Count A");
    t.intCol("Count B");
    t.intCol("Total A", Measure::Duration);
    t.intCol("Total B", Measure::Duration);
    t.realCol("Avg A", Measure::Duration, 1);
    t.realCol("Avg B", Measure::Duration, 1);
    t.intCol("Delta", Measure::Duration);
    t.realCol("Change", Measure::Percent, 1);
    t.textCol("Presence");
    t.textCol("Name");
    for (const DiffItem& i : d.items) {
        auto w = t.row();
        w.t(std::string(diffCategoryName(i.category))).i(i.baseline.count).i(i.comparison.count);
        w.i(i.baseline.total).i(i.comparison.total);
        if (i.inBaseline()) w.r(i.baseline.avg());
        else w.null();
        if (i.inComparison()) w.r(i.comparison.avg());
        else w.null();
        w.i(i.delta());
        if (auto p = percentChange(static_cast<double>(i.baseline.total), static_cast<double>(i.comparison.total))) w.r(*p);
        else w.null();
        w.t(i.inBaseline() && i.inComparison() ? "both" : i.inBaseline() ? "only A" : "only B").t(i.name);
    }
    return t;
}

}  // namespace sl::analysis
