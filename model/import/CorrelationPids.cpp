#include "model/import/CorrelationPids.h"

#include <algorithm>

namespace sl::import {

void CorrelationPids::add(int64_t correlation, int64_t pid) {
    if (!m_runs.empty()) {
        Run& last = m_runs.back();
        if (last.pid == pid && last.last < INT64_MAX && last.last + 1 == correlation) {
            last.last = correlation;
            return;
        }
    }
    m_runs.push_back({correlation, correlation, pid});
}

void CorrelationPids::finish() {
    if (m_finished) return;
    m_finished = true;
    std::vector<Run> sorted = m_runs;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Run& a, const Run& b) { return a.first < b.first; });
    bool disjoint = true;
    for (size_t i = 1; i < sorted.size() && disjoint; ++i)
        disjoint = sorted[i].first > sorted[i - 1].last;
    if (disjoint) {
        m_runs.swap(sorted);
        return;
    }
    // Step 2: ids repeated in several runs: one entry per id, in arrival order so the last wins.
    for (const Run& r : m_runs)
        for (int64_t c = r.first;; ++c) {
            m_repeated[c] = r.pid;
            if (c == r.last) break;
        }
    m_runs.clear();
    m_runs.shrink_to_fit();
}

std::optional<int64_t> CorrelationPids::find(int64_t correlation) const {
    if (!m_repeated.empty()) {
        auto it = m_repeated.find(correlation);
        if (it == m_repeated.end()) return std::nullopt;
        return it->second;
    }
    auto it = std::upper_bound(m_runs.begin(), m_runs.end(), correlation,
                               [](int64_t c, const Run& r) { return c < r.first; });
    if (it == m_runs.begin()) return std::nullopt;
    --it;
    if (correlation > it->last) return std::nullopt;
    return it->pid;
}

size_t CorrelationPids::memoryBytes() const {
    return m_runs.capacity() * sizeof(Run) + m_repeated.size() * 32;
}

}  // namespace sl::import
