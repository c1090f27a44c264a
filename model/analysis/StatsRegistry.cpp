#include <algorithm>
#include <array>

#include "model/analysis/StatsReports.h"

namespace sl::analysis {
namespace {

constexpr std::string_view kKernelArgs = "base,mangled";

using K = EventKind;
// What the correlation index reads (API calls and the GPU operations they launched).
constexpr KindSet kCorrelated{K::CudaApi, K::Kernel, K::Memcpy, K::Memset, K::GraphTrace};

const std::array<ReportInfo, 28> kReports = {{
    {"nvtx_sum", "NVTX Range Summary", runNvtxSum, true, "nvtxsum", "",
     "time spent in each NVTX range (name and style)", KindSet{K::NvtxRange}, {}, KindSet{K::NvtxRange}},
    {"osrt_sum", "OS Runtime Summary", runOsrtSum, true, "osrtsum", "", "time spent in each OS runtime function", KindSet{K::OsRuntime},
     KindSet{K::OsRuntime}, KindSet{K::OsRuntime}},
    {"cuda_api_sum", "CUDA API Summary", runCudaApiSum, true, "cudaapisum", "", "time spent in each CUDA API function", KindSet{K::CudaApi},
     KindSet{K::CudaApi}, KindSet{K::CudaApi}},
    {"cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", runCudaGpuKernSum, true, "gpukernsum", kKernelArgs,
     "GPU time of each kernel", KindSet{K::Kernel}, KindSet{K::Kernel}, KindSet{K::Kernel}},
    {"cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)", runCudaGpuMemTimeSum, true, "gpumemtimesum", "",
     "GPU time of memory copies by kind, and memsets", KindSet{K::Memcpy, K::Memset}},
    {"cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)", runCudaGpuMemSizeSum, true, "gpumemsizesum", "",
     "bytes moved by memory copies by kind, and memsets (MB = 10^6 B)", KindSet{K::Memcpy, K::Memset}},
    {"cuda_gpu_kern_gb_sum", "CUDA GPU Kernel/Grid/Block Summary", runCudaGpuKernGbSum, false, "gpukerngbsum", kKernelArgs,
     "GPU time of each kernel and launch configuration", KindSet{K::Kernel}},
    {"cuda_gpu_sum", "CUDA GPU Summary (Kernels/MemOps)", runCudaGpuSum, false, "gpusum", kKernelArgs,
     "kernels and memory operations in one summary", KindSet{K::Kernel, K::Memcpy, K::Memset}},
    {"cuda_api_trace", "CUDA API Trace", runCudaApiTrace, false, "cudaapitrace", "", "every CUDA API call", KindSet{K::CudaApi}},
    {"cuda_gpu_trace", "CUDA GPU Trace", runCudaGpuTrace, false, "gputrace", kKernelArgs,
     "every kernel and memory operation with launch configuration and sizes", KindSet{K::Kernel, K::Memcpy, K::Memset}},
    {"cuda_kern_exec_sum", "CUDA Kernel Launch & Exec Time Summary", runCudaKernExecSum, false, "kernexecsum", kKernelArgs,
     "API, queue and kernel time per thread, device, API and kernel", kCorrelated},
    {"cuda_kern_exec_trace", "CUDA Kernel Launch & Exec Time Trace", runCudaKernExecTrace, false, "kernexectrace", kKernelArgs,
     "API, queue (from the end of the call to the kernel start) and kernel time of each launch", kCorrelated},
    {"cuda_api_gpu_sum", "CUDA Summary (API/Kernels/MemOps)", runCudaApiGpuSum, false, "", kKernelArgs,
     "CUDA API calls, kernels and memory operations in one summary", kCorrelated | KindSet{K::Memcpy, K::Memset}},
    {"nvtx_pushpop_sum", "NVTX Push/Pop Range Summary", runNvtxPushPopSum, false, "", "",
     "time spent in each push/pop NVTX range", KindSet{K::NvtxRange}},
    {"nvtx_startend_sum", "NVTX Start/End Range Summary", runNvtxStartEndSum, false, "", "",
     "time spent in each start/end NVTX range", KindSet{K::NvtxRange}},
    {"nvtx_pushpop_trace", "NVTX Push/Pop Range Trace", runNvtxPushPopTrace, false, "", "",
     "every push/pop range with its nesting and child time", KindSet{K::NvtxRange}},
    {"nvtx_gpu_proj_sum", "NVTX GPU Projection Summary", runNvtxGpuProjSum, false, "", "",
     "NVTX ranges projected onto the GPU work launched inside them", kCorrelated | KindSet{K::NvtxRange}},
    {"nvtx_gpu_proj_trace", "NVTX GPU Projection Trace", runNvtxGpuProjTrace, false, "", "",
     "each NVTX range projected onto the GPU work launched inside it", kCorrelated | KindSet{K::NvtxRange}},
    {"nvtx_kern_sum", "NVTX Range Kernel Summary", runNvtxKernSum, false, "nvtxkernsum", kKernelArgs,
     "kernels grouped by the NVTX ranges that launched them", kCorrelated | KindSet{K::NvtxRange}},
    {"cpu_util_sum", "CPU Utilization Summary (per thread)", runCpuUtilSum, false, "", "",
     "running time of each thread on the CPUs", KindSet{K::ThreadState}},
    {"sample_sum", "CPU Sample Summary (flat profile)", runSampleSum, false, "", "module",
     "CPU samples per function (:module per module): self (the sampled one) and total (anywhere on the stack)", KindSet{K::CpuSample}},
    {"mpi_event_sum", "MPI Event Summary", runMpiEventSum, false, "", "", "time spent in each MPI function (-t mpi)",
     KindSet{K::Mpi}, KindSet{K::Mpi}},
    {"mpi_event_trace", "MPI Event Trace", runMpiEventTrace, false, "", "",
     "every MPI call with its rank, peer or root rank, tag and sizes", KindSet{K::Mpi}},
    {"openmp_sum", "OpenMP Summary", runOpenMpSum, false, "", "",
     "time spent in each OpenMP construct: parallel regions, loops, barriers, tasks (-t openmp)",
     KindSet{K::OpenMp}, KindSet{K::OpenMp}},
    {"cublas_api_sum", "cuBLAS API Summary", runCublasApiSum, false, "", "",
     "time spent in each cuBLAS function (-t cublas)", KindSet{K::Cublas}, KindSet{K::Cublas}},
    {"cudnn_api_sum", "cuDNN API Summary", runCudnnApiSum, false, "", "",
     "time spent in each cuDNN function (-t cudnn)", KindSet{K::Cudnn}, KindSet{K::Cudnn}},
    {"nccl_api_sum", "NCCL API Summary", runNcclApiSum, false, "", "",
     "time spent in each NCCL function (-t nccl)", KindSet{K::Nccl}, KindSet{K::Nccl}},
    {"cudalib_api_trace", "cuBLAS, cuDNN and NCCL API Trace", runCudaLibApiTrace, false, "", "",
     "every cuBLAS, cuDNN and NCCL call with its handle, stream, status, NCCL arguments and the "
     "CUDA API calls inside it", KindSet{K::Cublas, K::Cudnn, K::Nccl, K::CudaApi}},
}};

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t b = 0;
    while (true) {
        size_t e = s.find(sep, b);
        out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos) break;
        b = e + 1;
    }
    return out;
}

}  // namespace

std::span<const ReportInfo> allReports() { return kReports; }

const ReportInfo* findReport(std::string_view name) {
    for (const auto& r : kReports)
        if (r.name == name || (!r.alias.empty() && r.alias == name)) return &r;
    return nullptr;
}

std::vector<const ReportInfo*> defaultReports() {
    std::vector<const ReportInfo*> out;
    for (const auto& r : kReports)
        if (r.isDefault) out.push_back(&r);
    return out;
}

KindSet kindsReadBy(const std::vector<std::string>& specs, bool nvtxFilter) {
    KindSet out;
    if (nvtxFilter) out |= KindSet{K::NvtxRange};
    for (const auto& spec : specs) {
        const ReportInfo* info = findReport(spec.substr(0, spec.find(':')));
        if (!info) return KindSet::all();
        out |= info->reads;
    }
    return out;
}

KindSet bareKindsFor(const std::vector<std::string>& specs, bool nvtxFilter) {
    KindSet bare, whole;
    if (nvtxFilter) whole |= KindSet{K::NvtxRange};
    for (const auto& spec : specs) {
        const ReportInfo* info = findReport(spec.substr(0, spec.find(':')));
        if (!info) return {};
        // Arguments may need more (cuda_gpu_kern_sum:base reads the launch column).
        const bool plain = spec.find(':') == std::string::npos;
        if (plain) bare |= info->bare;
        whole |= plain ? info->reads.without(info->bare) : info->reads;
    }
    return bare.without(whole);
}

KindSet scannedKindsFor(const std::vector<std::string>& specs, bool nvtxFilter) {
    KindSet scans, whole;
    if (nvtxFilter) whole |= KindSet{K::NvtxRange};
    for (const auto& spec : specs) {
        const ReportInfo* info = findReport(spec.substr(0, spec.find(':')));
        if (!info) return {};
        // Arguments may group otherwise (cuda_gpu_kern_sum:base groups by the launch's name).
        const bool plain = spec.find(':') == std::string::npos;
        if (plain) scans |= info->scans;
        whole |= plain ? info->reads.without(info->scans) : info->reads;
    }
    return scans.without(whole);
}

ReadOptions statsReadOptions(const std::vector<std::string>& specs, bool nvtxFilter, KindSet scanned) {
    ReadOptions o;
    o.levelOfDetail = false;
    const KindSet kinds = kindsReadBy(specs, nvtxFilter).without(scanned);
    o.wantTrack = [kinds](const TrackKey& k) { return kinds.has(k.kind); };
    o.bare(bareKindsFor(specs, nvtxFilter));
    return o;
}

Result<Table> runReport(const Report& r, const std::string& spec, const StatsOptions& o) {
    std::vector<std::string> parts = split(spec, ':');
    const ReportInfo* info = findReport(parts[0]);
    if (!info) return makeError("unknown report '" + parts[0] + "' (see --help-reports)");
    StatsOptions opts = o;
    opts.args.assign(parts.begin() + 1, parts.end());
    const std::vector<std::string> accepted = info->args.empty() ? std::vector<std::string>{} : split(std::string(info->args), ',');
    for (const auto& a : opts.args)
        if (std::find(accepted.begin(), accepted.end(), a) == accepted.end())
            return makeError("report '" + std::string(info->name) + "' does not take the argument '" + a + "'");
    // A cancelled run's table may be partial, or a report may have finished before seeing the
    // flag: either way its caller no longer wants it.
    if (opts.cancelled()) return makeError(std::string(kCancelled));
    Table t = info->run(r, opts);
    if (opts.cancelled() || t.skipped == kCancelled) return makeError(std::string(kCancelled));
    return t;
}

Result<std::pair<int64_t, int64_t>> nvtxFilterWindow(const Report& r, const std::string& range, const std::string& domain,
                                                     size_t index) {
    struct Hit {
        int64_t start, end;
    };
    std::vector<Hit> hits;
    for (const auto& t : r.tracks) {
        if (t.key.kind != EventKind::NvtxRange) continue;
        if (!domain.empty() && r.domainName(t.key.pid, t.key.domain) != domain) continue;
        for (size_t i = 0; i < t.size(); ++i)
            if (r.str(t.name[i]) == range) hits.push_back({t.start[i], t.end[i]});
    }
    std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.start < b.start; });
    if (hits.empty())
        return makeError("no NVTX range named '" + range + "'" + (domain.empty() ? "" : " in domain '" + domain + "'"));
    if (index >= hits.size())
        return makeError("NVTX range '" + range + "' has " + std::to_string(hits.size()) + " instances; index " +
                         std::to_string(index) + " is out of range");
    return std::pair<int64_t, int64_t>{hits[index].start, hits[index].end};
}

}  // namespace sl::analysis
