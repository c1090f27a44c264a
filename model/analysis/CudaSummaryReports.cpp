// cuda_api_sum, cuda_gpu_kern_sum, cuda_gpu_kern_gb_sum, cuda_gpu_mem_time_sum,
// cuda_gpu_mem_size_sum, cuda_gpu_sum.
#include <map>
#include <tuple>

#include "model/analysis/StatsReports.h"
#include "model/core/HugePages.h"

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

// Groups durations by a dense uint32 key (string ids): the hot loop of the big summaries.
class DenseGroups {
public:
    explicit DenseGroups(size_t keySpace) : m_slot(keySpace, UINT32_MAX) {}
    std::vector<int64_t>& at(uint32_t key) {
        if (key >= m_slot.size()) m_slot.resize(key + 1, UINT32_MAX);
        uint32_t& s = m_slot[key];
        if (s == UINT32_MAX) {
            s = static_cast<uint32_t>(m_keys.size());
            m_keys.push_back(key);
            m_values.emplace_back();
            if (key < m_sizes.size()) {
                m_values.back().reserve(m_sizes[key]);
                adviseHugePages(m_values.back());
            }
        }
        return m_values[s];
    }
    // How many values each key will get: a group is then allocated once at its final size
    // (regrowth copies and their page faults were a third of cuda_gpu_kern_sum's time).
    void sizeHints(std::vector<uint32_t> sizes) { m_sizes = std::move(sizes); }
    // Moves the groups out with labels made by `label(key)`.
    template <class F>
    void moveInto(std::vector<SummaryGroup>& out, F label) {
        for (size_t i = 0; i < m_keys.size(); ++i) out.push_back({label(m_keys[i]), std::move(m_values[i])});
    }

private:
    std::vector<uint32_t> m_slot;
    std::vector<uint32_t> m_keys;
    std::vector<std::vector<int64_t>> m_values;
    std::vector<uint32_t> m_sizes;
};

void collectKernels(const Report& r, const StatsOptions& o, std::vector<SummaryGroup>& out,
                    const std::vector<std::string>& prefix) {
    const KernelNaming naming = kernelNaming(o);
    DenseGroups groups(r.strings.size());
    const bool byNameId = naming == KernelNaming::Demangled && !o.bounded();
    if (byNameId) {
        std::vector<uint32_t> sizes(r.strings.size(), 0);
        for (const auto& t : r.tracks)
            if (t.key.kind == EventKind::Kernel)
                for (uint32_t name : t.name) {
                    if (name >= sizes.size()) sizes.resize(name + 1, 0);
                    ++sizes[name];
                }
        groups.sizeHints(std::move(sizes));
    }
    for (const auto& t : r.tracks) {
        if (t.key.kind != EventKind::Kernel) continue;
        const size_t n = t.size();
        if (byNameId) {
            for (size_t i = 0; i < n; ++i) groups.at(t.name[i]).push_back(t.end[i] - t.start[i]);
            continue;
        }
        for (size_t i = 0; i < n; ++i) {
            if (!o.inWindow(t.start[i], t.end[i])) continue;
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
    if (!hasKind(r, EventKind::CudaApi)) return Table::skip(t.name, t.title, kNoApi);
    std::map<std::string_view, std::vector<int64_t>> groups;
    for (const auto& tr : r.tracks) {
        if (tr.key.kind != EventKind::CudaApi) continue;
        for (size_t i = 0; i < tr.size(); ++i)
            if (o.inWindow(tr.start[i], tr.end[i])) groups[apiDisplayName(r.str(tr.name[i]))].push_back(tr.end[i] - tr.start[i]);
    }
    std::vector<SummaryGroup> g;
    for (auto& [name, v] : groups) g.push_back({{std::string(name)}, std::move(v)});
    fillSummary(t, {"Num Calls", {"Name"}}, g);
    return t;
}

Table runCudaGpuKernSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_kern_sum", "CUDA GPU Kernel Summary");
    if (!hasKind(r, EventKind::Kernel)) return Table::skip(t.name, t.title, kNoKernels);
    std::vector<SummaryGroup> g;
    collectKernels(r, o, g, {});
    fillSummary(t, {"Instances", {"Name"}}, g);
    return t;
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
            if (!o.inWindow(tr.start[i], tr.end[i])) continue;
            KernelLaunchInfo li;
            if (launch[i] < r.kernelLaunches.size()) li = r.kernelLaunches[launch[i]];
            groups[{kernelNameId(r, tr, i, naming), dims3(li.grid), dims3(li.block)}].push_back(tr.end[i] - tr.start[i]);
        }
    }
    std::vector<SummaryGroup> g;
    for (auto& [key, v] : groups)
        g.push_back({{std::get<1>(key), std::get<2>(key), std::string(r.str(std::get<0>(key)))}, std::move(v)});
    fillSummary(t, {"Instances", {"GridXYZ", "BlockXYZ", "Name"}}, g);
    return t;
}

Table runCudaGpuMemTimeSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)");
    if (!hasKind(r, EventKind::Memcpy) && !hasKind(r, EventKind::Memset)) return Table::skip(t.name, t.title, kNoMemory);
    std::vector<SummaryGroup> g;
    collectMemoryTimes(r, o, g, false, {});
    fillSummary(t, {"Count", {"Operation"}}, g);
    return t;
}

Table runCudaGpuMemSizeSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)");
    if (!hasKind(r, EventKind::Memcpy) && !hasKind(r, EventKind::Memset)) return Table::skip(t.name, t.title, kNoMemory);
    std::vector<SummaryGroup> g;
    collectMemoryTimes(r, o, g, true, {});
    SummarySpec spec{"Count", {"Operation"}};
    spec.megabytes = true;
    fillSummary(t, spec, g);
    return t;
}

Table runCudaGpuSum(const Report& r, const StatsOptions& o) {
    Table t("cuda_gpu_sum", "CUDA GPU Summary (Kernels/MemOps)");
    const bool kernels = hasKind(r, EventKind::Kernel);
    const bool memory = hasKind(r, EventKind::Memcpy) || hasKind(r, EventKind::Memset);
    if (!kernels && !memory) return Table::skip(t.name, t.title, "does not contain CUDA kernel or GPU memory data.");
    std::vector<SummaryGroup> g;
    collectKernels(r, o, g, {"CUDA_KERNEL"});
    collectMemoryTimes(r, o, g, false, {"MEMORY_OPER"});
    fillSummary(t, {"Instances", {"Category", "Operation"}}, g);
    return t;
}

}  // namespace sl::analysis
