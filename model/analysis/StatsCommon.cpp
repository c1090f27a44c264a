#include "model/analysis/StatsCommon.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace sl::analysis {
namespace {
// Below this many values one thread is faster than starting another.
constexpr size_t kParallelValues = 200000;
}  // namespace

const CorrelationIndex& AnalysisCache::correlation() {
    if (!m_correlation) m_correlation = std::make_unique<CorrelationIndex>(m_report);
    return *m_correlation;
}

const NvtxRangeTree& AnalysisCache::nvtxTree() {
    if (!m_tree) m_tree = std::make_unique<NvtxRangeTree>(m_report);
    return *m_tree;
}

const NvtxGpuProjection& AnalysisCache::projection() {
    if (!m_projection) m_projection = std::make_unique<NvtxGpuProjection>(m_report, correlation(), nvtxTree());
    return *m_projection;
}

bool StatsOptions::hasArg(std::string_view a) const {
    return std::find(args.begin(), args.end(), a) != args.end();
}

AnalysisCache& StatsOptions::cacheFor(const Report& r) const {
    if (!cache || &cache->report() != &r) cache = std::make_shared<AnalysisCache>(r);
    return *cache;
}

DurationStats summarize(std::vector<int64_t>& v) { return summarizeRuns({{v.data(), v.size()}}); }

DurationStats summarizeRuns(const std::vector<ValueRun>& runs, const ValueExtent* known) {
    DurationStats s;
    for (const ValueRun& r : runs) s.count += static_cast<int64_t>(r.size);
    if (s.count == 0) return s;
    if (known) {
        s.total = known->total;
        s.min = known->min;
        s.max = known->max;
    } else {
        s.min = INT64_MAX;
        s.max = INT64_MIN;
        for (const ValueRun& r : runs)
            for (size_t i = 0; i < r.size; ++i) {
                const int64_t x = r.data[i];
                s.total += x;
                s.min = std::min(s.min, x);
                s.max = std::max(s.max, x);
            }
    }
    s.avg = static_cast<double>(s.total) / static_cast<double>(s.count);
    // Two passes for the variance: exact enough for nanosecond durations of any size. The
    // values are added in their order, so a group gives the same bits however it is stored.
    // The median's histogram is counted in the same pass (the values are read from memory
    // once more, not twice).
    MiddleSelector middle(static_cast<size_t>(s.count), s.min, s.max);
    double sq = 0;
    for (const ValueRun& r : runs)
        for (size_t i = 0; i < r.size; ++i) {
            const double d = static_cast<double>(r.data[i]) - s.avg;
            sq += d * d;
            middle.add(r.data[i]);
        }
    if (s.count > 1) s.stddev = std::sqrt(sq / static_cast<double>(s.count - 1));
    const MiddleValues m = middle.middle(runs);
    if (s.count % 2 == 1) s.median = static_cast<double>(m.upper);
    else s.median = (static_cast<double>(m.lower) + static_cast<double>(m.upper)) / 2.0;
    return s;
}

void fillSummary(Table& t, const SummarySpec& spec, std::vector<SummaryGroup>& groups,
                 const std::atomic<bool>* cancel) {
    std::vector<DurationStats> stats(groups.size());
    // Groups are summarized on every core, largest first (the exact median's selection is
    // linear in the group's size); each group's result is the same on any thread.
    std::vector<uint32_t> bySize(groups.size());
    size_t values = 0;
    for (const auto& g : groups) values += g.values.size();
    std::iota(bySize.begin(), bySize.end(), 0u);
    std::sort(bySize.begin(), bySize.end(),
              [&](uint32_t a, uint32_t b) { return groups[a].values.size() > groups[b].values.size(); });
    sl::parallelFor(
        bySize.size(), [&](size_t k) { stats[bySize[k]] = summarize(groups[bySize[k]].values); },
        ParallelOptions{values < kParallelValues ? 1u : 0u, cancel});
    if (cancel && cancel->load(std::memory_order_relaxed)) return;
    std::vector<SummaryRow> rows(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) rows[g] = {std::move(groups[g].labels), stats[g]};
    fillSummaryRows(t, spec, rows);
}

void fillSummaryRows(Table& t, const SummarySpec& spec, std::vector<SummaryRow>& rows) {
    int64_t grand = 0;
    for (const SummaryRow& r : rows) grand += r.stats.total;
    std::vector<uint32_t> order(rows.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (rows[a].stats.total != rows[b].stats.total) return rows[a].stats.total > rows[b].stats.total;
        if (rows[a].stats.count != rows[b].stats.count) return rows[a].stats.count < rows[b].stats.count;
        return rows[a].labels < rows[b].labels;
    });
    if (spec.megabytes) {
        for (const char* n : {"Total (MB)"}) t.realCol(n, Measure::None, 3);
        t.intCol(spec.countName);
        for (const char* n : {"Avg (MB)", "Med (MB)", "Min (MB)", "Max (MB)", "StdDev (MB)"}) t.realCol(n, Measure::None, 3);
    } else {
        if (spec.percent) t.realCol("Time", Measure::Percent, 1);
        t.intCol("Total Time", Measure::Duration);
        t.intCol(spec.countName);
        t.realCol("Avg", Measure::Duration, 1);
        t.realCol("Med", Measure::Duration, 1);
        t.intCol("Min", Measure::Duration);
        t.intCol("Max", Measure::Duration);
        t.realCol("StdDev", Measure::Duration, 1);
    }
    for (const auto& n : spec.labelNames) t.textCol(n);
    for (uint32_t g : order) {
        const DurationStats& s = rows[g].stats;
        auto row = t.row();
        if (spec.megabytes) {
            constexpr double kMB = 1e6;
            row.r(static_cast<double>(s.total) / kMB).i(s.count).r(s.avg / kMB).r(s.median / kMB);
            row.r(static_cast<double>(s.min) / kMB).r(static_cast<double>(s.max) / kMB).r(s.stddev / kMB);
        } else {
            if (spec.percent) row.r(grand > 0 ? static_cast<double>(s.total) * 100.0 / static_cast<double>(grand) : 0.0);
            row.i(s.total).i(s.count).r(s.avg).r(s.median).i(s.min).i(s.max).r(s.stddev);
        }
        for (auto& l : rows[g].labels) row.t(std::move(l));
    }
}

Table cancelledTable(const Table& t) {
    return Table::skip(t.name, t.title, std::string(kCancelled));
}

KernelNaming kernelNaming(const StatsOptions& o) {
    if (o.hasArg("base")) return KernelNaming::Base;
    if (o.hasArg("mangled")) return KernelNaming::Mangled;
    return KernelNaming::Demangled;
}

uint32_t kernelNameId(const Report& r, const Track& k, size_t i, KernelNaming naming) {
    if (naming == KernelNaming::Demangled) return k.name[i];
    const uint32_t launch = k.col<uint32_t>(cols::Kernel::Launch)[i];
    if (launch >= r.kernelLaunches.size()) return k.name[i];
    const KernelLaunchInfo& li = r.kernelLaunches[launch];
    const uint32_t id = naming == KernelNaming::Base ? li.shortName : li.mangledName;
    return id != 0 ? id : k.name[i];  // nsys falls back to the demangled name
}

std::string_view apiDisplayName(std::string_view name) {
    if (name.size() > 6 && name.substr(name.size() - 6, 2) == "_v") return name.substr(0, name.size() - 6);
    return name;
}

std::string_view memcpyKindLabel(CopyKind k) {
    switch (k) {
        case CopyKind::HtoD: return "Host-to-Device";
        case CopyKind::DtoH: return "Device-to-Host";
        case CopyKind::HtoA: return "Host-to-Array";
        case CopyKind::AtoH: return "Array-to-Host";
        case CopyKind::AtoA: return "Array-to-Array";
        case CopyKind::AtoD: return "Array-to-Device";
        case CopyKind::DtoA: return "Device-to-Array";
        case CopyKind::DtoD: return "Device-to-Device";
        case CopyKind::HtoH: return "Host-to-Host";
        case CopyKind::PtoP: return "Peer-to-Peer";
        case CopyKind::UvmHtoD: return "Unified Host-to-Device";
        case CopyKind::UvmDtoH: return "Unified Device-to-Host";
        case CopyKind::UvmDtoD: return "Unified Device-to-Device";
        case CopyKind::Unknown: break;
    }
    return "Unknown";
}

std::string memcpyOperationName(CopyKind k) { return "[CUDA memcpy " + std::string(memcpyKindLabel(k)) + "]"; }

std::string nvtxRangeName(const Report& r, const Track& t, size_t i, bool alwaysPrefixDomain) {
    std::string name(r.str(t.nameAt(i)));
    if (t.key.domain != 0) {
        const NvtxDomain* d = r.findDomain(t.key.pid, t.key.domain);
        return (d ? d->name : std::string()) + ":" + name;
    }
    return alwaysPrefixDomain ? ":" + name : name;
}

std::string_view nvtxStyle(const Track& t, size_t i) {
    return t.col<uint8_t>(cols::Nvtx::RangeType)[i] == static_cast<uint8_t>(RangeType::StartEnd) ? "StartEnd" : "PushPop";
}

std::string dims3(const uint32_t v[3]) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%4u %4u %4u", v[0], v[1], v[2]);
    return buf;
}

}  // namespace sl::analysis
