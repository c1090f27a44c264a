#pragma once
// Aggregates CPU samples (EventKind::CpuSample) of a time range and a set of threads into the
// three views profilers show: bottom-up (functions by self samples, expanding to their
// callers), top-down (the call tree from the outermost frames) and flat (one line per function
// with self and total counts). A pure function of an immutable Report: safe on any thread,
// cancellable. Used by the GUI's "CPU sampling" dock; free of Qt so a text report can share it.
//
// Rules:
// - A sample takes part when its thread is selected and t0 <= time < t1.
// - A function is a (function name, module) pair; frames whose function is unknown are one
//   function per (module, offset), shown as "module+0xoffset".
// - Self = samples whose leaf frame is the function. Total = samples whose stack contains the
//   function at least once (recursion counts once), so total <= the sample count.
// - A sample recorded without any frame counts as the pseudo-function "[no call stack]" (as
//   in the CLI's flat profile), so the views add up to the sample count.
// - Top-down: node total = samples whose stack starts (outermost first) with the node's path;
//   self = those of them that end there. Bottom-up: node self = total = samples whose stack
//   ends (leaf first) with the node's path. Children are sorted by total (descending), then name.
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/core/Report.h"

namespace sl::analysis {

struct SampleRequest {
    int64_t t0 = INT64_MIN, t1 = INT64_MAX;  // [t0, t1) on the report clock, ns
    // (pid, tid) of the threads to count; empty = every thread.
    std::vector<std::pair<int64_t, int64_t>> threads;
    const std::atomic<bool>* cancel = nullptr;  // set to true to stop early (result.cancelled)
};

constexpr std::string_view kNoCallStack = "[no call stack]";

struct SampleFunction {
    std::string name;    // "compute", or "libfoo.so+0x1a" when the function is unknown
    std::string module;  // file name of the module, without its directory ("" for kNoCallStack)
    uint32_t functionId = 0, moduleId = 0;  // string ids (functionId 0: unknown function)
};

// One node of a call tree. Node 0 of every tree is the root: it stands for all samples, has no
// function (function == kNoFunction) and its children are the tree's top level.
struct SampleNode {
    static constexpr uint32_t kNoFunction = UINT32_MAX;
    uint32_t function = kNoFunction;  // index into SampleTree::functions()
    uint32_t parent = 0;
    int64_t self = 0, total = 0;
    std::vector<uint32_t> children;  // node indices, by total descending, then name
};

class SampleTree {
public:
    static SampleTree compute(const Report& report, const SampleRequest& request);

    bool cancelled() const { return m_cancelled; }
    int64_t sampleCount() const { return m_samples; }  // samples that took part
    size_t stackCount() const { return m_stacks; }     // distinct call stacks among them
    const std::vector<SampleFunction>& functions() const { return m_functions; }
    const std::vector<SampleNode>& topDown() const { return m_topDown; }
    const std::vector<SampleNode>& bottomUp() const { return m_bottomUp; }
    // The flat view: the root's children are one node per function (no grandchildren).
    const std::vector<SampleNode>& flat() const { return m_flat; }
    // The flat node of a function by name ("compute"), nullptr when it has no samples.
    const SampleNode* flatNode(std::string_view name) const;
    // "compute (libfoo.so)", as Report::frameText shows frames.
    std::string functionText(uint32_t function) const;

private:
    bool m_cancelled = false;
    int64_t m_samples = 0;
    size_t m_stacks = 0;
    std::vector<SampleFunction> m_functions;
    std::vector<SampleNode> m_topDown, m_bottomUp, m_flat;
};

// Which call stacks (a flag per Report::callStacks index) contain `fn` anywhere, or only as
// their leaf with `leafOnly`: what the timeline highlights for a function picked in a view.
std::vector<uint8_t> stacksWithFunction(const Report& report, const SampleFunction& fn,
                                        bool leafOnly = false);

}  // namespace sl::analysis
