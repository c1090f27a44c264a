#include "model/analysis/NvtxRangeTree.h"

#include <algorithm>
#include <string>

namespace sl::analysis {

NvtxRangeTree::NvtxRangeTree(const Report& report) : m_nodeOf(report.tracks.size()) {
    // Step 1: collect same-thread ranges of every domain.
    for (uint32_t ti = 0; ti < report.tracks.size(); ++ti) {
        const Track& t = report.tracks[ti];
        if (t.key.kind != EventKind::NvtxRange) continue;
        const auto& endTid = t.col<int64_t>(cols::Nvtx::EndTid);
        for (uint32_t i = 0; i < t.size(); ++i) {
            if (endTid[i] != 0 && endTid[i] != t.key.tid) continue;
            m_nodes.push_back({{ti, i}, t.key.pid, t.key.tid, t.start[i], t.end[i]});
        }
    }
    // Step 2: order per thread by start, containers first.
    std::stable_sort(m_nodes.begin(), m_nodes.end(), [](const Node& a, const Node& b) {
        if (a.pid != b.pid) return a.pid < b.pid;
        if (a.tid != b.tid) return a.tid < b.tid;
        if (a.start != b.start) return a.start < b.start;
        return a.end > b.end;
    });
    // Step 3: a stack sweep gives each range its innermost container.
    std::vector<uint32_t> stack;
    for (uint32_t n = 0; n < m_nodes.size(); ++n) {
        Node& node = m_nodes[n];
        if (n > 0 && (m_nodes[n - 1].pid != node.pid || m_nodes[n - 1].tid != node.tid)) stack.clear();
        while (!stack.empty() && m_nodes[stack.back()].end < node.end) stack.pop_back();
        if (!stack.empty()) {
            node.parent = stack.back();
            node.level = m_nodes[node.parent].level + 1;
            ++m_nodes[node.parent].childCount;
        }
        stack.push_back(n);
        auto& byIndex = m_nodeOf[node.ref.track];
        if (byIndex.empty()) byIndex.assign(report.tracks[node.ref.track].size(), kNone);
        byIndex[node.ref.index] = n;
    }
}

uint32_t NvtxRangeTree::nodeOf(EventRef ref) const {
    if (ref.track >= m_nodeOf.size()) return kNone;
    const auto& byIndex = m_nodeOf[ref.track];
    return ref.index < byIndex.size() ? byIndex[ref.index] : kNone;
}

std::string NvtxRangeTree::rangeStack(uint32_t node) const {
    std::vector<uint32_t> chain;
    for (uint32_t n = node; n != kNone; n = m_nodes[n].parent) chain.push_back(n);
    std::string s;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        s += ':';
        s += std::to_string(rangeId(*it));
    }
    return s;
}

}  // namespace sl::analysis
