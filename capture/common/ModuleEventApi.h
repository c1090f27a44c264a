#pragma once
// How a Sightline module that has no stream of its own (libsightline-mpi.so, preloaded beside
// libsightline-inject.so under -t mpi) records events: through the preloaded module's data
// path, so that its records go into the calling thread's buffer of the inject stream and share
// everything that path already handles (fork, exec, exit, fatal signals, the buffer arena that
// survives SIGKILL, --capture-range).
//
// Why not a stream of its own: the CUDA module needs one (CUPTI delivers records on its own
// threads, late); an interposer that records on the calling thread does not, and a second
// writer, arena and set of fork and exit hooks per process would only add cost and failure
// modes.
//
// Lookup: dlsym(RTLD_DEFAULT, kModuleEventApiSymbol), then call it. Absent (the program runs
// without the preloaded module): the module records nothing and only forwards its calls.
#include <cstdint>

namespace sl::capture {

// A kind of call a module marks while its thread is in it (version 3): what records such a
// call if its thread or process ends before it returns (an MPI_Recv that never matched, the
// rank killed by mpirun). Static in the module.
struct ModuleOpenCallKind {
    // Records the call of thread `tid` that began at `start`, ending at `now` (its columns as
    // they were when the thread was cut short). Runs once, on whichever thread ends the thread
    // or the process, in a signal handler too: async-signal-safe. False when it recorded nothing.
    bool (*finish)(void* context, int64_t tid, int64_t start, int64_t now);
    const char* diagnosticKey;   // "mpi.calls_unfinished": counted with the thread
    const char* diagnosticText;  // what the report says of them
};
// Where a mark keeps what it covers up (a call inside a call: a handler's); the caller's, on its
// stack, from openCallBegin to openCallEnd.
struct ModuleOpenCallMark {
    alignas(8) unsigned char bytes[64];
};

struct ModuleEventApi {
    uint32_t version;  // kModuleEventApiVersion; fields are only ever appended
    uint32_t reserved;
    // Whether recording is on now: the session's capture range is open (always, without one).
    bool (*recording)();
    // The fork generation: stream-local string ids defined under another one are stale.
    uint32_t (*generation)();
    // Defines a stream-local string id (0: dropped). Cache it per generation.
    uint32_t (*defineString)(const char* text, uint32_t length);
    // An event of the calling thread (EventRecord, RawFormat.h). False when dropped (counted).
    bool (*emitThreadEvent)(uint8_t kind, int64_t start, int64_t end, uint32_t name,
                            const int64_t* columns, int columnCount);
    // A MetaRecord with at most one string. False when dropped.
    bool (*emitMeta)(uint32_t metaKind, const int64_t* ints, int intCount, const char* text,
                     uint32_t textLength);
    // Version 2: an event of thread `tid` of this process, written by the calling thread (an
    // OpenMP worker's region ends as its team's master sees them; the runtime reports them late).
    bool (*emitEventOfThread)(int64_t tid, uint8_t kind, int64_t start, int64_t end, uint32_t name,
                              const int64_t* columns, int columnCount);
    // Version 2: the calling thread's id as records carry it.
    int64_t (*threadId)();
    // Version 3: marks the calling thread as in a call of `kind` since `start` until
    // openCallEnd(mark); `context` is what kind->finish is given (the caller's record of the
    // call, alive until then). Async-signal-safe; nests.
    void (*openCallBegin)(ModuleOpenCallMark* mark, const ModuleOpenCallKind* kind, void* context,
                          int64_t start);
    void (*openCallEnd)(const ModuleOpenCallMark* mark);
};

inline constexpr uint32_t kModuleEventApiVersion = 3;
inline constexpr const char* kModuleEventApiSymbol = "sightline_module_event_api";
using ModuleEventApiFn = const ModuleEventApi* (*)();

}  // namespace sl::capture
