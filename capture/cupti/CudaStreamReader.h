#pragma once
// Reads a CUDA stream (CudaStreamFormat.h) and replays it into a CudaSink, translating the
// stream's string and launch ids into the sink's. Errors name the file and byte offset; a
// stream cut short at the end (a crashed process) is replayed up to the last whole frame and
// reported through the sink as the diagnostic "cuda.stream_truncated".
#include <cstdint>
#include <span>
#include <string>

#include "capture/cupti/CudaSink.h"
#include "model/core/Result.h"

namespace sl::cuda {

struct CudaStreamSummary {
    int64_t pid = 0;
    uint64_t frames = 0;
    uint64_t events = 0;
    bool truncated = false;
};

// `name` is used in error messages (the file path).
Result<CudaStreamSummary> readCudaStream(std::span<const uint8_t> bytes, const std::string& name,
                                         CudaSink& sink);
Result<CudaStreamSummary> readCudaStreamFile(const std::string& path, CudaSink& sink);

}  // namespace sl::cuda
