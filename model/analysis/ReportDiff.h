#pragma once
// Compares two reports (a baseline and a comparison, never "index 0 and 1"): for each kernel,
// CUDA API function, NVTX range and memory-operation kind, the count, total and average time
// on each side, the delta of the totals and its percent change, ordered by the absolute delta.
// Items present on one side only are marked. A summary compares session durations and GPU
// busy time (the union of GPU operation intervals per device, summed over devices).
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "model/analysis/Table.h"
#include "model/core/Report.h"
#include "model/core/Result.h"

namespace sl::analysis {

enum class DiffCategory : uint8_t { Kernels, Api, Nvtx, MemOps };
enum class DiffMatch : uint8_t { Demangled, Base };  // kernels by full demangled name or base (short) name

struct DiffOptions {
    std::vector<DiffCategory> categories{DiffCategory::Kernels, DiffCategory::Api, DiffCategory::Nvtx, DiffCategory::MemOps};
    DiffMatch match = DiffMatch::Demangled;
    // Checked between categories: once true, diffReports returns what it has (the GUI, which
    // superseded the request, drops it).
    const std::atomic<bool>* cancel = nullptr;
};

// "kernels", "api", "nvtx", "memops" or "all" (comma-separated list allowed).
Result<std::vector<DiffCategory>> parseDiffCategories(const std::string& text);
std::string_view diffCategoryName(DiffCategory c);

struct DiffSide {
    int64_t count = 0, total = 0;
    double avg() const { return count ? static_cast<double>(total) / static_cast<double>(count) : 0.0; }
};

struct DiffItem {
    DiffCategory category = DiffCategory::Kernels;
    std::string name;
    DiffSide baseline, comparison;
    int64_t delta() const { return comparison.total - baseline.total; }
    bool inBaseline() const { return baseline.count > 0; }
    bool inComparison() const { return comparison.count > 0; }
};

struct SessionSummary {
    int64_t durationNs = 0;
    int64_t gpuBusyNs = 0;
    int64_t kernels = 0, apiCalls = 0, nvtxRanges = 0, memOps = 0;
};

struct DiffResult {
    SessionSummary baseline, comparison;
    std::vector<DiffItem> items;  // ordered by |delta| descending, then category and name
};

SessionSummary summarizeSession(const Report& r);
DiffResult diffReports(const Report& baseline, const Report& comparison, const DiffOptions& options = {});

// Tables for the CLI and the GUI's compare view.
Table diffSummaryTable(const DiffResult& d);  // Metric, Baseline, Comparison, Delta, Change (%)
Table diffItemsTable(const DiffResult& d);

}  // namespace sl::analysis
