#pragma once
// The CUDA stream file: what the injection library writes into the session directory for one
// process, and the launcher's merge reads back. It carries converted model events, so the
// launcher needs no CUPTI headers to read it. Transient (deleted after the merge) and read
// by the same build that wrote it, so event frames are the model structs' bytes.
//
//   header  : "SLCUDA01", u32 version, u32 reserved, i64 pid
//   frames  : u16 tag, u16 reserved, u32 payload size, payload
// String frames define ids 1, 2, ... in order (0 is the empty string); launch frames define
// launch ids 0, 1, ...; event frames refer to both by those ids. A frame cut short by a crash
// ends the stream (counted as a diagnostic, never an error for what came before it).
#include <cstdint>
#include <type_traits>

#include "model/core/Events.h"

namespace sl::cuda {

constexpr char kCudaStreamMagic[8] = {'S', 'L', 'C', 'U', 'D', 'A', '0', '1'};
constexpr uint32_t kCudaStreamVersion = 1;
constexpr const char* kCudaStreamPrefix = "cuda-";  // session dir file: cuda-<pid>.slcuda
constexpr const char* kCudaStreamSuffix = ".slcuda";

struct CudaStreamHeader {
    char magic[8];
    uint32_t version;
    uint32_t reserved;
    int64_t pid;
};

struct FrameHeader {
    uint16_t tag;
    uint16_t reserved;
    uint32_t size;
};

enum class FrameTag : uint16_t {
    String = 1,
    Launch,
    Api,
    Kernel,
    Memcpy,
    Memset,
    Sync,
    Graph,
    Memory,
    Overhead,
    Sample,
    Gpu,
    Context,
    Stream,
    Series,
    Diagnostic,
};

// A kernel refers to its launch configuration by launch id.
struct KernelWire {
    GpuPlace place;
    int64_t start, end;
    uint32_t name, correlation, launch, pad;
};

struct GpuWire {
    int32_t deviceId, smCount, computeMajor, computeMinor;
    int64_t memoryBytes, smClockKHz, memoryClockKHz, memoryBandwidthBytesPerSec;
    uint32_t name, uuid, pciBusId, pad;
};

struct ContextWire {
    int64_t pid;
    int32_t deviceId;
    uint32_t contextId, name, pad;
};

struct StreamWire {
    int64_t pid;
    int32_t deviceId, priority;
    uint32_t contextId, streamId, flags, isDefault, name, pad;
};

struct SeriesWire {
    int64_t pid;
    int32_t deviceId;
    uint32_t seriesId, name, unit, source, pad;
};

struct DiagnosticWire {
    int64_t count, pid;
    uint32_t name, reason;
};

static_assert(std::is_trivially_copyable_v<CudaApiCall> && std::is_trivially_copyable_v<MemcpyOp> &&
              std::is_trivially_copyable_v<KernelLaunchInfo> &&
              std::is_trivially_copyable_v<CudaMemoryEvent>);

}  // namespace sl::cuda
