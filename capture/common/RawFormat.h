#pragma once
// The raw stream format: what injection modules write inside the traced process and what the
// launcher's merge reads. One stream file per module per process image, in the session
// directory: <session>/<module>-<pid>-<n>.slraw, or, when the image wrote nothing before its end
// and the arenas have their own directory, beside its arena: <arenas>/<module>-<pid>-<n>.slraw.
// Little-endian, every record 8-byte aligned.
//
//   StreamHeader  (64 bytes, once)
//   Block*        (BlockHeader + records of ONE thread's buffer, in that thread's order)
//
// A block is a thread buffer handed to the writer; records inside a block are in program
// order of that thread. Blocks of different threads interleave arbitrarily; the merge sorts.
// Nothing here depends on Qt, SQLite or the model library except the EventKind numbering
// (model/core/Schema.h, a header without dependencies). Compatibility rule: record types and
// meta kinds are only ever added; a reader skips record types it does not know (size8).
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <string_view>

#include "model/core/Schema.h"

namespace sl::capture {

constexpr char kStreamMagic[8] = {'S', 'L', 'R', 'A', 'W', '0', '0', '1'};
constexpr uint32_t kStreamVersion = 1;
constexpr uint32_t kBlockMagic = 0x4B4C4253;  // "SBLK"

struct StreamHeader {
    char magic[8];             // kStreamMagic
    uint32_t version;          // kStreamVersion
    uint32_t headerBytes;      // sizeof(StreamHeader)
    int64_t pid;               // the process that wrote the stream
    int64_t startMonotonicNs;  // CLOCK_MONOTONIC when the stream was opened
    int64_t startUtcNs;        // CLOCK_REALTIME at the same moment
    char module[24];           // "inject", "cupti": NUL-terminated
};
static_assert(sizeof(StreamHeader) == 64);

struct BlockHeader {
    uint32_t magic;  // kBlockMagic
    uint32_t bytes;  // payload bytes after this header (a multiple of 8)
    int64_t tid;     // the thread whose records follow (0: records of no particular thread)
    uint64_t seq;    // per-thread block sequence number, from 0 (gaps mean lost blocks)
};
static_assert(sizeof(BlockHeader) == 24);

enum class RecordType : uint8_t {
    Event = 1,      // EventRecord: a generic event of any sl::EventKind with its schema columns
    String = 2,     // StringRecord: defines a stream-local string id
    Meta = 3,       // MetaRecord: metadata (processes, threads, domains, GPUs, drops, ...)
    NvtxPush = 4,   // NvtxRecord: compact NVTX hot-path records (the merge pairs them)
    NvtxPop = 5,    // NvtxEndRecord
    NvtxStart = 6,  // NvtxRecord with a range id
    NvtxEnd = 7,    // NvtxEndRecord with a range id
    NvtxMark = 8,   // NvtxRecord
};

// Every record starts with this. `size8` is the whole record's size in 8-byte units.
struct RecordHeader {
    RecordType type;
    uint8_t flags;  // per type (NVTX: payload type in bits 0-3, kNvtxRegistered, kNvtxInline)
    uint16_t size8;
    uint32_t aux;  // per type (NVTX: the domain id; Meta: the MetaKind)
};
static_assert(sizeof(RecordHeader) == 8);

constexpr uint32_t kMaxRecordBytes = 0xFFFF * 8;

// A generic event (the path for CUDA/CUPTI and OS runtime events). `columnCount` int64 values
// follow, one per column of schemaOf(kind) in schema order (fewer: the rest are 0). Doubles
// (Metric values) are stored as their IEEE bits. String-valued fields (name) are stream-local
// string ids from StringRecords. Kernel's `launch` column is a stream-local launch id defined
// by a MetaKind::KernelLaunch record; the merge remaps it.
struct EventRecord {
    RecordHeader h;  // type Event; aux unused
    uint8_t kind;    // sl::EventKind
    uint8_t columnCount;
    uint16_t reserved;
    uint32_t name;   // stream-local string id, 0 = none
    int64_t tid;     // owner thread for thread-owned kinds (0 otherwise)
    int64_t start;   // ns, CLOCK_MONOTONIC
    int64_t end;     // == start for instant kinds
    int32_t device;  // owner GPU for stream/device kinds (-1 otherwise)
    uint32_t context;
    uint32_t stream;
    uint32_t domain;  // NVTX domain for NVTX kinds
    // int64_t columns[columnCount];
};
static_assert(sizeof(EventRecord) == 56);

// Defines a stream-local string id (ids start at 1, unique within the stream file).
struct StringRecord {
    RecordHeader h;   // type String; aux = the string id
    uint32_t length;  // bytes of UTF-8 text that follow (no NUL), padded to 8
    uint32_t reserved;
};

// NVTX flags (RecordHeader::flags).
constexpr uint8_t kNvtxPayloadMask = 0x0F;  // sl::PayloadType
constexpr uint8_t kNvtxRegistered =
    0x10;  // message is a registered string id (NvtxRecord::message)
constexpr uint8_t kNvtxInline =
    0x20;  // message text follows the record (NvtxRecord::message = length)
constexpr uint8_t kNvtxCompact = 0x40;  // NvtxCompactRecord: no category, color or payload (all 0)

// Push, start and mark. `aux` is the domain id (0: default domain). For Start, `rangeId` is the
// process-unique id returned to the program; its end may come from any thread.
struct NvtxRecord {
    RecordHeader h;
    int64_t time;
    uint32_t category;
    uint32_t color;    // ARGB, 0 = none
    uint64_t payload;  // bits of the payload
    uint32_t message;  // string id (kNvtxRegistered) or inline text length (kNvtxInline)
    uint32_t reserved;
    // NvtxStart only: uint64_t rangeId; then the inline text, padded to 8.
};
static_assert(sizeof(NvtxRecord) == 40);

// Push or mark without attributes (the common nvtxRangePushA/nvtxMarkA case), flag
// kNvtxCompact: 16 bytes less to write per call. The inline text follows as in NvtxRecord.
struct NvtxCompactRecord {
    RecordHeader h;
    int64_t time;
    uint32_t message;
    uint32_t reserved;
};
static_assert(sizeof(NvtxCompactRecord) == 24);

// Pop and end. Pop ends the innermost open push range of (thread, domain).
struct NvtxEndRecord {
    RecordHeader h;  // aux = domain (Pop)
    int64_t time;
    uint64_t rangeId;  // End only (0 for Pop)
};
static_assert(sizeof(NvtxEndRecord) == 24);

// Metadata: `intCount` int64 values, then `strCount` strings (each uint32 length + bytes, the
// whole record padded to 8). The meaning of the values per kind is listed below; readers fill
// missing trailing values with 0 and missing strings with "".
struct MetaRecord {
    RecordHeader h;  // type Meta; aux = MetaKind
    uint16_t intCount;
    uint16_t strCount;
    uint32_t reserved;
    // int64_t ints[intCount]; then strings
};

enum class MetaKind : uint32_t {
    //                     ints                                              strings
    ProcessStart =
        1,  // {pid, parentPid, time, startUtcNs, namespacePid, unresolved}  {name, commandLine, exePath}
            //  pids as the launcher sees them; namespacePid: getpid() in its own namespace;
            //  unresolved 1: pid is only the namespace's (PidQuery.h: no answer)
    ProcessEnd = 2,     // {time, exitCode, signal, how (ExitHow)}           {}
    ChildCreated = 3,   // {childPid, time, via (ChildVia), traced (0/1)}    {}
    ChildReaped = 4,    // {childPid, time, exitCode, signal}                {}
    ThreadStart = 5,    // {tid, time}                                       {name}
    ThreadEnd = 6,      // {tid, time}                                       {}
    ThreadName = 7,     // {tid, time, source (0: the OS name, 1: nvtxNameOsThread,
                        //  2: a thread of the capture itself, hidden)}      {name}
    DomainCreate = 8,   // {domainId, time}                                  {name}
    DomainDestroy = 9,  // {domainId, time}                                  {}
    Category = 10,      // {domainId, category}                              {name}
    ResourceName = 11,  // {ResourceKind, handle or ordinal, time}           {name}
    Gpu = 12,           // {deviceId, smCount, memoryBytes, ccMajor, ccMinor, smClockKHz,
                        //  memoryClockKHz, bandwidthBytesPerSec}            {name, uuid, pciBusId}
    Context = 13,       // {deviceId, contextId}                             {name}
    Stream = 14,        // {deviceId, contextId, streamId, priority, flags, isDefault} {name}
    KernelLaunch = 15,  // {launchId, gridX, gridY, gridZ, blockX, blockY, blockZ, registers,
                        //  staticShared, dynamicShared, localBytes, launchType, graphId,
    //  graphNodeId}                                     {mangledName, shortName}
    Drops = 16,           // {tid, DropKind, count}: records that could not be stored
    Diagnostic = 17,      // {count[, tid]}                                    {name, reason}
                          //  with a tid: counted per process by the merge, a thread of the
                          //  capture itself (CUPTI's) left out
    ResourceHandle = 18,  // {ResourceKind, handle, deviceId, contextId, streamId}: maps a CUDA
                          //  handle (CUcontext, CUstream) to ids so ResourceName can be resolved
    Recovered = 19,       // {blocks, bytes[, running]}: written by the launcher, not the
                          //  process: blocks taken from the process's buffer arena after it
                          //  died unflushed, or (running = 1) copied from the arena of a process
                          //  still running when the capture ended (--kill=none, --wait=primary)
    UntracedImage = 20,   // {pid, time, reason (Untraceable)}                 {path, commandLine}
                          //  process pid (this one before exec, or a posix_spawn child) runs
                          //  an image our module cannot be loaded into (ExecCheck.h)
    PythonFrame = 21,     // {frameId, line}                                   {function, file}
                          //  a Python frame (--python-sampling), stream-local id from 1
    PythonSample = 22,    // {tid, time, frameCount}     {frame ids, uint32 little-endian each,
                          //  leaf first}: a Python call stack of thread tid at time
    PyTorchState = 23,    // {time, state (1 on, 2 failed)} {what: "torch 2.5.1: modes" or why}
                          //  --pytorch: the hook switched PyTorch's annotations on, or could not
    PythonBacktrace = 24, // {tid, time, frameCount, kind} {frame ids as in PythonSample}: the
                          //  Python stack of thread tid's event of EventKind kind (OS runtime,
                          //  NVTX range or mark) that starts at time (--python-backtrace); or
                          //  {tid, time, 0, kind, stackId} naming a PythonStack
    PythonBacktraceState = 25,  // {time, state (2: off)} {why}: backtraces could not be read
    PythonStack = 26,     // {stackId, frameCount} {frame ids}: a whole Python stack, stream-local
                          //  id from 1 (PythonBacktrace names it)
    MpiRank = 27,         // {rank, worldSize, time}  {library}: -t mpi: the process initialised
                          //  MPI; its rank in MPI_COMM_WORLD (MPI_Get_library_version's text)
    NativeBacktrace = 28, // {tid, time, frameCount, kind} {frames: uint64 little-endian each,
                          //  leaf first, module id << 48 | file offset of the return address
                          //  (module 0: none, the offset is the address)}: the native stack of
                          //  thread tid's event of EventKind kind starting at time (OS runtime:
                          //  --osrt-backtrace-threshold; CUDA API: time is the correlation id)
    NativeModule = 29,    // {moduleId, base}                                  {path}
                          //  a loaded ELF module that NativeBacktrace frames name (id from 1)
};

// A MetaRecord of `intCount` values and no strings, written at `out` (room for
// sizeof(MetaRecord) + 8 * intCount bytes); returns its size. Async-signal-safe.
inline uint32_t encodeMeta(uint8_t* out, MetaKind kind, const int64_t* ints, uint16_t intCount) {
    const uint32_t bytes = static_cast<uint32_t>(sizeof(MetaRecord)) + 8u * intCount;
    MetaRecord m{};
    m.h = {RecordType::Meta, 0, static_cast<uint16_t>(bytes / 8), static_cast<uint32_t>(kind)};
    m.intCount = intCount;
    std::memcpy(out, &m, sizeof m);
    std::memcpy(out + sizeof m, ints, 8u * intCount);
    return bytes;
}

// Strings of a MetaRecord and of a String record are at most this long (longer ones are cut,
// and counted as DropKind::TextCut).
inline constexpr uint32_t kMetaStringMax = 65536;

// The longest prefix of `s` of at most `max` bytes that does not end inside a UTF-8 sequence
// (at most 3 bytes are given back: past that the text is not UTF-8 there, and is cut at `max`).
inline std::string_view cutAtCharacter(std::string_view s, size_t max) {
    if (s.size() <= max) return s;
    auto continuation = [&](size_t i) { return (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; };
    size_t n = max;
    while (n > 0 && max - n < 3 && continuation(n)) --n;
    return s.substr(0, continuation(n) ? max : n);
}

// The size of a MetaRecord of `intCount` values and these strings (padded to 8).
inline uint32_t metaRecordBytes(int intCount, const std::string_view* strs, int strCount) {
    uint32_t bytes = static_cast<uint32_t>(sizeof(MetaRecord)) + 8u * static_cast<uint32_t>(intCount);
    for (int i = 0; i < strCount; ++i)
        bytes += 4 + static_cast<uint32_t>(std::min<size_t>(strs[i].size(), kMetaStringMax));
    return (bytes + 7u) & ~7u;
}

// A MetaRecord with strings, written at `out` (room for metaRecordBytes()); returns its size.
// Async-signal-safe.
inline uint32_t encodeMeta(uint8_t* out, MetaKind kind, const int64_t* ints, int intCount,
                           const std::string_view* strs, int strCount) {
    const uint32_t bytes = metaRecordBytes(intCount, strs, strCount);
    MetaRecord m{};
    m.h = {RecordType::Meta, 0, static_cast<uint16_t>(bytes / 8), static_cast<uint32_t>(kind)};
    m.intCount = static_cast<uint16_t>(intCount);
    m.strCount = static_cast<uint16_t>(strCount);
    std::memcpy(out, &m, sizeof m);
    uint8_t* q = out + sizeof m;
    if (intCount) std::memcpy(q, ints, 8 * static_cast<size_t>(intCount));
    q += 8 * intCount;
    for (int i = 0; i < strCount; ++i) {
        const uint32_t len = static_cast<uint32_t>(std::min<size_t>(strs[i].size(), kMetaStringMax));
        std::memcpy(q, &len, 4);
        if (len) std::memcpy(q + 4, strs[i].data(), len);
        q += 4 + len;
    }
    std::memset(q, 0, static_cast<size_t>(out + bytes - q));
    return bytes;
}

// Sealed: the process is about to install a seccomp filter; its stream ends here (complete),
// the process does not (its end and status come from the kernel and its reaper).
enum class ExitHow : int64_t { Exit = 0, QuickExit = 1, Signal = 2, Exec = 3, Sealed = 4 };
enum class ChildVia : int64_t { Fork = 0, Vfork = 1, PosixSpawn = 2, Clone = 3 };
enum class ResourceKind : int64_t {
    CuDevice = 1,
    CuContext = 2,
    CuStream = 3,
    CuEvent = 4,
    CudaDevice = 5,
    CudaStream = 6,
    CudaEvent = 7,
};
enum class DropKind : int64_t {
    NvtxRange = 1,  // a push or start whose range is therefore missing (its pop/end is skipped too)
    NvtxMark = 2,
    NvtxRangeEnd = 3,  // the end of a recorded start/end range (the range stays unterminated)
    OsRuntime = 4,
    Event = 5,  // any generic EventRecord
    Meta = 6,
    TextCut = 7,  // a text longer than the capture keeps (kMetaStringMax, kMaxMessageBytes), cut
    // Any record made in a signal handler that interrupted its thread inside another record:
    // refused, as both would have had the same space (ProcessWriter.h, t_recording).
    InSignalHandler = 8,
};
inline constexpr int kDropKindCount = 9;  // array size for counts by DropKind (0 unused)

// The buffer arena of a stream: the file <arena dir>/<stream name>.slbuf that holds the
// process's thread buffers (mapped shared), so that what a thread committed survives any death
// of the process (SIGKILL included): the launcher appends the blocks the stream lacks
// (ArenaSalvage). The process unlinks it after a complete final flush.
//
//   ArenaHeader (padded to kArenaHeaderBytes), then slotCount slots of slotBytes each:
//   ArenaSlotHeader + capacity bytes of records, committed up to `used`.
constexpr char kArenaMagic[8] = {'S', 'L', 'A', 'R', 'E', 'N', 'A', '1'};
constexpr uint32_t kArenaHeaderBytes = 4096;
struct ArenaHeader {
    char magic[8];  // kArenaMagic
    uint32_t version;
    uint32_t slotBytes;
    uint32_t slotCount;
    int32_t writeErrno;  // the first error writing the stream (ENOSPC: the disk is full), or 0
    int64_t pid;
    // Blocks the stream could not take: their records are lost. With any, the process keeps
    // the arena at its end so the launcher can say so (the stream itself may have no room).
    uint64_t failedBlocks;
    uint64_t failedBytes;
    // When the arena was made (the process's stream start): a process whose stream file was
    // still deferred when it died gets its stream header from these (ArenaSalvage).
    int64_t startMonotonicNs;
    int64_t startUtcNs;
};
static_assert(sizeof(ArenaHeader) == 64);
// The head of a slot as the process writes it (ProcessWriter's Buffer has this layout). A slot
// is in the stream already when its (tid, seq) is; `used` is stored last by commit and first
// (as 0) when the slot is reused, so a slot never shows records of another (tid, seq).
struct ArenaSlotHeader {
    uint64_t link;  // the process's queue pointer (meaningless outside it)
    int64_t tid;
    uint64_t seq;
    uint32_t used;  // committed bytes
    uint32_t limit;
    uint32_t capacity;
    uint32_t slot;  // 1 + the slot index (0: a heap buffer, never in a file)
};
static_assert(sizeof(ArenaSlotHeader) == 40);

inline constexpr uint32_t paddedTo8(uint32_t n) {
    return (n + 7u) & ~7u;
}

}  // namespace sl::capture
