#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace sl {

// First-fit lane assignment in O(log lanes): a min-tree over each lane's last end time finds
// the lowest lane that is free at `start`.
class LanePacker {
public:
    uint32_t place(int64_t start, int64_t end) {
        uint32_t lane = findFree(start);
        if (lane == m_count) grow();
        set(lane, end);
        return lane;
    }
    uint32_t laneCount() const { return m_count; }

private:
    uint32_t findFree(int64_t start) const {
        if (m_count == 0 || m_tree[1] > start) return m_count;
        size_t node = 1;
        while (node < m_leaves) node = (m_tree[2 * node] <= start) ? 2 * node : 2 * node + 1;
        return static_cast<uint32_t>(node - m_leaves);
    }
    void grow() {
        if (m_count == m_leaves) {
            size_t leaves = m_leaves ? m_leaves * 2 : 8;
            std::vector<int64_t> tree(2 * leaves, INT64_MAX);
            for (size_t i = 0; i < m_count; ++i) tree[leaves + i] = m_tree[m_leaves + i];
            m_leaves = leaves;
            m_tree.swap(tree);
            for (size_t n = m_leaves - 1; n >= 1; --n) m_tree[n] = std::min(m_tree[2 * n], m_tree[2 * n + 1]);
        }
        ++m_count;
    }
    void set(uint32_t lane, int64_t end) {
        size_t n = m_leaves + lane;
        m_tree[n] = end;
        for (n /= 2; n >= 1; n /= 2) m_tree[n] = std::min(m_tree[2 * n], m_tree[2 * n + 1]);
    }

    std::vector<int64_t> m_tree;  // unused leaves hold INT64_MAX
    size_t m_leaves = 0;
    uint32_t m_count = 0;
};

}  // namespace sl
