#pragma once
// What several rules share: the GPU operations of each (process, device) in time order, the
// API call that launched one, the window test, and building a Finding's examples and table.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/analysis/CorrelationIndex.h"
#include "model/analysis/rules/Rule.h"

namespace sl::analysis::rules {

struct GpuOp {
    int64_t start = 0, end = 0;
    EventRef ref;
    EventKind kind = EventKind::Kernel;
    uint32_t context = 0, stream = 0;
};
// The operations of one process on one GPU, ordered by start.
struct DeviceOps {
    int64_t pid = 0;
    int32_t device = 0;
    std::vector<GpuOp> ops;
};
// Kernels, memcpys and memsets (nsys's "GPU operations") that overlap the window, by (pid,
// device), pids and devices ascending. Operations starting at or before 0 are left out, as
// nsys leaves them out.
std::vector<DeviceOps> gpuOpsByDevice(const Report& r, const StatsOptions& window);

// Whether [start, end] overlaps the window (nsys analyze keeps what overlaps it).
bool overlaps(const StatsOptions& w, int64_t start, int64_t end);
// The name of the API call that launched a GPU operation ("" if none was recorded).
std::string_view launcherName(const Report& r, const CorrelationIndex& ci, EventRef gpuOp);
// Case-insensitive "contains".
bool containsNoCase(std::string_view text, std::string_view what);

// A Finding for `rule` with its title; severity Warning when count > 0.
Finding newFinding(std::string_view rule, std::string_view title);
// The examples of a finding: the `kMaxExamples` instances with the largest `weight`.
struct Candidate {
    int64_t weight;
    FindingExample example;
};
void keepWorst(Finding& f, std::vector<Candidate> candidates);
// Rows beyond the rule's row limit are left out (-1: none); the table says so in its title.
size_t rowLimit(const RuleContext& c, size_t rows);
// The kernel's name as the stats reports show it (demangled).
std::string kernelName(const Report& r, const Track& t, size_t i);
// part / whole in percent (0 when whole is 0).
double percent(int64_t part, int64_t whole);

// Intervals merged into disjoint ones, in order (for busy time: overlaps counted once).
using Intervals = std::vector<std::pair<int64_t, int64_t>>;
Intervals merged(Intervals v);
int64_t totalLength(const Intervals& disjoint);
// The length of the intersection of two lists of disjoint, ordered intervals.
int64_t overlapLength(const Intervals& a, const Intervals& b);

}  // namespace sl::analysis::rules
