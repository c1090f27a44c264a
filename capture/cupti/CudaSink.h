#pragma once
// Where converted CUDA events and metadata go. The converter and the NVML sampler produce
// model structs (model/core/Events.h, Entities.h) into a sink; the sink decides whether they
// are serialized into a capture stream (inside the traced process) or added to a
// ReportBuilder (in the launcher and in tests). String ids in the structs come from intern()
// of the same sink. Not thread-safe: one producer at a time.
#include <cstdint>
#include <string_view>

#include "model/core/Events.h"

namespace sl::cuda {

class CudaSink {
public:
    virtual ~CudaSink() = default;

    virtual uint32_t intern(std::string_view s) = 0;

    virtual void add(const CudaApiCall& e) = 0;
    virtual void add(const KernelExec& e) = 0;
    virtual void add(const MemcpyOp& e) = 0;
    virtual void add(const MemsetOp& e) = 0;
    virtual void add(const SyncOp& e) = 0;
    virtual void add(const GraphExec& e) = 0;
    virtual void add(const CudaMemoryEvent& e) = 0;
    virtual void add(const CuptiOverheadEvent& e) = 0;
    virtual void add(const MetricSample& e) = 0;

    // Metadata: a later call for the same key (device / pid+context / pid+context+stream /
    // series id) completes or replaces the earlier one.
    virtual void addGpu(const Gpu& g) = 0;
    virtual void addContext(const CudaContext& c) = 0;
    virtual void addStream(const CudaStream& s) = 0;
    virtual void addSeries(const MetricSeries& s) = 0;
    // Adds `count` to the named diagnostic counter (see model/core/Entities.h Diagnostic).
    virtual void addDiagnostic(std::string_view name, int64_t count, std::string_view reason,
                               int64_t pid) = 0;
};

}  // namespace sl::cuda
