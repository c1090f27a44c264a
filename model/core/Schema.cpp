#include "model/core/Schema.h"

#include <array>

namespace sl {
namespace {

using CT = ColumnType;
using CC = ColumnCoding;

constexpr ColumnSpec kOsRuntime[] = {{"result", CT::I64, CC::Plain}, {"errno", CT::I32, CC::Plain}};
constexpr ColumnSpec kCudaApi[] = {{"correlation", CT::U32, CC::Delta},
                                   {"cbid", CT::U32, CC::Plain},
                                   {"api", CT::U8, CC::Plain},
                                   {"result", CT::I32, CC::Plain}};
constexpr ColumnSpec kKernel[] = {{"correlation", CT::U32, CC::Delta},
                                  {"launch", CT::U32, CC::Plain}};
constexpr ColumnSpec kMemcpy[] = {{"correlation", CT::U32, CC::Delta}, {"bytes", CT::U64, CC::Plain},
                                  {"copy_kind", CT::U8, CC::Plain},   {"src_kind", CT::U8, CC::Plain},
                                  {"dst_kind", CT::U8, CC::Plain},    {"src_device", CT::I16, CC::Plain},
                                  {"dst_device", CT::I16, CC::Plain}, {"flags", CT::U8, CC::Plain}};
constexpr ColumnSpec kMemset[] = {{"correlation", CT::U32, CC::Delta}, {"bytes", CT::U64, CC::Plain},
                                  {"value", CT::U32, CC::Plain}, {"mem_kind", CT::U8, CC::Plain}};
constexpr ColumnSpec kSync[] = {{"correlation", CT::U32, CC::Delta}, {"sync_type", CT::U8, CC::Plain},
                                {"event", CT::U32, CC::Plain}};
constexpr ColumnSpec kNvtx[] = {{"category", CT::U32, CC::Plain},    {"color", CT::U32, CC::Plain},
                                {"payload_type", CT::U8, CC::Plain}, {"payload", CT::U64, CC::Plain},
                                {"range_type", CT::U8, CC::Plain},   {"end_tid", CT::I64, CC::Plain}};
constexpr ColumnSpec kNvtxMark[] = {{"category", CT::U32, CC::Plain},
                                    {"color", CT::U32, CC::Plain},
                                    {"payload_type", CT::U8, CC::Plain},
                                    {"payload", CT::U64, CC::Plain}};
constexpr ColumnSpec kMetric[] = {{"value", CT::F64, CC::Plain}};
constexpr ColumnSpec kCudaMemory[] = {{"address", CT::U64, CC::Plain}, {"bytes", CT::U64, CC::Plain},
                                      {"mem_kind", CT::U8, CC::Plain},  {"op", CT::U8, CC::Plain},
                                      {"correlation", CT::U32, CC::Delta}};
constexpr ColumnSpec kThreadState[] = {{"state", CT::U8, CC::Plain}, {"cpu", CT::I16, CC::Plain}};
constexpr ColumnSpec kGraphTrace[] = {{"correlation", CT::U32, CC::Delta},
                                      {"graph_id", CT::U32, CC::Plain}};
constexpr ColumnSpec kOverhead[] = {{"overhead_kind", CT::U8, CC::Plain}};
// stack: index into Report::callStacks; cpu: the CPU the thread was sampled on (-1 unknown).
constexpr ColumnSpec kCpuSample[] = {{"stack", CT::U32, CC::Plain}, {"cpu", CT::I16, CC::Plain}};

// class: MpiCallClass; comm: the communicator handle as the MPI library gives it; peer, tag, root:
// -1 where the call has none (peer: the destination, or the source actually received from);
// bytes: sent (collectives: this rank's send size), recv_bytes: received; request: the request
// handle of nonblocking calls and waits.
constexpr ColumnSpec kMpi[] = {{"class", CT::U8, CC::Plain},      {"comm", CT::U64, CC::Plain},
                               {"peer", CT::I32, CC::Plain},      {"tag", CT::I32, CC::Plain},
                               {"root", CT::I32, CC::Plain},      {"bytes", CT::I64, CC::Plain},
                               {"recv_bytes", CT::I64, CC::Plain}, {"request", CT::U64, CC::Plain}};

// event: OpenMpEvent; kind: OMPT's enumeration for it (Schema.h); parallel_id, task_id: ids of
// the region and task, per process from 1 (0 none); count: a loop's iterations, a parallel
// region's requested threads, an implicit task's team size; index: the thread's number in its
// team (-1 none); code_ptr: the return address OMPT gives (where in the program).
constexpr ColumnSpec kOpenMp[] = {{"event", CT::U8, CC::Plain},        {"kind", CT::U32, CC::Plain},
                                  {"parallel_id", CT::U64, CC::Delta}, {"task_id", CT::U64, CC::Plain},
                                  {"count", CT::I64, CC::Plain},       {"index", CT::I32, CC::Plain},
                                  {"code_ptr", CT::U64, CC::Plain}};

// cuBLAS and cuDNN calls (-t cublas, -t cudnn): handle: the library handle the call was given (0
// none); stream: the handle's stream after the call (cublasGetStream/cudnnGetStream; 0 the
// default stream or unknown); status: the call's return value (cublasStatus_t, cudnnStatus_t).
constexpr ColumnSpec kCudaLib[] = {{"handle", CT::U64, CC::Plain}, {"stream", CT::U64, CC::Plain},
                                   {"status", CT::I32, CC::Plain}};
// NCCL calls (-t nccl): comm: the communicator (0 none); stream; status: ncclResult_t; count:
// elements; bytes: count x the datatype's size; datatype, redop: ncclDataType_t, ncclRedOp_t (-1
// none); peer: the root of rooted collectives or the peer of send/recv (-1 none); rank, ranks: the
// communicator's ncclCommUserRank and ncclCommCount (-1 unknown).
constexpr ColumnSpec kNccl[] = {{"comm", CT::U64, CC::Plain},     {"stream", CT::U64, CC::Plain},
                                {"status", CT::I32, CC::Plain},   {"count", CT::I64, CC::Plain},
                                {"bytes", CT::I64, CC::Plain},    {"datatype", CT::I16, CC::Plain},
                                {"redop", CT::I16, CC::Plain},    {"peer", CT::I32, CC::Plain},
                                {"rank", CT::I32, CC::Plain},     {"ranks", CT::I32, CC::Plain}};

constexpr std::array<KindSchema, kEventKindCount> kSchemas = {{
    {EventKind::OsRuntime, "osrt", "OS runtime calls", OwnerKind::Thread, true, true, kOsRuntime},
    {EventKind::CudaApi, "cuda_api", "CUDA API calls", OwnerKind::Thread, true, true, kCudaApi},
    {EventKind::Kernel, "kernel", "CUDA kernels", OwnerKind::Stream, true, true, kKernel},
    {EventKind::Memcpy, "memcpy", "CUDA memcpy", OwnerKind::Stream, true, false, kMemcpy},
    {EventKind::Memset, "memset", "CUDA memset", OwnerKind::Stream, true, false, kMemset},
    {EventKind::Sync, "sync", "CUDA synchronization", OwnerKind::Stream, true, false, kSync},
    {EventKind::NvtxRange, "nvtx_range", "NVTX ranges", OwnerKind::Thread, true, true, kNvtx},
    {EventKind::NvtxMark, "nvtx_mark", "NVTX marks", OwnerKind::Thread, false, true, kNvtxMark},
    {EventKind::Metric, "metric", "Metric samples", OwnerKind::Series, false, false, kMetric},
    {EventKind::CudaMemory, "cuda_memory", "CUDA memory allocations", OwnerKind::ProcessDevice, false,
     false, kCudaMemory},
    {EventKind::ThreadState, "thread_state", "Thread running", OwnerKind::Thread, true, false, kThreadState},
    {EventKind::GraphTrace, "cuda_graph", "CUDA graph executions", OwnerKind::Stream, true, true, kGraphTrace},
    {EventKind::CuptiOverhead, "cupti_overhead", "CUPTI overhead", OwnerKind::Thread, true, false, kOverhead},
    // Named by the leaf frame's function, so generic views (tooltips, colors, search) show it.
    {EventKind::CpuSample, "cpu_sample", "CPU samples", OwnerKind::Thread, false, true, kCpuSample},
    {EventKind::Mpi, "mpi", "MPI calls", OwnerKind::Thread, true, true, kMpi},
    {EventKind::OpenMp, "openmp", "OpenMP", OwnerKind::Thread, true, true, kOpenMp},
    {EventKind::Cublas, "cublas", "cuBLAS calls", OwnerKind::Thread, true, true, kCudaLib},
    {EventKind::Cudnn, "cudnn", "cuDNN calls", OwnerKind::Thread, true, true, kCudaLib},
    {EventKind::Nccl, "nccl", "NCCL calls", OwnerKind::Thread, true, true, kNccl},
}};

}  // namespace

const KindSchema& schemaOf(EventKind kind) { return kSchemas[static_cast<size_t>(kind) - 1]; }

const KindSchema* findSchema(uint8_t rawKind) {
    if (rawKind < 1 || rawKind > kEventKindCount) return nullptr;
    return &kSchemas[rawKind - 1];
}

const KindSchema* findSchema(std::string_view id) {
    for (const auto& s : kSchemas)
        if (s.id == id) return &s;
    return nullptr;
}

std::string_view mpiCallClassName(MpiCallClass c) {
    switch (c) {
        case MpiCallClass::P2p: return "p2p";
        case MpiCallClass::Collective: return "collective";
        case MpiCallClass::StartWait: return "startwait";
        case MpiCallClass::Other: return "other";
    }
    return "other";
}

std::string_view openMpEventName(OpenMpEvent e) {
    switch (e) {
        case OpenMpEvent::Parallel: return "parallel";
        case OpenMpEvent::ImplicitTask: return "implicit task";
        case OpenMpEvent::Work: return "work";
        case OpenMpEvent::Sync: return "sync";
        case OpenMpEvent::Task: return "task";
    }
    return "other";
}

std::string_view copyKindName(CopyKind k) {
    switch (k) {
        case CopyKind::HtoD: return "HtoD";
        case CopyKind::DtoH: return "DtoH";
        case CopyKind::HtoA: return "HtoA";
        case CopyKind::AtoH: return "AtoH";
        case CopyKind::AtoA: return "AtoA";
        case CopyKind::AtoD: return "AtoD";
        case CopyKind::DtoA: return "DtoA";
        case CopyKind::DtoD: return "DtoD";
        case CopyKind::HtoH: return "HtoH";
        case CopyKind::PtoP: return "PtoP";
        case CopyKind::UvmHtoD: return "Unified HtoD";
        case CopyKind::UvmDtoH: return "Unified DtoH";
        case CopyKind::UvmDtoD: return "Unified DtoD";
        case CopyKind::Unknown: break;
    }
    return "Unknown";
}

std::string_view memoryKindName(MemoryKind k) {
    switch (k) {
        case MemoryKind::Pageable: return "Pageable";
        case MemoryKind::Pinned: return "Pinned";
        case MemoryKind::Device: return "Device";
        case MemoryKind::Array: return "Array";
        case MemoryKind::Managed: return "Managed";
        case MemoryKind::DeviceStatic: return "Device Static";
        case MemoryKind::ManagedStatic: return "Managed Static";
        case MemoryKind::Unknown: break;
    }
    return "Unknown";
}

std::string_view syncTypeName(SyncType k) {
    switch (k) {
        case SyncType::EventSynchronize: return "Event sync";
        case SyncType::StreamWaitEvent: return "Stream wait event";
        case SyncType::StreamSynchronize: return "Stream sync";
        case SyncType::ContextSynchronize: return "Context sync";
        case SyncType::EventRecord: return "Event record";
        case SyncType::Unknown: break;
    }
    return "Unknown";
}

std::string_view payloadTypeName(PayloadType k) {
    switch (k) {
        case PayloadType::U64: return "uint64";
        case PayloadType::I64: return "int64";
        case PayloadType::F64: return "double";
        case PayloadType::U32: return "uint32";
        case PayloadType::I32: return "int32";
        case PayloadType::F32: return "float";
        case PayloadType::None: break;
    }
    return "none";
}

}  // namespace sl
