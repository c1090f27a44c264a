#pragma once
// The nesting of NVTX ranges on each thread, across domains, as nsys's NVTX reports define
// it: a range's parent is the innermost other range of the same thread that contains it
// (start <= child start and end >= child end). Only ranges that start and end on the same
// thread take part (nsys ignores start/end ranges ended elsewhere). Nodes are ordered by
// (pid, tid, start, longer first); a node's RangeId is its position + 1, which is stable for
// a given report. Built once, read-only afterwards.
#include <cstdint>
#include <string>
#include <vector>

#include "model/analysis/CorrelationIndex.h"

namespace sl::analysis {

class NvtxRangeTree {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    struct Node {
        EventRef ref;
        int64_t pid = 0, tid = 0;
        int64_t start = 0, end = 0;
        uint32_t parent = kNone;  // node index of the enclosing range
        uint32_t level = 0;       // 0 for top-level ranges
        uint32_t childCount = 0;  // direct children
    };

    explicit NvtxRangeTree(const Report& report);

    const std::vector<Node>& nodes() const { return m_nodes; }
    // Node index of a range event, or kNone for ranges left out (ended on another thread).
    uint32_t nodeOf(EventRef ref) const;
    uint32_t rangeId(uint32_t node) const { return node + 1; }
    // ":1:5:9": the RangeIds from the top-level range down to this node, as nsys prints it.
    std::string rangeStack(uint32_t node) const;

private:
    std::vector<Node> m_nodes;
    std::vector<std::vector<uint32_t>> m_nodeOf;  // [track][index] -> node (only NVTX tracks filled)
};

}  // namespace sl::analysis
