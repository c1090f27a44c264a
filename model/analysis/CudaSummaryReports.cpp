// cuda_api_sum, cuda_gpu_kern_sum, cuda_gpu_kern_gb_sum, cuda_gpu_mem_time_sum,
// cuda_gpu_mem_size_sum, cuda_gpu_sum.
#include <map>
#include <tuple>

#include "model/analysis/StatsReports.h"
#include "model/analysis/DenseGroups.h"
#include "model/analysis/DurationScan.h"

namespace sl::analysis {
namespace {

constexpr const char* kNoKernels = "does not contain CUDA kernel data.";
constexpr const char* kNoApi = "does not contain CUDA API data.";
constexpr const char* kNoMemory = "does not contain GPU memory data.";

bool hasKind(const Report& r, EventKind k) {
    for (const auto& t : r.tracks)
        if (t.key.kind == k && !t.empty()) return true;
    return false;
}

// The same where the kind may have been scanned instead of loaded.
bool hasKind(const Report& r, const StatsOptions& o, EventKind k) {
    if (const ScannedDurations* d = o.scanned ? o.scanned->find(k) : nullptr) return d->events > 0;
    return hasKind(r, k);
}

void collectKernels(const Report& r, const StatsOptions& o, std::vector<SummaryGroup>& out,
                    const std::vector<std::string>& prefix) {
    const KernelNaming naming = kernelNaming(o);
    DenseGroups groups = naming == KernelNaming::Demangled ? durationsByName(r, EventKind::Kernel, o)
                                                           : DenseGroups(r.strings.size());
    if (naming != KernelNaming::Demangled)
        for (const auto& t : r.tracks) {
            if (t.key.kind != EventKind::Kernel) continue;
            for (size_t i = 0; i < t.size(); ++i) {
                if (o.stopAt(i)) return;
                if (o.inWindow(t.start[i], t.end[i]))
                    groups.at(kernelNameId(r, t, i, naming)).push_back(t.end[i] - t.start[i]);
            }
        }
    groups.moveInto(out, [&](uint32_t key) {
        std::vector<std::string> labels = prefix;
        labels.emplace_back(r.str(key));
        return labels;
    });
}

void collectMemoryTimes(const Report& r, const StatsOptions& o, std::vector<SummaryGroup>& out, bool bytes,
                        const std::vector<std::string>& prefix) {
    std::map<std::string, std::vector<int64_t>> groups;
    for (const auto& t : r.tracks) {
        const bool copy = t.key.kind == EventKind::Memcpy;
        if (!copy && t.key.kind != EventKind::Memset) continue;
        const int bytesCol = copy ? int(cols::Memcpy::Bytes) : int(cols::Memset::Bytes);
        for (size_t i = 0; i < t.size(); ++i) {
            if (o.stopAt(i)) return;
            if (!o.inWindow(t.start[i], t.end[i])) continue;
            std::string name = copy ? memcpyOperationName(static_cast<CopyKind>(t.col<uint8_t>(cols::Memcpy::CopyKind)[i]))
                                    : std::string("[CUDA memset]");
            groups[name].push_back(bytes ? t.intAt(bytesCol, i) : t.end[i] - t.start[i]);
        }
    }
    for (auto& [name, values] : groups) {
        std::vector<std::string> labels = prefix;
        labels.push_back(name);
        out.push_back({std::move(labels), std::move(values)});
    }
}

}  // namespace

Table runCudaApiSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_api_sum", "CUDA API Summary");
    if (!hasKind(r, o, EventKind::CudaApi)) return Table::skip(t.name, t.title, kNoApi);
    // By name id, then merged by the name shown (cudaLaunchKernel_v7000 is cudaLaunchKernel).
    if (const ScannedDurations* d = o.scanned ? o.scanned->find(EventKind::CudaApi) : nullptr) {
        std::vector<SummaryRow> rows = scannedRowsByName(*d, [&](uint32_t id) { return apiDisplayName(r.str(id)); });
        fillSummaryRows(t, {"Num Calls", {"Name"}}, rows);
        return t;
    }
    DenseGroups byId = durationsByName(r, EventKind::CudaApi, o);
    if (o.cancelled()) return cancelledTable(t);
    std::vector<SummaryGroup> g = mergedByName(byId, [&](uint32_t id) { return apiDisplayName(r.str(id)); });
    fillSummary(t, {"Num Calls", {"Name"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runCudaGpuKernSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary");
    if (!hasKind(r, o, EventKind::Kernel)) return Table::skip(t.name, t.title, kNoKernels);
    // Scanned only when named as demangled (no arguments: scannedKindsFor).
    if (const ScannedDurations* d = o.scanned ? o.scanned->find(EventKind::Kernel) : nullptr) {
        std::vector<SummaryRow> rows = scannedRowsById(*d, [&](uint32_t id) { return r.str(id); });
        fillSummaryRows(t, {"Instances", {"Name"}}, rows);
        return t;
    }
    std::vector<SummaryGroup> g;
    collectKernels(r, o, g, {});
    if (o.cancelled()) return cancelledTable(t);
    fillSummary(t, {"Instances", {"Name"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runCudaGpuKernGbSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_kern_gb_sum", "CUDA GPU Kernel/Grid/Block Summary");
    if (!hasKind(r, EventKind::Kernel)) return Table::skip(t.name, t.title, kNoKernels);
    const KernelNaming naming = kernelNaming(o);
    // Key: (name id, grid, block) through the launch record.
    std::map<std::tuple<uint32_t, std::string, std::string>, std::vector<int64_t>> groups;
    for (const auto& tr : r.tracks) {
        if (tr.key.kind != EventKind::Kernel) continue;
        const auto& launch = tr.col<uint32_t>(cols::Kernel::Launch);
        for (size_t i = 0; i < tr.size(); ++i) {
            if (o.stopAt(i)) return cancelledTable(t);
            if (!o.inWindow(tr.start[i], tr.end[i])) continue;
            KernelLaunchInfo li;
            if (launch[i] < r.kernelLaunches.size()) li = r.kernelLaunches[launch[i]];
            groups[{kernelNameId(r, tr, i, naming), dims3(li.grid), dims3(li.block)}].push_back(tr.end[i] - tr.start[i]);
        }
    }
    std::vector<SummaryGroup> g;
    for (auto& [key, v] : groups)
        g.push_back({{std::get<1>(key), std::get<2>(key), std::string(r.str(std::get<0>(key)))}, std::move(v)});
    fillSummary(t, {"Instances", {"GridXYZ", "BlockXYZ", "Name"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runCudaGpuMemTimeSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)");
    if (!hasKind(r, EventKind::Memcpy) && !hasKind(r, EventKind::Memset)) return Table::skip(t.name, t.title, kNoMemory);
    std::vector<SummaryGroup> g;
    collectMemoryTimes(r, o, g, false, {});
    if (o.cancelled()) return cancelledTable(t);
    fillSummary(t, {"Count", {"Operation"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runCudaGpuMemSizeSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)");
    if (!hasKind(r, EventKind::Memcpy) && !hasKind(r, EventKind::Memset)) return Table::skip(t.name, t.title, kNoMemory);
    std::vector<SummaryGroup> g;
    collectMemoryTimes(r, o, g, true, {});
    if (o.cancelled()) return cancelledTable(t);
    SummarySpec spec{"Count", {"Operation"}};
    spec.megabytes = true;
    fillSummary(t, spec, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

Table runCudaGpuSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_sum", "CUDA GPU Summary (Kernels/MemOps)");
    const bool kernels = hasKind(r, EventKind::Kernel);
    const bool memory = hasKind(r, EventKind::Memcpy) || hasKind(r, EventKind::Memset);
    if (!kernels && !memory) return Table::skip(t.name, t.title, "does not contain CUDA kernel or GPU memory data.");
    std::vector<SummaryGroup> g;
    collectKernels(r, o, g, {"CUDA_KERNEL"});
    collectMemoryTimes(r, o, g, false, {"MEMORY_OPER"});
    if (o.cancelled()) return cancelledTable(t);
    fillSummary(t, {"Instances", {"Category", "Operation"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

// nsys's "CUDA Summary (API/Kernels/MemOps)": the API calls beside the GPU work in one table,
// each row's share of their total time.
Table runCudaApiGpuSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_api_gpu_sum", "CUDA Summary (API/Kernels/MemOps)");
    const bool api = hasKind(r, EventKind::CudaApi);
    const bool gpu = hasKind(r, EventKind::Kernel) || hasKind(r, EventKind::Memcpy) ||
                     hasKind(r, EventKind::Memset);
    if (!api && !gpu)
        return Table::skip(t.name, t.title, "does not contain CUDA trace data.");
    std::vector<SummaryGroup> g;
    if (api) {
        DenseGroups byId = durationsByName(r, EventKind::CudaApi, o);
        if (o.cancelled()) return cancelledTable(t);
        for (SummaryGroup& s : mergedByName(byId, [&](uint32_t id) { return apiDisplayName(r.str(id)); })) {
            s.labels.insert(s.labels.begin(), "CUDA_API");
            g.push_back(std::move(s));
        }
    }
    collectKernels(r, o, g, {"CUDA_KERNEL"});
    collectMemoryTimes(r, o, g, false, {"MEMORY_OPER"});
    if (o.cancelled()) return cancelledTable(t);
    fillSummary(t, {"Instances", {"Category", "Operation"}}, g, o.cancel);
    return o.cancelled() ? cancelledTable(t) : t;
}

}  // namespace sl::analysis
