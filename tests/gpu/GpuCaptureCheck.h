#pragma once
// The checks of the GPU end-to-end test, as a library so they are unit-tested on synthetic
// reports where there is no GPU. A client (clients/cuda_workload.cu) writes what it did to an
// expectations file (key=value lines); the check compares a captured report with it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/core/Report.h"
#include "model/core/Result.h"

namespace sl::gpucheck {

class Expectations {
public:
    static Result<Expectations> parse(const std::string& text, const std::string& name);
    static Result<Expectations> read(const std::string& path);
    bool has(const std::string& key) const { return m_kv.count(key) != 0; }
    int64_t num(const std::string& key, int64_t fallback = 0) const;
    std::vector<std::string> list(const std::string& key) const;  // comma-separated

private:
    std::map<std::string, std::string> m_kv;
};

enum class GraphMode { Graph, Node };

struct CheckOptions {
    GraphMode graphMode = GraphMode::Node;
    bool profilerRangeOnly = false;  // captured with -c cudaProfilerApi
    bool checkNvtx = true;
    bool minimumKernels = false;  // "min_kernels": at least that many (PyTorch)
    bool gpuMetrics = false;      // captured with --gpu-metrics-devices: NVML series with samples
    // captured with --pytorch=autograd-nvtx,functions-trace --python-sampling=true:
    // PyTorch's operator ranges, a Linear.forward per layer and step, Python frames in samples
    bool pytorch = false;
};

struct CheckResult {
    std::vector<std::string> passed;
    std::vector<std::string> failed;
    bool ok() const { return failed.empty() && !passed.empty(); }
};

CheckResult checkGpuCapture(const Report& report, const Expectations& expected,
                            const CheckOptions& options);

}  // namespace sl::gpucheck
