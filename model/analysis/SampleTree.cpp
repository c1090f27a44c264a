#include "model/analysis/SampleTree.h"

#include <algorithm>
#include <unordered_map>

namespace sl::analysis {
namespace {

std::string baseName(std::string_view path) {
    if (const auto slash = path.rfind('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
    return path.empty() ? std::string("[unknown]") : std::string(path);
}

// Maps frames to functions, creating each function on first use.
class FunctionTable {
public:
    FunctionTable(const Report& r, std::vector<SampleFunction>& out)
        : m_r(r), m_out(out), m_ofFrame(r.stackFrames.size(), kUnset) {}

    uint32_t of(uint32_t frameId) {
        if (frameId >= m_ofFrame.size()) return add(frameId, UINT64_MAX - frameId);
        uint32_t& f = m_ofFrame[frameId];
        if (f == kUnset) {
            const StackFrame& sf = m_r.stackFrames[frameId];
            // Resolved frames of one function share it; unresolved ones are one per frame.
            const uint64_t key = sf.function != 0
                                     ? (static_cast<uint64_t>(sf.function) << 32 | sf.module)
                                     : UINT64_MAX - frameId;
            f = add(frameId, key);
        }
        return f;
    }

private:
    static constexpr uint32_t kUnset = UINT32_MAX;

    uint32_t add(uint32_t frameId, uint64_t key) {
        auto [it, inserted] = m_byKey.try_emplace(key, static_cast<uint32_t>(m_out.size()));
        if (!inserted) return it->second;
        SampleFunction fn;
        if (frameId < m_r.stackFrames.size()) {
            const StackFrame& sf = m_r.stackFrames[frameId];
            fn.functionId = sf.function;
            fn.moduleId = sf.module;
            fn.module = baseName(m_r.str(sf.module));
            fn.name = sf.function != 0 ? std::string(m_r.str(sf.function)) : m_r.frameText(frameId);
        } else {
            fn.name = m_r.frameText(frameId);  // "[frame N]": a reference the reader let through
            fn.module = "[unknown]";
        }
        m_out.push_back(std::move(fn));
        return it->second;
    }

    const Report& m_r;
    std::vector<SampleFunction>& m_out;
    std::vector<uint32_t> m_ofFrame;
    std::unordered_map<uint64_t, uint32_t> m_byKey;
};

// Builds a call tree node by node; children are found through (parent, function) in an
// open-addressing table (a node-based map cost more in allocations than the whole walk), and
// the children lists are filled once at the end, each allocated at its final size.
class TreeBuilder {
public:
    TreeBuilder(std::vector<SampleNode>& nodes, size_t expected) : m_nodes(nodes) {
        m_nodes.assign(1, SampleNode{});
        m_nodes.reserve(expected + 1);
        size_t capacity = 64;
        while (capacity < 2 * expected) capacity <<= 1;
        m_slots.assign(capacity, Slot{});
    }
    uint32_t child(uint32_t parent, uint32_t function) {
        const uint64_t key = static_cast<uint64_t>(parent) << 32 | function;
        size_t i = slotOf(key);
        if (m_slots[i].key == key) return m_slots[i].node;
        if (2 * (m_nodes.size() + 1) > m_slots.size()) {
            grow();
            i = slotOf(key);
        }
        const auto node = static_cast<uint32_t>(m_nodes.size());
        m_slots[i] = {key, node};
        SampleNode n;
        n.function = function;
        n.parent = parent;
        m_nodes.push_back(std::move(n));
        return node;
    }
    // Fills every node's children (in creation order; sorted later).
    void linkChildren() {
        std::vector<uint32_t> count(m_nodes.size(), 0);
        for (size_t n = 1; n < m_nodes.size(); ++n) ++count[m_nodes[n].parent];
        for (size_t n = 0; n < m_nodes.size(); ++n) m_nodes[n].children.reserve(count[n]);
        for (size_t n = 1; n < m_nodes.size(); ++n)
            m_nodes[m_nodes[n].parent].children.push_back(static_cast<uint32_t>(n));
    }

private:
    struct Slot {
        uint64_t key = UINT64_MAX;  // empty: no parent has index UINT32_MAX
        uint32_t node = 0;
    };
    // The slot holding `key`, or the empty slot where it belongs (linear probing).
    size_t slotOf(uint64_t key) const {
        const size_t mask = m_slots.size() - 1;
        size_t i = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
        while (m_slots[i].key != key && m_slots[i].key != UINT64_MAX) i = (i + 1) & mask;
        return i;
    }
    void grow() {
        std::vector<Slot> old(m_slots.size() * 2);
        old.swap(m_slots);
        for (const Slot& s : old)
            if (s.key != UINT64_MAX) m_slots[slotOf(s.key)] = s;
    }

    std::vector<SampleNode>& m_nodes;
    std::vector<Slot> m_slots;
};

void sortChildren(std::vector<SampleNode>& nodes, const std::vector<SampleFunction>& fns) {
    for (SampleNode& n : nodes)
        std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
            const SampleNode &x = nodes[a], &y = nodes[b];
            if (x.total != y.total) return x.total > y.total;
            const std::string &nx = fns[x.function].name, &ny = fns[y.function].name;
            if (nx != ny) return nx < ny;
            return x.function < y.function;
        });
}

bool selected(const std::vector<std::pair<int64_t, int64_t>>& sortedThreads, const TrackKey& k) {
    return sortedThreads.empty() ||
           std::binary_search(sortedThreads.begin(), sortedThreads.end(), std::make_pair(k.pid, k.tid));
}

}  // namespace

SampleTree SampleTree::compute(const Report& report, const SampleRequest& req) {
    SampleTree out;
    auto cancelled = [&req] { return req.cancel && req.cancel->load(std::memory_order_relaxed); };
    auto threads = req.threads;
    std::sort(threads.begin(), threads.end());

    // Step 1: samples per distinct call stack (the only pass over the samples themselves).
    std::vector<int64_t> perStack(report.callStacks.size() + 1, 0);  // last: bad references
    for (const Track& t : report.tracks) {
        if (t.key.kind != EventKind::CpuSample || !selected(threads, t.key)) continue;
        const auto& stacks = t.col<uint32_t>(cols::CpuSample::Stack);
        for (uint32_t l = 0; l < t.laneCount(); ++l) {
            const IndexRange r = t.overlapping(l, req.t0, req.t1);
            for (size_t i = r.begin; i < r.end; ++i) {
                if ((i & 0xFFFF) == 0 && cancelled()) {
                    out.m_cancelled = true;
                    return out;
                }
                ++perStack[std::min<size_t>(stacks[i], report.callStacks.size())];
            }
            out.m_samples += static_cast<int64_t>(r.size());
        }
    }

    // Step 2: walk each distinct stack once, weighted by its sample count.
    size_t frames = 0;  // bounds the node count of either tree
    for (size_t s = 0; s < report.callStacks.size(); ++s)
        if (perStack[s] != 0) frames += report.callStacks[s].frames.size();
    FunctionTable functions(report, out.m_functions);
    TreeBuilder topDown(out.m_topDown, frames + 1), bottomUp(out.m_bottomUp, frames + 1);
    std::vector<int64_t> self, total;
    std::vector<size_t> seenIn;  // the last stack that counted a function's total (recursion)
    std::vector<uint32_t> fn;
    for (size_t s = 0; s < perStack.size(); ++s) {
        const int64_t c = perStack[s];
        if (c == 0) continue;
        ++out.m_stacks;
        fn.clear();
        if (s < report.callStacks.size())
            for (uint32_t frame : report.callStacks[s].frames) fn.push_back(functions.of(frame));
        else
            fn.push_back(functions.of(UINT32_MAX));  // an out-of-range stack: one unknown frame
        const size_t nf = out.m_functions.size();
        if (self.size() < nf) self.resize(nf, 0), total.resize(nf, 0), seenIn.resize(nf, SIZE_MAX);
        if (!fn.empty()) self[fn.front()] += c;
        for (uint32_t f : fn)
            if (seenIn[f] != s) seenIn[f] = s, total[f] += c;
        uint32_t node = 0;
        for (auto it = fn.rbegin(); it != fn.rend(); ++it) {
            node = topDown.child(node, *it);
            out.m_topDown[node].total += c;
        }
        out.m_topDown[node].self += c;
        node = 0;
        for (uint32_t f : fn) {
            node = bottomUp.child(node, f);
            out.m_bottomUp[node].self += c;
            out.m_bottomUp[node].total += c;
        }
        if (fn.empty()) out.m_bottomUp[0].self += c;
    }
    topDown.linkChildren();
    bottomUp.linkChildren();
    out.m_topDown[0].total = out.m_bottomUp[0].total = out.m_samples;

    // Step 3: the flat view, then every tree's children in display order.
    out.m_flat.assign(1, SampleNode{});
    out.m_flat[0].total = out.m_samples;
    for (uint32_t f = 0; f < out.m_functions.size(); ++f) {
        SampleNode n;
        n.function = f;
        n.self = f < self.size() ? self[f] : 0;
        n.total = f < total.size() ? total[f] : 0;
        out.m_flat[0].children.push_back(static_cast<uint32_t>(out.m_flat.size()));
        out.m_flat.push_back(std::move(n));
    }
    for (auto* nodes : {&out.m_topDown, &out.m_bottomUp, &out.m_flat}) sortChildren(*nodes, out.m_functions);
    return out;
}

const SampleNode* SampleTree::flatNode(std::string_view name) const {
    for (uint32_t c : m_flat.front().children)
        if (m_functions[m_flat[c].function].name == name) return &m_flat[c];
    return nullptr;
}

std::string SampleTree::functionText(uint32_t function) const {
    if (function >= m_functions.size()) return "[all samples]";
    const SampleFunction& f = m_functions[function];
    return f.functionId != 0 ? f.name + " (" + f.module + ")" : f.name;
}

std::vector<uint8_t> stacksWithFunction(const Report& report, const SampleFunction& fn, bool leafOnly) {
    // Step 1: the frames that belong to the function (same rule as FunctionTable).
    std::vector<uint8_t> frameMatches(report.stackFrames.size(), 0);
    for (size_t f = 0; f < report.stackFrames.size(); ++f) {
        const StackFrame& sf = report.stackFrames[f];
        frameMatches[f] = fn.functionId != 0
                              ? sf.function == fn.functionId && sf.module == fn.moduleId
                              : sf.function == 0 && report.frameText(static_cast<uint32_t>(f)) == fn.name;
    }
    // Step 2: the stacks holding one of them.
    std::vector<uint8_t> out(report.callStacks.size(), 0);
    for (size_t s = 0; s < report.callStacks.size(); ++s) {
        const auto& frames = report.callStacks[s].frames;
        const size_t n = leafOnly ? std::min<size_t>(1, frames.size()) : frames.size();
        for (size_t k = 0; k < n && !out[s]; ++k)
            out[s] = frames[k] < frameMatches.size() && frameMatches[frames[k]];
    }
    return out;
}

}  // namespace sl::analysis
