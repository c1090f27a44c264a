#pragma once
// What several rules share: the GPU operations of each (process, device) in time order, the
// API call that launched one, the window test, and building a Finding's examples and table.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/analysis/CorrelationIndex.h"
#include "model/analysis/rules/KernelCategory.h"
#include "model/analysis/rules/Rule.h"

namespace sl::analysis::rules {

// 24 bytes (tens of millions of them): what else an operation has is its track's key.
struct GpuOp {
    int64_t start = 0, end = 0;
    EventRef ref;
};
inline const TrackKey& keyOf(const Report& r, const GpuOp& o) { return r.tracks[o.ref.track].key; }
// The operations of one process on one GPU, ordered by start.
struct DeviceOps {
    int64_t pid = 0;
    int32_t device = 0;
    std::vector<GpuOp> ops;
};
// Kernels, memcpys and memsets (nsys's "GPU operations") that overlap the window, by (pid,
// device), pids and devices ascending. Operations starting at or before 0 are left out, as
// nsys leaves them out. Built once per window and shared by the rules of a run (AnalysisCache).
const std::vector<DeviceOps>& gpuOpsByDevice(const Report& r, const StatsOptions& window);

// Whether [start, end] overlaps the window (nsys analyze keeps what overlaps it).
bool overlaps(const StatsOptions& w, int64_t start, int64_t end);
// The name of the API call that launched a GPU operation ("" if none was recorded).
std::string_view launcherName(const Report& r, const CorrelationIndex& ci, EventRef gpuOp);
// Case-insensitive "contains".
bool containsNoCase(std::string_view text, std::string_view what);

// A Finding for `rule` with its title.
Finding newFinding(std::string_view rule, std::string_view title);
// The examples of a finding: the `kMaxExamples` instances with the largest weight (the earliest
// on ties). offer() makes an example only when it would be kept.
class WorstOf {
public:
    template <class Make>
    void offer(int64_t weight, int64_t start, Make make) {
        if (m_heap.size() == kMaxExamples && !better(weight, start, m_heap.front())) return;
        add(weight, start, make());
    }
    void into(Finding& f);

private:
    struct Entry {
        int64_t weight, start;
        FindingExample example;
    };
    static bool better(int64_t w, int64_t s, const Entry& e) { return w != e.weight ? w > e.weight : s < e.start; }
    void add(int64_t weight, int64_t start, FindingExample example);
    std::vector<Entry> m_heap;  // a min-heap by (weight, then later start)
};
// Rows beyond the rule's row limit are left out (-1: none); the table says so in its title.
size_t rowLimit(const RuleContext& c, size_t rows);
// The kernel's name as the stats reports show it (demangled): its string id, and the text.
uint32_t kernelNameIdOf(const Report& r, const Track& t, size_t i);
std::string kernelName(const Report& r, const Track& t, size_t i);
// What a kernel name says it does (KernelCategory.h), decided once per name.
class CategoryOfName {
public:
    explicit CategoryOfName(const Report& r) : m_r(r), m_known(r.strings.size(), 0xFF) {}
    KernelCategory operator()(uint32_t nameId);

private:
    const Report& m_r;
    std::vector<uint8_t> m_known;  // per string id; 0xFF: not decided yet
};
// part / whole in percent (0 when whole is 0).
double percent(int64_t part, int64_t whole);

// Intervals merged into disjoint ones, in order (for busy time: overlaps counted once).
using Intervals = std::vector<std::pair<int64_t, int64_t>>;
Intervals merged(Intervals v);
// The busy intervals of a device's operations that `keep` selects, merged as they come (the
// operations are in start order): no list of every operation is made.
template <class Keep>
Intervals mergedOps(const DeviceOps& d, Keep keep) {
    Intervals out;
    for (const GpuOp& o : d.ops) {
        if (!keep(o)) continue;
        if (!out.empty() && o.start <= out.back().second)
            out.back().second = std::max(out.back().second, o.end);
        else
            out.push_back({o.start, o.end});
    }
    return out;
}
int64_t totalLength(const Intervals& disjoint);
// The length of the intersection of two lists of disjoint, ordered intervals.
int64_t overlapLength(const Intervals& a, const Intervals& b);

}  // namespace sl::analysis::rules
