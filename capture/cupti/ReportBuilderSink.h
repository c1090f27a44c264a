#pragma once
// A CudaSink that adds everything to a ReportBuilder: used by the launcher's merge and by
// tests. Metric series ids of the producer are remapped to ids unique in the report, so
// several producers (processes, the NVML sampler) can share one builder. Metadata for a key
// already present is merged: non-empty / non-zero fields of the newer record win.
#include <unordered_map>

#include "capture/cupti/CudaSink.h"
#include "model/core/ReportBuilder.h"

namespace sl::cuda {

class ReportBuilderSink final : public CudaSink {
public:
    explicit ReportBuilderSink(ReportBuilder& builder) : m_b(builder) {}

    uint32_t intern(std::string_view s) override { return m_b.intern(s); }
    void add(const CudaApiCall& e) override;
    void add(const KernelExec& e) override { m_b.add(e); }
    void add(const MemcpyOp& e) override { m_b.add(e); }
    void add(const MemsetOp& e) override { m_b.add(e); }
    void add(const SyncOp& e) override { m_b.add(e); }
    void add(const GraphExec& e) override { m_b.add(e); }
    void add(const CudaMemoryEvent& e) override { m_b.add(e); }
    void add(const CuptiOverheadEvent& e) override { m_b.add(e); }
    void add(const MetricSample& e) override;
    void addGpu(const Gpu& g) override;
    void addContext(const CudaContext& c) override;
    void addStream(const CudaStream& s) override;
    void addSeries(const MetricSeries& s) override;
    void addDiagnostic(std::string_view name, int64_t count, std::string_view reason,
                       int64_t pid) override {
        m_b.addDiagnostic(name, count, reason, pid);
    }

    // The report's id for a series id of this producer (0 if unknown).
    uint32_t seriesId(uint32_t producerId) const;

private:
    ReportBuilder& m_b;
    std::unordered_map<uint32_t, uint32_t> m_series;
};

}  // namespace sl::cuda
