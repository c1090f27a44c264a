#pragma once
// The Chrome Trace Event format's "stackFrames" dictionary for CPU samples: a tree of nodes
// (frame + parent node), so each distinct call stack is one leaf node id that samples ("sf")
// reference. Built lazily from the report's call stacks, only for stacks that are exported.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/core/Report.h"

namespace sl::exporter {

class ChromeStackFrames {
public:
    explicit ChromeStackFrames(const Report& r) : m_r(r), m_leafOf(r.callStacks.size(), -1) {}
    // The node id of a call stack's leaf, or -1 for an empty (or unknown) stack.
    int64_t leafNode(uint32_t stack);
    // `"stackFrames":{...}` (without a separating comma).
    std::string json() const;
    size_t nodeCount() const { return m_nodes.size(); }

private:
    struct Node {
        uint32_t frame;
        int64_t parent;  // -1 for a root
    };
    const Report& m_r;
    std::vector<int64_t> m_leafOf;                          // per call stack, -1 = not built
    std::map<std::pair<int64_t, uint32_t>, int64_t> m_ids;  // (parent, frame) -> node
    std::vector<Node> m_nodes;
};

}  // namespace sl::exporter
