// The rules, their options (nsys's names and defaults where nsys has the rule) and the
// "name:option=value" syntax of -r.
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>

#include "model/analysis/rules/Rule.h"
#include "model/analysis/rules/RuleSupport.h"
#include "model/util/ThreadPool.h"

namespace sl::analysis {
namespace rules {
Finding runCudaMemcpyAsync(const Report&, const RuleContext&);
Finding runCudaMemcpySync(const Report&, const RuleContext&);
Finding runCudaMemsetSync(const Report&, const RuleContext&);
Finding runCudaApiSync(const Report&, const RuleContext&);
Finding runGpuGaps(const Report&, const RuleContext&);
Finding runGpuTimeUtil(const Report&, const RuleContext&);
Finding runGpuIdleBreakdown(const Report&, const RuleContext&);
Finding runNvtxGpuIdle(const Report&, const RuleContext&);
Finding runCopyComputeOverlap(const Report&, const RuleContext&);
Finding runCommunication(const Report&, const RuleContext&);
Finding runShortKernels(const Report&, const RuleContext&);
Finding runKernelCategories(const Report&, const RuleContext&);
Finding runLaunchLatency(const Report&, const RuleContext&);
}  // namespace rules

namespace {

// nsys's default row limit for every rule.
constexpr RuleOption kRows{"rows", 50, "at most this many rows in the table (-1: all)"};
constexpr RuleOption kOnlyRows[] = {kRows};
constexpr RuleOption kGapOptions[] = {kRows, {"gap", 500, "minimum gap, in milliseconds"}};
constexpr RuleOption kUtilOptions[] = {kRows,
                                       {"threshold", 50, "report parts in use less than this, in percent"},
                                       {"chunks", 30, "parts each process's GPU time is cut into (1-1000)"}};
constexpr RuleOption kIdleOptions[] = {
    kRows,
    {"kernel_wait", 30, "an idle gap shorter than this many ns after a kernel is launch overhead (HTA's "
                        "consecutive_kernel_delay)"},
    {"host_share", 10, "a warning when host wait is at least this percent of the streams' spans"}};
constexpr RuleOption kNvtxIdleOptions[] = {kRows, {"gap", 100, "idle gaps of at least this many microseconds"}};
constexpr RuleOption kOverlapOptions[] = {
    kRows, {"exposed_share", 5, "a warning when copies with nothing computing take this percent of the GPU span"}};
constexpr RuleOption kCommOptions[] = {kRows,
                                       {"share", 30, "a warning when communication is over this percent of kernel time"},
                                       {"overlap", 50, "a warning when less than this percent of it overlaps compute"}};
constexpr RuleOption kShortOptions[] = {kRows,
                                        {"threshold", 10, "kernels shorter than this many microseconds"},
                                        {"share", 50, "a warning when at least this percent of kernels are short"}};

constexpr std::array<RuleInfo, 13> kRules = {{
    {"cuda_memcpy_async", "CUDA Async Memcpy with Pageable Memory", rules::runCudaMemcpyAsync, true, kOnlyRows,
     "asynchronous copies (cudaMemcpy*Async) with pageable host memory, which run synchronously"},
    {"cuda_memcpy_sync", "CUDA Synchronous Memcpy", rules::runCudaMemcpySync, true, kOnlyRows,
     "synchronous copies that block the host (not same-device copies or host-to-device copies <= 64 KiB)"},
    {"cuda_memset_sync", "CUDA Synchronous Memset", rules::runCudaMemsetSync, true, kOnlyRows,
     "synchronous memsets of pinned or managed memory"},
    {"cuda_api_sync", "CUDA Synchronization APIs", rules::runCudaApiSync, true, kOnlyRows,
     "cudaDeviceSynchronize and cudaStreamSynchronize calls"},
    {"gpu_gaps", "GPU Gaps", rules::runGpuGaps, true, kGapOptions,
     "a GPU idle between its operations for longer than gap ms"},
    {"gpu_time_util", "GPU Time Utilization", rules::runGpuTimeUtil, true, kUtilOptions,
     "parts of the run where a GPU was in use less than threshold percent of the time"},
    {"gpu_idle_breakdown", "GPU Idle Time Breakdown", rules::runGpuIdleBreakdown, false, kIdleOptions,
     "each stream's idle time between operations: host wait, kernel wait, other (as HTA)"},
    {"nvtx_gpu_idle", "NVTX Ranges Holding GPU Idle Time", rules::runNvtxGpuIdle, false, kNvtxIdleOptions,
     "the CPU threads' NVTX ranges open while the GPU was idle"},
    {"copy_compute_overlap", "Copy/Compute Overlap", rules::runCopyComputeOverlap, false, kOverlapOptions,
     "copy time not overlapped by kernels"},
    {"communication", "Communication Share and Overlap", rules::runCommunication, false, kCommOptions,
     "NCCL kernels' share of kernel time and how much of it overlaps compute"},
    {"short_kernels", "Short Kernels", rules::runShortKernels, false, kShortOptions,
     "kernels shorter than threshold us, and their launch calls' time"},
    {"kernel_categories", "GPU Time by Kind of Kernel", rules::runKernelCategories, false, kOnlyRows,
     "GPU time of GEMM, attention, convolution, elementwise, reduction, normalization, communication, memory"},
    {"launch_latency", "Kernel Launch Latency", rules::runLaunchLatency, false, kOnlyRows,
     "time from a launch call's start to its kernel's start"},
}};

}  // namespace

std::string_view severityName(Severity s) {
    switch (s) {
        case Severity::None: return "none";
        case Severity::Info: return "info";
        case Severity::Warning: return "warning";
    }
    return "none";
}

int64_t RuleContext::value(std::string_view name) const {
    auto it = values.find(name);
    return it == values.end() ? 0 : it->second;
}

std::span<const RuleInfo> allRules() { return kRules; }

bool rulesReadTrack(const TrackKey& k) {
    return k.kind == EventKind::Kernel || k.kind == EventKind::Memcpy || k.kind == EventKind::Memset ||
           k.kind == EventKind::CudaApi || k.kind == EventKind::NvtxRange;
}

ReadOptions rulesReadOptions() {
    ReadOptions o;
    o.levelOfDetail = false;
    o.wantTrack = rulesReadTrack;
    // Correlation ids join calls and GPU operations; the copy rules read sizes and memory
    // kinds; NVTX ranges count by name and time. Launch configurations, callback ids, results,
    // devices and the NVTX attributes play no part.
    o.onlyColumns(EventKind::CudaApi, {cols::CudaApi::Correlation});
    o.onlyColumns(EventKind::Kernel, {cols::Kernel::Correlation});
    o.onlyColumns(EventKind::Memcpy, {cols::Memcpy::Correlation, cols::Memcpy::Bytes, cols::Memcpy::CopyKind,
                                      cols::Memcpy::SrcKind, cols::Memcpy::DstKind});
    o.onlyColumns(EventKind::Memset, {cols::Memset::Correlation, cols::Memset::Bytes, cols::Memset::MemKind});
    o.bare(KindSet{EventKind::NvtxRange});
    return o;
}

const RuleInfo* findRule(std::string_view name) {
    for (const auto& r : kRules)
        if (r.name == name) return &r;
    return nullptr;
}

std::vector<Result<Finding>> runRules(const Report& r, const std::vector<std::string>& specs,
                                      const StatsOptions& window, unsigned threads,
                                      const std::atomic<bool>* cancel) {
    auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    std::vector<Result<Finding>> out(specs.size(), makeError("cancelled"));
    StatsOptions shared = window;
    if (!shared.cache) shared.cache = std::make_shared<AnalysisCache>(r);
    // The shared indexes before the threads: afterwards the cache is only read.
    shared.cache->correlation();
    if (cancelled()) return out;
    rules::gpuOpsByDevice(r, shared);
    // A rule is an item: the cancel flag stops the rules not started yet.
    sl::parallelFor(specs.size(), [&](size_t i) { out[i] = runRule(r, specs[i], shared); },
                    ParallelOptions{threads, cancel});
    return out;
}

Result<Finding> runRule(const Report& r, const std::string& spec, const StatsOptions& window) {
    std::string_view rest = spec;
    const size_t colon = rest.find(':');
    const std::string_view name = rest.substr(0, colon);
    const RuleInfo* info = findRule(name);
    if (!info) return makeError("unknown rule '" + std::string(name) + "' (see --help-rules)");
    RuleContext c;
    c.window = window;
    for (const RuleOption& o : info->options) c.values[std::string(o.name)] = o.defaultValue;
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    while (!rest.empty()) {
        const size_t next = rest.find(':');
        const std::string_view item = rest.substr(0, next);
        rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + 1);
        const size_t eq = item.find('=');
        const std::string key(item.substr(0, eq));
        if (eq == std::string_view::npos || !c.values.count(key)) {
            std::string known;
            for (const RuleOption& o : info->options) known += (known.empty() ? "" : ", ") + std::string(o.name);
            return makeError(std::string(name) + ": unknown option '" + std::string(item) + "' (options: " + known + ")");
        }
        const std::string_view text = item.substr(eq + 1);
        int64_t v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size())
            return makeError(std::string(name) + ": " + key + "='" + std::string(text) + "' is not a whole number");
        if (key == "chunks" && (v < 1 || v > 1000))
            return makeError(std::string(name) + ": chunks must be from 1 to 1000");
        if (key != "rows" && v < 0)
            return makeError(std::string(name) + ": " + key + " cannot be negative");
        c.values[key] = v;
    }
    Finding f = info->run(r, c);
    f.rule = info->name;
    f.title = info->title;
    return f;
}

}  // namespace sl::analysis
