#include "model/analysis/SampleTree.h"

#include <algorithm>
#include <unordered_map>

namespace sl::analysis {
namespace {

std::string baseName(std::string_view path) {
    if (const auto slash = path.rfind('/'); slash != std::string_view::npos)
        path.remove_prefix(slash + 1);
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

    // The pseudo-function of samples without frames.
    uint32_t noStack() {
        constexpr uint64_t kKey = UINT64_MAX - UINT32_MAX - 1;  // below every unresolved key
        auto [it, inserted] = m_byKey.try_emplace(kKey, static_cast<uint32_t>(m_out.size()));
        if (inserted) m_out.push_back({std::string(kNoCallStack), std::string(), 0, 0});
        return it->second;
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

// The distinct stacks that took part, as function sequences (leaf first) in one flat array.
struct StackSeqs {
    std::vector<uint32_t> functions;
    std::vector<size_t> offset;  // stack k: functions[offset[k], offset[k + 1])
    std::vector<int64_t> count;  // samples of stack k
    size_t size() const { return count.size(); }
    size_t length(size_t k) const { return offset[k + 1] - offset[k]; }
    // Element i of stack k read leaf first, or outermost first when `outerFirst`.
    uint32_t at(size_t k, size_t i, bool outerFirst) const {
        return functions[outerFirst ? offset[k + 1] - 1 - i : offset[k] + i];
    }
};

// Builds a call tree as a trie of the stacks sorted by their sequences: a node's path is then
// shared by consecutive stacks only, so each stack reuses the previous one's path up to their
// common prefix and appends new nodes after it, with no look-ups (a hash table of (parent,
// function) cost twice as much at 50,000 stacks, in cache misses). Top-down (outermost first):
// total along the path, self at its end; bottom-up (leaf first): self = total along the path.
void buildTrie(const StackSeqs& seqs, bool outerFirst, std::vector<SampleNode>& nodes) {
    std::vector<uint32_t> order(seqs.size());
    for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const size_t n = std::min(seqs.length(a), seqs.length(b));
        for (size_t i = 0; i < n; ++i) {
            const uint32_t x = seqs.at(a, i, outerFirst), y = seqs.at(b, i, outerFirst);
            if (x != y) return x < y;
        }
        return seqs.length(a) < seqs.length(b);
    });
    nodes.assign(1, SampleNode{});
    nodes.reserve(seqs.functions.size() + 1);
    std::vector<uint32_t> path;  // the previous stack's nodes, outermost (or leaf) first
    size_t prev = SIZE_MAX;
    for (uint32_t k : order) {
        const size_t len = seqs.length(k);
        size_t common = 0;
        if (prev != SIZE_MAX)
            while (common < std::min(len, path.size()) &&
                   seqs.at(k, common, outerFirst) == seqs.at(prev, common, outerFirst))
                ++common;
        path.resize(common);
        for (size_t i = common; i < len; ++i) {
            SampleNode n;
            n.function = seqs.at(k, i, outerFirst);
            n.parent = i == 0 ? 0 : path.back();
            path.push_back(static_cast<uint32_t>(nodes.size()));
            nodes.push_back(std::move(n));
        }
        const int64_t c = seqs.count[k];
        for (uint32_t node : path) {
            nodes[node].total += c;
            if (!outerFirst) nodes[node].self += c;
        }
        if (outerFirst || path.empty()) nodes[path.empty() ? 0 : path.back()].self += c;
        prev = k;
    }
    // Children lists, each allocated at its final size (sorted later).
    std::vector<uint32_t> children(nodes.size(), 0);
    for (size_t n = 1; n < nodes.size(); ++n) ++children[nodes[n].parent];
    for (size_t n = 0; n < nodes.size(); ++n) nodes[n].children.reserve(children[n]);
    for (size_t n = 1; n < nodes.size(); ++n)
        nodes[nodes[n].parent].children.push_back(static_cast<uint32_t>(n));
}

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
    return sortedThreads.empty() || std::binary_search(sortedThreads.begin(), sortedThreads.end(),
                                                       std::make_pair(k.pid, k.tid));
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

    // Step 2: each distinct stack once, as functions, weighted by its sample count: the flat
    // counts directly, then both trees from the sorted sequences.
    FunctionTable functions(report, out.m_functions);
    StackSeqs seqs;
    seqs.offset.push_back(0);
    std::vector<int64_t> self, total;
    std::vector<size_t> seenIn;  // the last stack that counted a function's total (recursion)
    for (size_t s = 0; s < perStack.size(); ++s) {
        const int64_t c = perStack[s];
        if (c == 0) continue;
        const size_t first = seqs.functions.size();
        if (s < report.callStacks.size() && report.callStacks[s].frames.empty())
            seqs.functions.push_back(functions.noStack());
        else if (s < report.callStacks.size())
            for (uint32_t frame : report.callStacks[s].frames)
                seqs.functions.push_back(functions.of(frame));
        else
            seqs.functions.push_back(functions.of(UINT32_MAX));  // an out-of-range stack
        seqs.offset.push_back(seqs.functions.size());
        seqs.count.push_back(c);
        const size_t nf = out.m_functions.size();
        if (self.size() < nf) self.resize(nf, 0), total.resize(nf, 0), seenIn.resize(nf, SIZE_MAX);
        if (seqs.functions.size() > first) self[seqs.functions[first]] += c;
        for (size_t i = first; i < seqs.functions.size(); ++i)
            if (const uint32_t f = seqs.functions[i]; seenIn[f] != s) seenIn[f] = s, total[f] += c;
    }
    out.m_stacks = seqs.size();
    if (cancelled()) {
        out.m_cancelled = true;
        return out;
    }
    // The GUI cancels (and waits) on every new selection while the mouse drags: check often.
    buildTrie(seqs, true, out.m_topDown);
    if (cancelled()) {
        out.m_cancelled = true;
        return out;
    }
    buildTrie(seqs, false, out.m_bottomUp);
    if (cancelled()) {
        out.m_cancelled = true;
        return out;
    }
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
    for (auto* nodes : {&out.m_topDown, &out.m_bottomUp, &out.m_flat})
        sortChildren(*nodes, out.m_functions);
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

std::vector<uint8_t> stacksWithFunction(const Report& report, const SampleFunction& fn,
                                        bool leafOnly) {
    // Step 1: the frames that belong to the function (same rule as FunctionTable).
    std::vector<uint8_t> frameMatches(report.stackFrames.size(), 0);
    for (size_t f = 0; f < report.stackFrames.size(); ++f) {
        const StackFrame& sf = report.stackFrames[f];
        frameMatches[f] =
            fn.functionId != 0
                ? sf.function == fn.functionId && sf.module == fn.moduleId
                : sf.function == 0 && report.frameText(static_cast<uint32_t>(f)) == fn.name;
    }
    // Step 2: the stacks holding one of them (or none at all, for the no-stack pseudo-function).
    const bool noStack = fn.functionId == 0 && fn.module.empty() && fn.name == kNoCallStack;
    std::vector<uint8_t> out(report.callStacks.size(), 0);
    for (size_t s = 0; s < report.callStacks.size(); ++s) {
        const auto& frames = report.callStacks[s].frames;
        if (noStack) {
            out[s] = frames.empty();
            continue;
        }
        const size_t n = leafOnly ? std::min<size_t>(1, frames.size()) : frames.size();
        for (size_t k = 0; k < n && !out[s]; ++k)
            out[s] = frames[k] < frameMatches.size() && frameMatches[frames[k]];
    }
    return out;
}

}  // namespace sl::analysis
