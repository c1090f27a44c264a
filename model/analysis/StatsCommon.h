#pragma once
// Shared pieces of the stats reports: options (time window, report arguments), the lazily
// built correlation/NVTX indexes, duration statistics as nsys computes them, and name helpers.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/analysis/CorrelationIndex.h"
#include "model/analysis/MedianSelect.h"
#include "model/analysis/NvtxGpuProjection.h"
#include "model/analysis/NvtxRangeTree.h"
#include "model/analysis/Table.h"
#include "model/core/Report.h"
#include "model/util/ThreadPool.h"

namespace sl::analysis {

// Indexes several reports share, built on first use for one report. Not thread-safe: one
// stats run at a time per cache (the GUI makes one per worker job).
class AnalysisCache {
public:
    explicit AnalysisCache(const Report& report) : m_report(report) {}
    const Report& report() const { return m_report; }
    const CorrelationIndex& correlation();
    const NvtxRangeTree& nvtxTree();
    const NvtxGpuProjection& projection();
    // Indexes of other analyses (the analyze rules' GPU operations by device), by a name that
    // says what they hold and for which window; built by the caller on first use.
    template <class T, class Make>
    const T& extra(const std::string& key, Make make) {
        auto it = m_extras.find(key);
        if (it == m_extras.end()) it = m_extras.emplace(key, std::make_shared<T>(make())).first;
        return *static_cast<const T*>(it->second.get());
    }

private:
    std::map<std::string, std::shared_ptr<void>> m_extras;
    const Report& m_report;
    std::unique_ptr<CorrelationIndex> m_correlation;
    std::unique_ptr<NvtxRangeTree> m_tree;
    std::unique_ptr<NvtxGpuProjection> m_projection;
};

struct ScannedKinds;

// runReport's error, and a report's skipped reason, when the run's cancel flag was set.
inline constexpr std::string_view kCancelled = "cancelled";
// A long loop of a report reads the cancel flag once per this many steps (a power of two):
// cheap against the work of as many events, soon enough to free the core in a millisecond.
inline constexpr size_t kCancelStride = size_t{1} << 16;

struct StatsOptions {
    // Only events that lie inside [start, end] (report clock, ns) are counted.
    int64_t start = INT64_MIN;
    int64_t end = INT64_MAX;
    // Report arguments given after the name: "cuda_gpu_kern_sum:base" -> {"base"}.
    std::vector<std::string> args;
    // Optional indexes shared by the reports of one run; built on first use when null (or when
    // they belong to another report).
    mutable std::shared_ptr<AnalysisCache> cache;
    // Kinds whose per-name summaries were folded from the file's chunks (DurationScan.h) for
    // this window; the report's tracks of those kinds are not loaded. Null: none.
    std::shared_ptr<const ScannedKinds> scanned;
    // Set (by anyone, at any time) when the result is no longer wanted: the GUI's job tracker
    // sets it when a newer request supersedes the run. The reports then stop their loops and
    // runReport returns the error kCancelled. Null (the CLI, Python): never.
    const std::atomic<bool>* cancel = nullptr;

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    // Whether step i of a long loop should stop: the flag is read at every kCancelStride-th step.
    bool stopAt(size_t i) const { return (i & (kCancelStride - 1)) == 0 && cancelled(); }
    // The pool's options for a loop of this run on `threads` threads (0: all): items not yet
    // taken are skipped once the flag is set.
    ParallelOptions parallel(unsigned threads = 0) const { return {threads, cancel}; }

    bool hasArg(std::string_view a) const;
    bool bounded() const { return start != INT64_MIN || end != INT64_MAX; }
    bool inWindow(int64_t s, int64_t e) const { return s >= start && e <= end; }
    AnalysisCache& cacheFor(const Report& r) const;
};

// Statistics of a set of durations, as nsys's SQL computes them: the median is the middle
// value (mean of the two middle values for an even count); StdDev is the sample standard
// deviation (n - 1), 0 for a single value.
struct DurationStats {
    int64_t count = 0, total = 0, min = 0, max = 0;
    double avg = 0, median = 0, stddev = 0;
};
DurationStats summarize(std::vector<int64_t>& values);
// The same over values held in several pieces, read in order; with `known`, their total,
// smallest and largest as counted when they were stored (one pass less over memory).
struct ValueExtent {
    int64_t total = 0, min = INT64_MAX, max = INT64_MIN;
    void add(int64_t x) {
        total += x;
        min = x < min ? x : min;
        max = x > max ? x : max;
    }
    void add(const ValueExtent& o) {
        total += o.total;
        min = o.min < min ? o.min : min;
        max = o.max > max ? o.max : max;
    }
};
DurationStats summarizeRuns(const std::vector<ValueRun>& runs, const ValueExtent* known = nullptr);

// One group of a summary report: its label cells (left to right) and its values.
struct SummaryGroup {
    std::vector<std::string> labels;
    std::vector<int64_t> values;
};

struct SummarySpec {
    std::string countName = "Instances";
    std::vector<std::string> labelNames;  // e.g. {"Name"} or {"Category", "Operation"}
    bool percent = true;                  // a leading "Time (%)" column
    bool megabytes = false;               // values are bytes, shown as MB (1e6 B), no Time (%)
};
// Builds the rows (ordered by total descending, then count, then labels) into `t`. Once
// `cancel` is set, the groups not yet summarized are skipped and `t` is left empty.
void fillSummary(Table& t, const SummarySpec& spec, std::vector<SummaryGroup>& groups,
                 const std::atomic<bool>* cancel = nullptr);
// The same from groups already summarized.
struct SummaryRow {
    std::vector<std::string> labels;
    DurationStats stats;
};
void fillSummaryRows(Table& t, const SummarySpec& spec, std::vector<SummaryRow>& rows);
// The table a report returns when it stops for `o.cancel`: `t`'s name and title, skipped
// because kCancelled.
Table cancelledTable(const Table& t);

// Kernel naming as nsys's report arguments choose: demangled (default), base, mangled.
enum class KernelNaming : uint8_t { Demangled, Base, Mangled };
KernelNaming kernelNaming(const StatsOptions& o);
uint32_t kernelNameId(const Report& r, const Track& kernels, size_t i, KernelNaming naming);


// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (nsys drops the ABI version suffix).
std::string_view apiDisplayName(std::string_view name);
// "[CUDA memcpy Host-to-Device]" and "[CUDA memset]".
std::string memcpyOperationName(CopyKind k);
std::string_view memcpyKindLabel(CopyKind k);  // "Host-to-Device", as ENUM_CUDA_MEMCPY_OPER
std::string nvtxRangeName(const Report& r, const Track& t, size_t i, bool alwaysPrefixDomain);
std::string_view nvtxStyle(const Track& t, size_t i);  // "PushPop" or "StartEnd"
std::string dims3(const uint32_t v[3]);                  // "%4d %4d %4d" like nsys

}  // namespace sl::analysis
