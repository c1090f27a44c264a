#pragma once
// What `sightline profile` does for CUDA on the launcher side, behind a few calls so the
// launcher stays small: the environment for the CUPTI injection library, GPU metrics sampling
// (NVML) while the program runs, and, after the merge, the GPU metric series and the CUDA
// diagnostics (metrics unavailable and why, GPU work without its API call). Launcher thread.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "capture/cupti/CudaOptions.h"
#include "capture/cupti/NvmlSampler.h"
#include "model/core/ReportBuilder.h"

namespace sl::cuda {

class CudaCaptureSession {
public:
    CudaCaptureSession(CudaTraceOptions trace, GpuMetricsOptions metrics, bool traceCuda);
    ~CudaCaptureSession();

    // Variables for the traced program (CUDA_INJECTION64_PATH itself is the launcher's).
    std::vector<std::pair<std::string, std::string>> environment() const;
    // Starts NVML sampling when GPU metrics were asked for. When NVML is unavailable the reason
    // goes to `say` and, later, into the report; the capture goes on.
    void start(const std::function<void(const std::string&)>& say);
    void stop();
    // After the streams are merged into `b`; metric samples of [t0, t1) only.
    void addToReport(ReportBuilder& b, int64_t t0 = INT64_MIN, int64_t t1 = INT64_MAX);

    const std::string& metricsProblem() const { return m_metricsProblem; }

private:
    CudaTraceOptions m_trace;
    GpuMetricsOptions m_metrics;
    bool m_traceCuda;
    std::unique_ptr<NvmlSampler> m_sampler;
    std::string m_metricsProblem;
};

}  // namespace sl::cuda
