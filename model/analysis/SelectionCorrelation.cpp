#include "model/analysis/SelectionCorrelation.h"

#include <algorithm>

#include "model/analysis/EventQueryColumns.h"

namespace sl::analysis {
namespace {

void addLaunched(const Report& report, const CorrelationIndex& index, EventRef api, EventRef skip, size_t limit,
                 CorrelatedEvents& out) {
    const Track& t = report.tracks[api.track];
    const auto corr = static_cast<uint32_t>(t.intAt(cols::CudaApi::Correlation, api.index));
    for (const EventRef& op : index.gpuOps(t.key.pid, corr)) {
        if (out.gpuOps.size() >= limit) {
            out.truncated = true;
            return;
        }
        if (op == skip) continue;
        out.gpuOps.push_back(op);
        out.links.emplace_back(api, op);
    }
}

// CUDA API calls of the range's thread with start >= range start and end <= range end.
void addRangeContents(const Report& report, const CorrelationIndex& index, EventRef range, size_t limit,
                      CorrelatedEvents& out) {
    const Track& nt = report.tracks[range.track];
    const int64_t s = nt.start[range.index], e = nt.endAt(range.index);
    for (uint32_t ti = 0; ti < report.tracks.size(); ++ti) {
        const Track& t = report.tracks[ti];
        if (t.key.kind != EventKind::CudaApi || t.key.pid != nt.key.pid || t.key.tid != nt.key.tid) continue;
        for (uint32_t l = 0; l < t.laneCount(); ++l) {
            const IndexRange r = t.overlapping(l, s, e + 1);
            for (size_t i = r.begin; i < r.end; ++i) {
                if (t.start[i] < s || t.endAt(i) > e) continue;
                if (out.apiCalls.size() >= limit) {
                    out.truncated = true;
                    return;
                }
                const EventRef api{ti, static_cast<uint32_t>(i)};
                out.apiCalls.push_back(api);
                addLaunched(report, index, api, {}, limit, out);
            }
        }
    }
}

}  // namespace

std::vector<EventRef> CorrelatedEvents::all() const {
    std::vector<EventRef> v = apiCalls;
    v.insert(v.end(), gpuOps.begin(), gpuOps.end());
    return v;
}

CorrelatedEvents correlatedEvents(const Report& report, const CorrelationIndex& index, EventRef sel, size_t limit) {
    CorrelatedEvents out;
    if (!sel.valid() || sel.track >= report.tracks.size() || sel.index >= report.tracks[sel.track].size()) return out;
    const Track& t = report.tracks[sel.track];
    const EventKind kind = t.key.kind;
    if (kind == EventKind::CudaApi) {
        addLaunched(report, index, sel, {}, limit, out);
    } else if (CorrelationIndex::isGpuOpKind(kind)) {
        const EventRef api = index.launcherOf(sel);
        if (api.valid()) {
            out.apiCalls.push_back(api);
            out.links.emplace_back(api, sel);
            addLaunched(report, index, api, sel, limit, out);  // siblings (a graph's nodes, a memcpy's pieces)
        }
    } else if (kind == EventKind::NvtxRange) {
        addRangeContents(report, index, sel, limit, out);
    }
    return out;
}

}  // namespace sl::analysis
