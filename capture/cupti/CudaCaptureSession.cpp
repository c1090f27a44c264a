#include "capture/cupti/CudaCaptureSession.h"

#include "capture/cupti/CudaCorrelation.h"
#include "capture/cupti/ReportBuilderSink.h"

namespace sl::cuda {

CudaCaptureSession::CudaCaptureSession(CudaTraceOptions trace, GpuMetricsOptions metrics,
                                       bool traceCuda)
    : m_trace(std::move(trace)), m_metrics(std::move(metrics)), m_traceCuda(traceCuda) {}

CudaCaptureSession::~CudaCaptureSession() {
    stop();
}

std::vector<std::pair<std::string, std::string>> CudaCaptureSession::environment() const {
    return m_traceCuda ? m_trace.toEnvironment()
                       : std::vector<std::pair<std::string, std::string>>{};
}

void CudaCaptureSession::start(const std::function<void(const std::string&)>& say) {
    if (!m_metrics.enabled()) return;
    m_sampler = std::make_unique<NvmlSampler>(m_metrics);
    Status s = m_sampler->start();
    if (!s) {
        m_metricsProblem = s.error();
        m_sampler.reset();
        if (say) say("GPU metrics unavailable: " + m_metricsProblem);
    }
}

void CudaCaptureSession::stop() {
    if (m_sampler) m_sampler->stop();
}

void CudaCaptureSession::addToReport(ReportBuilder& b, int64_t t0, int64_t t1) {
    stop();
    if (!m_metricsProblem.empty()) b.addDiagnostic("gpu_metrics.unavailable", 1, m_metricsProblem);
    if (m_sampler) {
        ReportBuilderSink sink(b);
        std::vector<Gpu> cudaGpus = b.report().gpus;  // from the CUDA streams: match NVML by UUID
        m_sampler->addTo(sink, cudaGpus, t0, t1);
    }
    if (m_traceCuda) {
        CorrelationSummary c = checkCorrelations(b.report());
        if (c.unmatched > 0)
            b.addDiagnostic("cuda.gpu_ops_without_api_call", static_cast<int64_t>(c.unmatched),
                            "GPU operations whose CUDA API call was not captured (issued before "
                            "tracing started, "
                            "or its record was dropped)");
    }
}

}  // namespace sl::cuda
