#pragma once
// Plain event records that producers (capture merge, importers, the generator) hand to the
// ReportBuilder. Names are string ids from ReportBuilder::intern(). Which field goes into
// which schema column: EventColumns.h.
#include <cstdint>

#include "model/core/Entities.h"

namespace sl {

struct OsRuntimeCall {
    int64_t pid = 0, tid = 0, start = 0, end = 0;
    uint32_t function = 0;
    int64_t result = 0;
    int32_t errnum = 0;
};

struct CudaApiCall {
    int64_t pid = 0, tid = 0, start = 0, end = 0;
    uint32_t name = 0;
    uint32_t correlation = 0;
    uint32_t cbid = 0;
    ApiKind api = ApiKind::Runtime;
    int32_t result = 0;
};

struct GpuPlace {
    int64_t pid = 0;
    int32_t device = 0;
    uint32_t context = 0;
    uint32_t stream = 0;
};

struct KernelExec {
    GpuPlace place;
    int64_t start = 0, end = 0;
    uint32_t name = 0;  // demangled name
    uint32_t correlation = 0;
    KernelLaunchInfo launch;
};

struct MemcpyOp {
    GpuPlace place;
    int64_t start = 0, end = 0;
    uint32_t correlation = 0;
    uint64_t bytes = 0;
    CopyKind copyKind = CopyKind::Unknown;
    MemoryKind srcKind = MemoryKind::Unknown;
    MemoryKind dstKind = MemoryKind::Unknown;
    int16_t srcDevice = -1, dstDevice = -1;
    uint8_t flags = 0;  // bit 0: asynchronous
};

struct MemsetOp {
    GpuPlace place;
    int64_t start = 0, end = 0;
    uint32_t correlation = 0;
    uint64_t bytes = 0;
    uint32_t value = 0;
    MemoryKind memKind = MemoryKind::Unknown;
};

struct SyncOp {
    GpuPlace place;
    int64_t start = 0, end = 0;
    uint32_t correlation = 0;
    SyncType type = SyncType::Unknown;
    uint32_t event = 0;
};

struct GraphExec {
    GpuPlace place;
    int64_t start = 0, end = 0;
    uint32_t name = 0;
    uint32_t correlation = 0;
    uint32_t graphId = 0;
};

struct NvtxRangeEvent {
    int64_t pid = 0, tid = 0;
    uint32_t domain = 0;
    int64_t start = 0, end = 0;
    uint32_t message = 0;
    uint32_t category = 0;
    uint32_t color = 0;  // ARGB; 0 means no color given
    PayloadType payloadType = PayloadType::None;
    uint64_t payload = 0;  // the payload's bits (doubles and floats as their IEEE bits)
    RangeType rangeType = RangeType::PushPop;
    int64_t endTid = 0;  // the thread that ended a start/end range, 0 if the same
};

struct NvtxMarkEvent {
    int64_t pid = 0, tid = 0;
    uint32_t domain = 0;
    int64_t time = 0;
    uint32_t message = 0;
    uint32_t category = 0;
    uint32_t color = 0;
    PayloadType payloadType = PayloadType::None;
    uint64_t payload = 0;
};

struct MetricSample {
    uint32_t series = 0;
    int64_t time = 0;
    double value = 0;
};

struct CudaMemoryEvent {
    int64_t pid = 0;
    int32_t device = 0;
    int64_t time = 0;
    uint64_t address = 0;
    uint64_t bytes = 0;
    MemoryKind memKind = MemoryKind::Device;
    MemoryOp op = MemoryOp::Alloc;
    uint32_t correlation = 0;
};

struct ThreadRunning {
    int64_t pid = 0, tid = 0, start = 0, end = 0;
    int16_t cpu = -1;
    ThreadStateKind state = ThreadStateKind::Running;
};

// `stack` is an index into Report::callStacks (ReportBuilder::stackId); `name` the leaf
// frame's function (string id), which is what timelines and tooltips show.
struct CpuSampleEvent {
    int64_t pid = 0, tid = 0, time = 0;
    uint32_t stack = 0;
    uint32_t name = 0;
    int16_t cpu = -1;
};

struct CuptiOverheadEvent {
    int64_t pid = 0, tid = 0, start = 0, end = 0;
    uint8_t kind = 0;
};

// An MPI call (-t mpi). -1: none (peer, tag, root); peer: the destination, or the source
// actually received from; bytes: sent (collectives: this rank's send size), recvBytes:
// received; request: the handle of nonblocking calls and waits.
struct MpiCall {
    int64_t pid = 0, tid = 0, start = 0, end = 0;
    uint32_t name = 0;
    MpiCallClass callClass = MpiCallClass::Other;
    uint64_t comm = 0;  // the communicator handle as the MPI library gives it
    int32_t peer = -1, tag = -1, root = -1;
    int64_t bytes = 0, recvBytes = 0;
    uint64_t request = 0;
};

// An OpenMP construct on a thread (-t openmp, from OMPT). `kind` refines `event` with OMPT's
// own enumeration (Schema.h, OpenMpEvent); ids per process from 1 (0 none); count: a loop's
// iterations, a parallel region's requested threads, an implicit task's team size; index: the
// thread's number in its team (-1 none); codePtr: the return address OMPT gives.
struct OpenMpConstruct {
    int64_t pid = 0, tid = 0, start = 0, end = 0;
    uint32_t name = 0;
    OpenMpEvent event = OpenMpEvent::Parallel;
    uint32_t kind = 0;
    uint64_t parallelId = 0, taskId = 0;
    int64_t count = 0;
    int32_t index = -1;
    uint64_t codePtr = 0;
};

// A cuBLAS (K = Cublas) or cuDNN (K = Cudnn) call: the handle it was given (0 none), the
// handle's stream after the call (0 the default stream or unknown) and its return value.
template <EventKind K>
struct CudaLibCallOf {
    static_assert(K == EventKind::Cublas || K == EventKind::Cudnn);
    int64_t pid = 0, tid = 0, start = 0, end = 0;
    uint32_t name = 0;
    uint64_t handle = 0, stream = 0;
    int32_t status = 0;
};
using CublasCall = CudaLibCallOf<EventKind::Cublas>;
using CudnnCall = CudaLibCallOf<EventKind::Cudnn>;

// An NCCL call (-t nccl): count elements of datatype (bytes = count x its size); datatype,
// redOp: ncclDataType_t, ncclRedOp_t (-1 none); peer: the root of rooted collectives or the
// peer of send/recv (-1 none); rank, ranks: the communicator's (-1 unknown).
struct NcclCall {
    int64_t pid = 0, tid = 0, start = 0, end = 0;
    uint32_t name = 0;
    uint64_t comm = 0, stream = 0;
    int32_t status = 0;
    int64_t count = 0, bytes = 0;
    int16_t dataType = -1, redOp = -1;
    int32_t peer = -1, rank = -1, ranks = -1;
};

}  // namespace sl
