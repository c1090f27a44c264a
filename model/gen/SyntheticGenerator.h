#pragma once
// Generates large, realistic, deterministic reports for tests and benchmarks: training-loop
// shaped work on several CPU threads (nested NVTX ranges, CUDA API calls) launching kernels,
// copies and memsets on streams of two GPUs with gaps, plus GPU and CPU metric samples.
// The same options and seed always give the same report.
#include <cstdint>
#include <memory>
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/rep/RepWriter.h"

namespace sl {

struct GeneratorOptions {
    uint64_t events = 1'000'000;  // approximate total; the result is within one iteration of it
    uint64_t seed = 1;
    int gpus = 2;
    int streamsPerThread = 2;
    int threads = 4;
    int64_t pid = 4242;
    int32_t mpiRank = -1;     // the process's MPI rank (-1: none), for per-rank tests
    int64_t extraHostGapNs = 0;  // more host time after each step: a straggler rank's idle GPUs
};

struct GeneratorStats {
    uint64_t events = 0;
    uint64_t kernels = 0;
    uint64_t apiCalls = 0;
    uint64_t nvtxRanges = 0;
};

// Streams straight into a .rep file with bounded memory.
Result<GeneratorStats> generateReportFile(const GeneratorOptions& options, const std::string& path,
                                          const WriteOptions& writeOptions = {});
// Builds the same report in memory (tests, benchmarks of in-memory paths).
std::shared_ptr<Report> generateReport(const GeneratorOptions& options, GeneratorStats* stats = nullptr);

}  // namespace sl
