#pragma once
// Synthetic inputs for the import benchmark, shaped like real ones: a training loop on a few
// threads where each step has nested CPU ops, CUDA runtime calls and the kernels/copies they
// launch (with correlation ids), NVTX ranges, and (Kineto) launch flows.
#include <cstdint>
#include <string>

#include "model/core/Result.h"

namespace sl::bench {

struct GeneratedTrace {
    uint64_t events = 0;  // events the importer should produce
    uint64_t bytes = 0;   // file size
};

// `steps` iterations of: 1 NVTX range, 1 runtime call and 1 kernel (or memcpy) per step.
Result<GeneratedTrace> writeNsysSqlite(const std::string& path, uint64_t targetEvents);
// Kineto JSON (current format: cpu_op, cuda_runtime, kernel, gpu_memcpy, ac2g flows).
Result<GeneratedTrace> writeKinetoJson(const std::string& path, uint64_t targetEvents);

}  // namespace sl::bench
