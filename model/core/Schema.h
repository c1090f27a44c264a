#pragma once
// The event kinds of a report and the columns each kind stores. This table is the single
// definition used by the builder, the chunk codec, the reader, `info` and the exporters.
// Compatibility rule: columns are only ever appended to a kind (never reordered or removed),
// so an older reader ignores trailing columns it does not know and a newer reader fills
// columns missing from older files with zeros.
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

namespace sl {

enum class EventKind : uint8_t {
    OsRuntime = 1,      // a blocking OS runtime call on a CPU thread
    CudaApi = 2,        // a CUDA runtime or driver API call on a CPU thread
    Kernel = 3,         // a GPU kernel on a stream
    Memcpy = 4,         // a GPU memory copy on a stream
    Memset = 5,         // a GPU memset on a stream
    Sync = 6,           // a CUDA synchronization (or event record) on a stream / context
    NvtxRange = 7,      // an NVTX push/pop or start/end range
    NvtxMark = 8,       // an NVTX instantaneous mark
    Metric = 9,         // a sample of a metric series
    CudaMemory = 10,    // a CUDA memory allocation or free
    ThreadState = 11,   // a period during which a thread was running on a CPU
    GraphTrace = 12,    // a whole CUDA graph execution (--cuda-graph-trace=graph)
    CuptiOverhead = 13, // time CUPTI itself spent (buffer flush, resource tracking)
    CpuSample = 14,     // a CPU sample of a thread: where it was (its call stack) at that instant
    Mpi = 15,           // an MPI call on a CPU thread (-t mpi)
    OpenMp = 16,        // an OpenMP construct on a CPU thread, from OMPT (-t openmp)
    Cublas = 17,        // a cuBLAS API call on a CPU thread (-t cublas)
    Cudnn = 18,         // a cuDNN API call on a CPU thread (-t cudnn)
    Nccl = 19,          // an NCCL API call on a CPU thread (-t nccl)
};
constexpr int kEventKindCount = 19;
constexpr EventKind kAllEventKinds[] = {
    EventKind::OsRuntime, EventKind::CudaApi,    EventKind::Kernel,      EventKind::Memcpy,
    EventKind::Memset,    EventKind::Sync,       EventKind::NvtxRange,   EventKind::NvtxMark,
    EventKind::Metric,    EventKind::CudaMemory, EventKind::ThreadState, EventKind::GraphTrace,
    EventKind::CuptiOverhead, EventKind::CpuSample, EventKind::Mpi, EventKind::OpenMp,
    EventKind::Cublas, EventKind::Cudnn, EventKind::Nccl};

// A set of event kinds, a bit per kind: what a query reads (stats reports, analyze's rules),
// so that a report opened for it loads only those tracks.
class KindSet {
public:
    constexpr KindSet() = default;
    constexpr KindSet(std::initializer_list<EventKind> kinds) {
        for (EventKind k : kinds) m_bits |= bit(k);
    }
    static constexpr KindSet all() {
        KindSet s;
        s.m_bits = ~0u;
        return s;
    }
    constexpr bool has(EventKind k) const { return (m_bits & bit(k)) != 0; }
    constexpr bool empty() const { return m_bits == 0; }
    constexpr KindSet operator|(KindSet o) const {
        KindSet s;
        s.m_bits = m_bits | o.m_bits;
        return s;
    }
    constexpr KindSet& operator|=(KindSet o) { return *this = *this | o; }
    constexpr KindSet without(KindSet o) const {
        KindSet s;
        s.m_bits = m_bits & ~o.m_bits;
        return s;
    }
    constexpr bool operator==(const KindSet&) const = default;

private:
    static constexpr uint32_t bit(EventKind k) { return 1u << static_cast<uint8_t>(k); }
    uint32_t m_bits = 0;
};

// What a track of a kind belongs to (which TrackKey fields are meaningful).
enum class OwnerKind : uint8_t { Thread, Stream, Series, ProcessDevice };

enum class ColumnType : uint8_t { I64, U64, I32, U32, I16, U8, F64 };
// Delta: stored as the difference to the previous value in the chunk (sorted-ish values
// such as correlation ids). Plain: stored as is. Both are zigzag varints before zstd.
enum class ColumnCoding : uint8_t { Plain, Delta };

struct ColumnSpec {
    std::string_view name;
    ColumnType type;
    ColumnCoding coding;
};

struct KindSchema {
    EventKind kind;
    std::string_view id;     // stable identifier used in files and JSON ("kernel")
    std::string_view label;  // for humans ("CUDA kernels")
    OwnerKind owner;
    bool hasEnd;   // ranges have an end column; instants (marks, samples) do not
    bool hasName;  // a string-id name column
    std::span<const ColumnSpec> columns;
};

const KindSchema& schemaOf(EventKind kind);
// Returns nullptr for a kind this build does not know (a newer report).
const KindSchema* findSchema(uint8_t rawKind);
const KindSchema* findSchema(std::string_view id);

// Column indices per kind, in schema order.
namespace cols {
struct OsRuntime { enum : uint8_t { Result, Errno }; };
struct CudaApi { enum : uint8_t { Correlation, Cbid, Api, Result }; };
struct Kernel { enum : uint8_t { Correlation, Launch }; };
struct Memcpy { enum : uint8_t { Correlation, Bytes, CopyKind, SrcKind, DstKind, SrcDevice, DstDevice, Flags }; };
struct Memset { enum : uint8_t { Correlation, Bytes, Value, MemKind }; };
struct Sync { enum : uint8_t { Correlation, SyncType, Event }; };
struct Nvtx { enum : uint8_t { Category, Color, PayloadType, Payload, RangeType, EndTid }; };
struct Metric { enum : uint8_t { Value }; };
struct CudaMemory { enum : uint8_t { Address, Bytes, MemKind, Op, Correlation }; };
struct ThreadState { enum : uint8_t { State, Cpu }; };
struct GraphTrace { enum : uint8_t { Correlation, GraphId }; };
struct CuptiOverhead { enum : uint8_t { OverheadKind }; };
struct CpuSample { enum : uint8_t { Stack, Cpu }; };
struct Mpi { enum : uint8_t { CallClass, Comm, Peer, Tag, Root, Bytes, RecvBytes, Request }; };
struct OpenMp { enum : uint8_t { Event, Kind, ParallelId, TaskId, Count, Index, CodePtr }; };
// cuBLAS and cuDNN calls share one layout (CudaLibCall); NCCL adds its operation's arguments.
struct CudaLib { enum : uint8_t { Handle, Stream, Status }; };
struct Nccl { enum : uint8_t { Comm, Stream, Status, Count, Bytes, DataType, RedOp, Peer, Rank, Ranks }; };
}  // namespace cols

// Enumerations stored in columns. Ids follow the nsys export's ENUM_* tables where nsys has
// one, so exports and imports need no translation.
enum class ApiKind : uint8_t { Runtime = 0, Driver = 1 };
// ENUM_CUDA_MEMCPY_OPER
enum class CopyKind : uint8_t {
    Unknown = 0, HtoD = 1, DtoH = 2, HtoA = 3, AtoH = 4, AtoA = 5, AtoD = 6, DtoA = 7,
    DtoD = 8, HtoH = 9, PtoP = 10, UvmHtoD = 11, UvmDtoH = 12, UvmDtoD = 13,
};
// ENUM_CUDA_MEM_KIND
enum class MemoryKind : uint8_t {
    Pageable = 0, Pinned = 1, Device = 2, Array = 3, Managed = 4, DeviceStatic = 5,
    ManagedStatic = 6, Unknown = 7,
};
// CUpti_ActivitySynchronizationType, plus EventRecord for CUDA event activity records.
enum class SyncType : uint8_t {
    Unknown = 0, EventSynchronize = 1, StreamWaitEvent = 2, StreamSynchronize = 3,
    ContextSynchronize = 4, EventRecord = 100,
};
// nvtxPayloadType_t
enum class PayloadType : uint8_t { None = 0, U64 = 1, I64 = 2, F64 = 3, U32 = 4, I32 = 5, F32 = 6 };
enum class RangeType : uint8_t { PushPop = 0, StartEnd = 1 };
enum class MemoryOp : uint8_t { Alloc = 0, Free = 1 };
enum class ThreadStateKind : uint8_t { Running = 1 };
// CUpti_ActivityLaunchType
enum class LaunchType : uint8_t { Regular = 0, CooperativeSingle = 1, CooperativeMulti = 2, CbpSingle = 3 };
// What an MPI call is, as the nsys export splits them into tables (MPI_P2P_EVENTS,
// MPI_COLLECTIVES_EVENTS, MPI_START_WAIT_EVENTS, MPI_OTHER_EVENTS). One-sided calls (MPI_Put,
// MPI_Get, ...) are P2p with the target rank as the peer.
enum class MpiCallClass : uint8_t { P2p = 0, Collective = 1, StartWait = 2, Other = 3 };
std::string_view mpiCallClassName(MpiCallClass c);
// What an OpenMP event is (OMPT's callbacks). `kind` refines it with OMPT's own enumeration:
// Work: ompt_work_t (1 loop, 2 sections, 3 single executor, 4 single other, 5 workshare,
// 6 distribute, 7 taskloop); Sync: ompt_sync_region_t (3 explicit barrier, 4 implementation
// barrier, 5 taskwait, 6 taskgroup, 7 reduction, 8 implicit barrier of a worksharing construct,
// 9 implicit barrier at the end of a parallel region, 10 teams barrier); Task: ompt_task_flag_t.
enum class OpenMpEvent : uint8_t { Parallel = 0, ImplicitTask = 1, Work = 2, Sync = 3, Task = 4 };
std::string_view openMpEventName(OpenMpEvent e);  // "parallel", "implicit task", ...  // "p2p", "collective", "startwait", "other"

std::string_view copyKindName(CopyKind k);      // "HtoD", as nsys labels them
std::string_view memoryKindName(MemoryKind k);  // "Pageable", "Pinned", ...
std::string_view syncTypeName(SyncType k);
std::string_view payloadTypeName(PayloadType k);

}  // namespace sl
