#pragma once
// The launcher's side of CUDA capture: adds the CUDA stream files of a session directory
// (cuda-<pid>.slcuda, one per traced process) to the report under construction.
#include <string>

#include "model/core/ReportBuilder.h"
#include "model/core/Result.h"

namespace sl::cuda {

struct CudaMergeSummary {
    int files = 0;
    uint64_t events = 0;
    uint64_t unmatchedGpuOps = 0;  // GPU operations without their API call
};

// A file that cannot be read is reported as the diagnostic "cuda.stream_unreadable" (with the
// error as its reason) and the merge goes on with the others; an unreadable directory is an error.
Result<CudaMergeSummary> mergeCudaStreams(const std::string& sessionDir, ReportBuilder& builder);

}  // namespace sl::cuda
