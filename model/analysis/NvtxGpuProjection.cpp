#include "model/analysis/NvtxGpuProjection.h"

#include <algorithm>

namespace sl::analysis {
namespace {

// An API call that launched GPU work, with the span of that work.
struct Launch {
    int64_t start, end;
    int64_t opStart, opEnd;
    int32_t device;  // of its first projected operation
};

std::vector<Launch> launchesOf(const Report& r, const CorrelationIndex& ci, const Track& api) {
    std::vector<Launch> out;
    out.reserve(api.size());  // at most one per call; no doubling of a multi-million vector
    const auto& corr = api.col<uint32_t>(cols::CudaApi::Correlation);
    CorrelationIndex::Cursor cursor;  // a thread's correlation ids grow with time
    for (size_t i = 0; i < api.size(); ++i) {
        Launch l{api.start[i], api.end[i], INT64_MAX, INT64_MIN, -1};
        for (const EventRef& op : ci.gpuOps(api.key.pid, corr[i], cursor)) {
            const Track& t = r.tracks[op.track];
            if (t.key.kind == EventKind::GraphTrace) continue;  // nsys projects kernels and memory ops
            if (l.device < 0) l.device = t.key.device;
            l.opStart = std::min(l.opStart, t.start[op.index]);
            l.opEnd = std::max(l.opEnd, t.end[op.index]);
        }
        if (l.opStart != INT64_MAX) out.push_back(l);
    }
    // A track with a single lane is already in start order (the usual case: API calls do not
    // nest); nested calls make several lanes, each in order.
    auto byStart = [](const Launch& a, const Launch& b) { return a.start < b.start; };
    if (!std::is_sorted(out.begin(), out.end(), byStart)) std::sort(out.begin(), out.end(), byStart);
    return out;
}

}  // namespace

NvtxGpuProjection::NvtxGpuProjection(const Report& report, const CorrelationIndex& ci, const NvtxRangeTree& tree)
    : m_tree(tree), m_byNode(tree.nodes().size(), UINT32_MAX) {
    const auto& nodes = tree.nodes();
    std::vector<Launch> launches;
    for (size_t n = 0; n < nodes.size(); ++n) {
        const auto& node = nodes[n];
        // Step 1: nodes come grouped by thread; load that thread's launches once.
        if (n == 0 || nodes[n - 1].pid != node.pid || nodes[n - 1].tid != node.tid) {
            const Track* api = report.findTrack(TrackKey::forThread(EventKind::CudaApi, node.pid, node.tid));
            launches = api ? launchesOf(report, ci, *api) : std::vector<Launch>{};
        }
        // Step 2: the launches whose call lies inside the range.
        auto it = std::lower_bound(launches.begin(), launches.end(), node.start,
                                   [](const Launch& l, int64_t t) { return l.start < t; });
        ProjectedRange p{.node = static_cast<uint32_t>(n), .projStart = INT64_MAX, .projEnd = INT64_MIN};
        for (; it != launches.end() && it->start <= node.end; ++it) {
            if (it->end > node.end) continue;
            if (p.device < 0) p.device = it->device;
            p.projStart = std::min(p.projStart, it->opStart);
            p.projEnd = std::max(p.projEnd, it->opEnd);
            ++p.gpuOps;
        }
        if (p.gpuOps == 0) continue;
        m_byNode[n] = static_cast<uint32_t>(m_ranges.size());
        m_ranges.push_back(p);
    }
    // Step 3: children that are projected themselves (nsys's NumChild), then trace order.
    for (const auto& p : m_ranges) {
        const uint32_t parent = nodes[p.node].parent;
        if (parent != NvtxRangeTree::kNone && m_byNode[parent] != UINT32_MAX) ++m_ranges[m_byNode[parent]].projectedChildren;
    }
    std::stable_sort(m_ranges.begin(), m_ranges.end(), [](const ProjectedRange& a, const ProjectedRange& b) {
        if (a.projStart != b.projStart) return a.projStart < b.projStart;
        return a.projDuration() > b.projDuration();
    });
    for (uint32_t i = 0; i < m_ranges.size(); ++i) m_byNode[m_ranges[i].node] = i;
}

const ProjectedRange* NvtxGpuProjection::find(EventRef rangeEvent) const {
    const uint32_t node = m_tree.nodeOf(rangeEvent);
    if (node == NvtxRangeTree::kNone || m_byNode[node] == UINT32_MAX) return nullptr;
    return &m_ranges[m_byNode[node]];
}

}  // namespace sl::analysis
