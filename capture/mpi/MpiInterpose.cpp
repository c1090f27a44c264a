// libsightline-mpi-<impl>.so: -t mpi. Preloaded beside libsightline-inject.so, it defines the C
// MPI functions, so every call the program (or a library it loads, mpi4py included) makes binds
// here first; each wrapper calls the implementation through its PMPI_ name (the MPI standard's
// profiling interface) and records the call as an EventKind::Mpi event on the calling thread.
//
// Built once per MPI ABI from this one source (OpenMPI's handles are pointers, MPICH's ints):
// the module is compiled against that implementation's mpi.h and links no MPI library, so a
// process that never loads MPI (mpirun itself, a shell) loads it without harm. Handles the
// header defines as references to library symbols (OpenMPI's MPI_COMM_WORLD) are looked up at
// run time instead: the link fails with --no-undefined if one slips in.
//
// Only the outermost MPI call of a thread is recorded (an implementation may call its own
// public functions). A call that never returns (MPI_Abort) is recorded before it is made.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "capture/common/Clock.h"
#include "capture/common/Export.h"
#include "capture/common/ModuleEventClient.h"
#include "capture/common/RawFormat.h"
#include "model/core/EventColumns.h"


namespace sl::mpi {
namespace {

using capture::ModuleEventApi;

const ModuleEventApi* api() { return capture::moduleEventApi(); }

// The loaded MPI library that is not in the global scope: a library loaded with RTLD_LOCAL
// (Python's extension modules: mpi4py) whose own dependency is libmpi. Its calls still bind to
// our definitions (the preloaded module comes first for everyone), but RTLD_NEXT and
// RTLD_DEFAULT search the global scope only. Found by asking each loaded object for PMPI_Init.
int findLocalMpi(dl_phdr_info* info, size_t, void* out) {
    if (!info->dlpi_name || !*info->dlpi_name) return 0;
    void* h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return 0;
    if (dlsym(h, "PMPI_Init")) {
        *static_cast<void**>(out) = h;  // kept open: it is loaded anyway
        return 1;
    }
    dlclose(h);
    return 0;
}

std::atomic<void*> g_localMpi{nullptr};

// `name` in an MPI library loaded with RTLD_LOCAL (nullptr when there is none).
void* findInLocalMpi(const char* name) {
    void* h = g_localMpi.load(std::memory_order_acquire);
    if (!h) {
        dl_iterate_phdr(findLocalMpi, &h);
        if (!h) return nullptr;
        g_localMpi.store(h, std::memory_order_release);
    }
    return dlsym(h, name);
}

// The implementation's function named `name` (PMPI_x): the next definition after ours, any in
// the global scope, or the one of an MPI library loaded with RTLD_LOCAL.
void* findReal(const char* name) {
    void* f = dlsym(RTLD_NEXT, name);
    if (!f) f = dlsym(RTLD_DEFAULT, name);
    return f ? f : findInLocalMpi(name);
}

template <class F>
F real(std::atomic<void*>& slot, const char* name) {
    void* f = slot.load(std::memory_order_relaxed);
    if (!f) {
        f = findReal(name);
        slot.store(f, std::memory_order_relaxed);
    }
    return reinterpret_cast<F>(f);
}

template <class H>
int64_t handleBits(H h) {
    if constexpr (std::is_pointer_v<H>)
        return static_cast<int64_t>(reinterpret_cast<uintptr_t>(h));
    else
        return static_cast<int64_t>(h);
}

// MPI_COMM_WORLD without referencing a library symbol at link time (OpenMPI defines it as the
// address of ompi_mpi_comm_world).
MPI_Comm worldComm() {
#ifdef OPEN_MPI
    // A data object: the global scope's definition first, which is the program's copy when it
    // was linked with MPI (a copy relocation; the library uses that copy too), never RTLD_NEXT.
    static void* world = [] {
        void* w = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
        return w ? w : findInLocalMpi("ompi_mpi_comm_world");
    }();
    return static_cast<MPI_Comm>(world);
#else
    return MPI_COMM_WORLD;
#endif
}

// PMPI helpers used for the recorded columns.
std::atomic<void*> g_typeSize, g_commSize, g_commRank, g_getCount, g_libVersion, g_initialized;

int64_t typeBytes(MPI_Datatype t) {
    auto f = real<int (*)(MPI_Datatype, int*)>(g_typeSize, "PMPI_Type_size");
    int size = 0;
    if (!f || f(t, &size) != MPI_SUCCESS) return 0;
    return size;
}
// `count` an int, or an MPI_Count of the MPI-4 large-count functions (MPI_Send_c, ...).
int64_t bytesOf(int64_t count, MPI_Datatype t) { return count > 0 ? count * typeBytes(t) : 0; }
int commSize(MPI_Comm c) {
    auto f = real<int (*)(MPI_Comm, int*)>(g_commSize, "PMPI_Comm_size");
    int n = 0;
    if (!f || f(c, &n) != MPI_SUCCESS) return 0;
    return n;
}
int commRank(MPI_Comm c) {
    auto f = real<int (*)(MPI_Comm, int*)>(g_commRank, "PMPI_Comm_rank");
    int n = -1;
    if (!f || f(c, &n) != MPI_SUCCESS) return -1;
    return n;
}
// Bytes of a v-collective's per-rank counts over the communicator's ranks (ints, or MPI_Counts).
template <class Count>
int64_t bytesOfCounts(const Count* counts, MPI_Datatype t, MPI_Comm c) {
    if (!counts) return 0;
    int64_t n = 0;
    for (int i = 0, size = commSize(c); i < size; ++i) n += counts[i] > 0 ? counts[i] : 0;
    return n * typeBytes(t);
}
int64_t receivedBytes(const MPI_Status* st, MPI_Datatype t) {
    auto f = real<int (*)(const MPI_Status*, MPI_Datatype, int*)>(g_getCount, "PMPI_Get_count");
    int n = 0;
    if (!st || !f || f(st, t, &n) != MPI_SUCCESS || n == MPI_UNDEFINED) return 0;
    return n * typeBytes(t);
}

// The process's rank in MPI_COMM_WORLD, said once per process after MPI is initialised.
std::atomic<bool> g_rankSaid{false};
void sayRank() {
    const ModuleEventApi* a = api();
    if (!a || g_rankSaid.exchange(true)) return;
    // No MPI_COMM_WORLD of this module's implementation: the program's MPI is another one
    // (MPICH under the default --mpi-impl=openmpi). Asking it about a null communicator made
    // MPICH abort every rank ("Invalid communicator"); the calls are still recorded (they
    // pass through with the program's own handles), its rank is not said.
    if (!worldComm()) return;
    int rank = commRank(worldComm()), size = commSize(worldComm());
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    if (auto f = real<int (*)(char*, int*)>(g_libVersion, "PMPI_Get_library_version"))
        f(version, &len);
    // The first line is the implementation and version; the rest is build detail.
    len = static_cast<int>(strnlen(version, sizeof version));
    for (int i = 0; i < len; ++i)
        if (version[i] == '\n' || version[i] == ',') len = i;
    int64_t ints[3] = {rank, size, capture::nowNs()};
    a->emitMeta(static_cast<uint32_t>(capture::MetaKind::MpiRank), ints, 3, version,
                static_cast<uint32_t>(len));
}
bool mpiInitialized() {
    auto f = real<int (*)(int*)>(g_initialized, "PMPI_Initialized");
    int yes = 0;
    return f && f(&yes) == MPI_SUCCESS && yes;
}

capture::LiteralNameIds g_names;  // the wrappers' function names

bool finishOpenCall(void* context, int64_t tid, int64_t start, int64_t now);
// A call the rank is still in when it ends (an MPI_Recv that never matched, the job then
// killed by mpirun, a timeout or Ctrl+C): the preloaded module records it at the end of the
// thread or the process, ending then. It was lost: the rank looked idle where it hung.
constexpr capture::ModuleOpenCallKind kUnfinished = {
    finishOpenCall, "mpi.calls_unfinished",
    "MPI calls still in progress when their rank ended (killed while it waited: a call is "
    "recorded as it returns): shown ending then"};

// A call's columns as the wrappers fill them (those known before the call first, for a call
// that never returns).
struct CallColumns {
    int64_t comm = 0, bytes = 0, recvBytes = 0, request = 0;
    int32_t peer = -1, tag = -1, root = -1;
};

// The thread's outermost MPI call in progress (an implementation may call its own public
// functions: those are not recorded). Thread-local, not on the stack: the end of the process
// may record it from its mark while the thread is still in it, and a program that leaves the
// call with siglongjmp (a SIGALRM timeout around an MPI_Recv) leaves no frame behind to read
// (the stack object it was crashed exit()).
struct CallRecord {
    bool active = false;    // in a call now
    uint64_t seq = 0;       // which call, for the handle that opened it
    const void* frame = nullptr;  // the opening handle's address
    // A value the opening handle keeps on the stack, and where: still there, the call's frame
    // is live; overwritten, the program left the call (siglongjmp) and later frames took its
    // place.
    uint64_t canary = 0;
    const volatile uint64_t* canaryAt = nullptr;
    bool frameLive() const { return canaryAt && *canaryAt == canary; }
    const char* name = nullptr;
    MpiCallClass callClass = MpiCallClass::Other;
    // Recorded yet or not; taken by whichever records it: the thread as the call returns, or
    // the end of the process while the thread is still in it.
    std::atomic<bool> on{false};
    bool marked = false;
    int64_t start = 0;
    CallColumns cols;
    capture::ModuleOpenCallMark mark{};

    // Records the call, ending at `end`, as a call of the calling thread (tid 0) or, at the
    // end of the process, of thread `tid` (written by the thread ending it, maybe in a signal
    // handler: nothing is asked of MPI then). False when it was dropped.
    bool emit(int64_t tid, int64_t end) {
        const ModuleEventApi* a = api();
        if (tid == 0 && !g_rankSaid.load(std::memory_order_relaxed) && mpiInitialized()) sayRank();
        MpiCall e;  // its columns as the model defines them (EventColumns.h)
        e.callClass = callClass;
        e.comm = static_cast<uint64_t>(cols.comm);
        e.peer = cols.peer;
        e.tag = cols.tag;
        e.root = cols.root;
        e.bytes = cols.bytes;
        e.recvBytes = cols.recvBytes;
        e.request = static_cast<uint64_t>(cols.request);
        const auto c = columnsOf(e);
        const uint32_t id = g_names.get(a, name);
        return tid == 0 ? a->emitThreadEvent(static_cast<uint8_t>(EventKind::Mpi), start, end, id,
                                             c.data(), static_cast<int>(c.size()))
                        : a->emitEventOfThread(tid, static_cast<uint8_t>(EventKind::Mpi), start, end,
                                               id, c.data(), static_cast<int>(c.size()));
    }
    void unmark() {
        if (!marked) return;
        marked = false;
        api()->openCallEnd(&mark);
    }
};
// initial-exec: the module is preloaded, so its thread-locals are in the static block, one
// %fs-relative load away (general-dynamic's __tls_get_addr on each use doubled a call's cost).
// constinit: no per-use initialization check (a C++ thread_local that is not constant-
// initialized is reached through a wrapper function and a guard on every use).
constinit thread_local CallRecord t_call __attribute__((tls_model("initial-exec"))){};

// One call, as the wrapper sees it: opens the thread's record when it is the outermost, fills
// its columns (c.comm = ...), and records it as it returns.
struct Call {
    Call(const char* n, MpiCallClass c)
        : m_outer(open(this, n, c)), m_seq(t_call.seq), m_cols(m_outer ? t_call.cols : m_scratch),
          comm(m_cols.comm), bytes(m_cols.bytes), recvBytes(m_cols.recvBytes),
          request(m_cols.request), peer(m_cols.peer), tag(m_cols.tag), root(m_cols.root) {
        if (!m_outer) return;
        m_canary = (m_seq * 0x9E3779B97F4A7C15ULL) ^ reinterpret_cast<uintptr_t>(&t_call) ^ 1;
        t_call.canary = m_canary;
        t_call.canaryAt = &m_canary;
    }
    ~Call() {
        m_canary = 0;
        if (!owner()) return;
        t_call.active = false;
        t_call.unmark();
        if (t_call.on.exchange(false)) t_call.emit(0, capture::nowNs());
    }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

    // Records the call now (for calls that do not return).
    void emitNow() {
        if (!owner()) return;
        t_call.active = false;
        t_call.unmark();
        if (t_call.on.exchange(false)) t_call.emit(0, t_call.start);
    }

private:
    bool m_outer;
    uint64_t m_seq;
    volatile uint64_t m_canary = 0;  // CallRecord::canary, while this handle's call is open
    CallColumns m_scratch;  // a nested call's, not recorded
    CallColumns& m_cols;

public:
    int64_t &comm, &bytes, &recvBytes, &request;
    int32_t &peer, &tag, &root;

private:
    bool owner() const { return m_outer && t_call.active && t_call.seq == m_seq; }

    // Whether the open call was left, seen from a new call at `self`. The stack grows down: a
    // call inside the open one (the implementation calling its own public functions, a signal
    // handler's) is below its frame, whose canary is still there; a new call at or above that
    // frame is outside it, unless it runs on an alternate signal stack (a handler's, which may
    // lie above). A call below a frame whose canary was overwritten comes after the program
    // left the open call and went deeper again.
    static bool abandoned(const void* self) {
        if (self == t_call.frame) return true;
        if (self > t_call.frame) {
            stack_t ss{};
            return !(sigaltstack(nullptr, &ss) == 0 && (ss.ss_flags & SS_ONSTACK));
        }
        return !t_call.frameLive();
    }

    // Whether the call at `self` is the thread's outermost (and then opens the record).
    static bool open(const void* self, const char* n, MpiCallClass c) {
        if (t_call.active && abandoned(self)) {
            // The open call's frame is gone: the program left it with siglongjmp. It is
            // dropped, never recorded; before, every later call of the thread counted as nested
            // in it and was lost.
            t_call.active = false;
            t_call.unmark();
            t_call.on.store(false);
        }
        if (t_call.active) return false;
        t_call.active = true;
        ++t_call.seq;
        t_call.frame = self;
        t_call.name = n;
        t_call.callClass = c;
        t_call.cols = CallColumns{};
        t_call.on.store(false, std::memory_order_relaxed);
        t_call.marked = false;
        t_call.canaryAt = nullptr;  // set by the handle once it is built
        const ModuleEventApi* a = api();
        if (!a || !a->recording()) return true;
        t_call.start = capture::nowNs();
        t_call.on.store(true, std::memory_order_relaxed);
        if (a->version >= 3) {
            a->openCallBegin(&t_call.mark, &kUnfinished, &t_call, t_call.start);
            t_call.marked = true;
        }
        return true;
    }
};

bool finishOpenCall(void* context, int64_t tid, int64_t, int64_t now) {
    CallRecord* r = static_cast<CallRecord*>(context);
    // A call the program left with siglongjmp, its frame since overwritten, is not one the
    // rank was still in.
    if (!r->frameLive()) return false;
    return r->on.exchange(false) && r->emit(tid, now);
}

}  // namespace
}  // namespace sl::mpi

using sl::MpiCallClass;
using sl::mpi::bytesOf;
using sl::mpi::bytesOfCounts;
using sl::mpi::Call;
using sl::mpi::handleBits;
using sl::mpi::receivedBytes;

// The implementation's PMPI_<NAME>, typed like our definition of MPI_<NAME>.
#define SL_PMPI(NAME)                                                                   \
    static std::atomic<void*> real_slot_;                                               \
    auto pmpi = sl::mpi::real<decltype(&MPI_##NAME)>(real_slot_, "PMPI_" #NAME);        \
    if (!pmpi) return MPI_ERR_INTERN

// ---- Initialisation and the end ----
SL_EXPORT int MPI_Init(int* argc, char*** argv) {
    SL_PMPI(Init);
    int r;
    {
        Call c("MPI_Init", MpiCallClass::Other);
        r = pmpi(argc, argv);
    }
    if (r == MPI_SUCCESS) sl::mpi::sayRank();
    return r;
}
SL_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
    SL_PMPI(Init_thread);
    int r;
    {
        Call c("MPI_Init_thread", MpiCallClass::Other);
        r = pmpi(argc, argv, required, provided);
    }
    if (r == MPI_SUCCESS) sl::mpi::sayRank();
    return r;
}
SL_EXPORT int MPI_Finalize() {
    SL_PMPI(Finalize);
    Call c("MPI_Finalize", MpiCallClass::Other);
    return pmpi();
}
SL_EXPORT int MPI_Abort(MPI_Comm comm, int code) {
    SL_PMPI(Abort);
    Call c("MPI_Abort", MpiCallClass::Other);
    c.comm = handleBits(comm);
    c.emitNow();  // it does not return
    return pmpi(comm, code);
}

// ---- Point to point ----
// Each function that takes a count is defined twice where the header has MPI-4's large-count
// functions (MPI_Send_c, with an MPI_Count): mpi4py 4 calls only those when the library has
// them (MPICH 4, Open MPI 5), and every send, receive and collective of such a program was
// missing from the report. The macros take the name and the count's type.
#if MPI_VERSION >= 4
#define SL_LARGE_COUNT(MACRO, NAME) MACRO(NAME##_c, MPI_Count)
#else
#define SL_LARGE_COUNT(MACRO, NAME)
#endif
#define SL_BOTH(MACRO, NAME) MACRO(NAME, int) SL_LARGE_COUNT(MACRO, NAME)

#define SL_SEND(NAME, COUNT)                                                                     \
    SL_EXPORT int MPI_##NAME(const void* buf, COUNT count, MPI_Datatype t, int dest, int tag,    \
                             MPI_Comm comm) {                                                    \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        c.comm = handleBits(comm), c.peer = dest, c.tag = tag, c.bytes = bytesOf(count, t);      \
        return pmpi(buf, count, t, dest, tag, comm);                                             \
    }
SL_BOTH(SL_SEND, Send)
SL_BOTH(SL_SEND, Bsend)
SL_BOTH(SL_SEND, Ssend)
SL_BOTH(SL_SEND, Rsend)

#define SL_ISEND(NAME, COUNT)                                                                    \
    SL_EXPORT int MPI_##NAME(const void* buf, COUNT count, MPI_Datatype t, int dest, int tag,    \
                             MPI_Comm comm, MPI_Request* req) {                                  \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        c.comm = handleBits(comm), c.peer = dest, c.tag = tag, c.bytes = bytesOf(count, t);      \
        int r = pmpi(buf, count, t, dest, tag, comm, req);                                       \
        if (req) c.request = handleBits(*req);                                                   \
        return r;                                                                                \
    }
SL_BOTH(SL_ISEND, Isend)
SL_BOTH(SL_ISEND, Ibsend)
SL_BOTH(SL_ISEND, Issend)
SL_BOTH(SL_ISEND, Irsend)
SL_BOTH(SL_ISEND, Send_init)
SL_BOTH(SL_ISEND, Bsend_init)
SL_BOTH(SL_ISEND, Ssend_init)
SL_BOTH(SL_ISEND, Rsend_init)

// The source and size actually received come from the status: ours when the program ignores
// it (it sees no difference).
#define SL_RECV(NAME, COUNT)                                                                     \
    SL_EXPORT int MPI_##NAME(void* buf, COUNT count, MPI_Datatype t, int source, int tag,        \
                             MPI_Comm comm, MPI_Status* status) {                                \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        MPI_Status own;                                                                          \
        MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;                            \
        c.comm = handleBits(comm), c.peer = source, c.tag = tag; /* as asked, should it hang */  \
        int r = pmpi(buf, count, t, source, tag, comm, st);                                      \
        c.peer = r == MPI_SUCCESS ? st->MPI_SOURCE : source;                                     \
        c.tag = r == MPI_SUCCESS ? st->MPI_TAG : tag;                                            \
        c.recvBytes = r == MPI_SUCCESS ? receivedBytes(st, t) : 0;                               \
        return r;                                                                                \
    }
SL_BOTH(SL_RECV, Recv)
#define SL_IRECV(NAME, COUNT)                                                                    \
    SL_EXPORT int MPI_##NAME(void* buf, COUNT count, MPI_Datatype t, int source, int tag,        \
                             MPI_Comm comm, MPI_Request* req) {                                  \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        c.comm = handleBits(comm), c.peer = source, c.tag = tag, c.recvBytes = bytesOf(count, t); \
        int r = pmpi(buf, count, t, source, tag, comm, req);                                     \
        if (req) c.request = handleBits(*req);                                                   \
        return r;                                                                                \
    }
SL_BOTH(SL_IRECV, Irecv)
SL_BOTH(SL_IRECV, Recv_init)
#define SL_SENDRECV(NAME, COUNT)                                                                 \
    SL_EXPORT int MPI_##NAME(const void* sbuf, COUNT scount, MPI_Datatype st, int dest, int stag, \
                             void* rbuf, COUNT rcount, MPI_Datatype rt, int source, int rtag,    \
                             MPI_Comm comm, MPI_Status* status) {                                \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        MPI_Status own;                                                                          \
        MPI_Status* s = status == MPI_STATUS_IGNORE ? &own : status;                             \
        c.comm = handleBits(comm), c.peer = dest, c.tag = stag, c.bytes = bytesOf(scount, st);   \
        int r = pmpi(sbuf, scount, st, dest, stag, rbuf, rcount, rt, source, rtag, comm, s);     \
        c.recvBytes = r == MPI_SUCCESS ? receivedBytes(s, rt) : 0;                               \
        return r;                                                                                \
    }
SL_BOTH(SL_SENDRECV, Sendrecv)
#define SL_SENDRECV_REPLACE(NAME, COUNT)                                                         \
    SL_EXPORT int MPI_##NAME(void* buf, COUNT count, MPI_Datatype t, int dest, int stag,         \
                             int source, int rtag, MPI_Comm comm, MPI_Status* status) {          \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        MPI_Status own;                                                                          \
        MPI_Status* s = status == MPI_STATUS_IGNORE ? &own : status;                             \
        c.comm = handleBits(comm), c.peer = dest, c.tag = stag, c.bytes = bytesOf(count, t);     \
        int r = pmpi(buf, count, t, dest, stag, source, rtag, comm, s);                          \
        c.recvBytes = r == MPI_SUCCESS ? receivedBytes(s, t) : 0;                                \
        return r;                                                                                \
    }
SL_BOTH(SL_SENDRECV_REPLACE, Sendrecv_replace)
SL_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
    SL_PMPI(Probe);
    Call c("MPI_Probe", MpiCallClass::P2p);
    c.comm = handleBits(comm), c.peer = source, c.tag = tag;
    return pmpi(source, tag, comm, status);
}
SL_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
    SL_PMPI(Iprobe);
    Call c("MPI_Iprobe", MpiCallClass::P2p);
    c.comm = handleBits(comm), c.peer = source, c.tag = tag;
    return pmpi(source, tag, comm, flag, status);
}
// Matched probes and receives (MPI-3): how mpi4py's recv() of a Python object learns its size
// and takes it. The probe has the source and tag of the message it matched; the receive the
// bytes (its message handle carries no communicator).
SL_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message,
                         MPI_Status* status) {
    SL_PMPI(Mprobe);
    Call c("MPI_Mprobe", MpiCallClass::P2p);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    c.comm = handleBits(comm), c.peer = source, c.tag = tag;
    int r = pmpi(source, tag, comm, message, st);
    if (r == MPI_SUCCESS) c.peer = st->MPI_SOURCE, c.tag = st->MPI_TAG;
    return r;
}
SL_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                          MPI_Status* status) {
    SL_PMPI(Improbe);
    Call c("MPI_Improbe", MpiCallClass::P2p);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    c.comm = handleBits(comm), c.peer = source, c.tag = tag;
    int r = pmpi(source, tag, comm, flag, message, st);
    if (r == MPI_SUCCESS && flag && *flag) c.peer = st->MPI_SOURCE, c.tag = st->MPI_TAG;
    return r;
}
#define SL_MRECV(NAME, COUNT)                                                                    \
    SL_EXPORT int MPI_##NAME(void* buf, COUNT count, MPI_Datatype t, MPI_Message* message,       \
                             MPI_Status* status) {                                               \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        MPI_Status own;                                                                          \
        MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;                            \
        int r = pmpi(buf, count, t, message, st);                                                \
        if (r == MPI_SUCCESS) {                                                                  \
            c.peer = st->MPI_SOURCE, c.tag = st->MPI_TAG, c.recvBytes = receivedBytes(st, t);   \
        }                                                                                        \
        return r;                                                                                \
    }
SL_BOTH(SL_MRECV, Mrecv)
#define SL_IMRECV(NAME, COUNT)                                                                   \
    SL_EXPORT int MPI_##NAME(void* buf, COUNT count, MPI_Datatype t, MPI_Message* message,       \
                             MPI_Request* req) {                                                 \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        c.recvBytes = bytesOf(count, t);                                                         \
        int r = pmpi(buf, count, t, message, req);                                               \
        if (req) c.request = handleBits(*req);                                                   \
        return r;                                                                                \
    }
SL_BOTH(SL_IMRECV, Imrecv)

// ---- One-sided (peer: the target rank in the window's group) ----
#define SL_PUT(NAME, COUNT)                                                                      \
    SL_EXPORT int MPI_##NAME(const void* obuf, COUNT ocount, MPI_Datatype ot, int target,        \
                             MPI_Aint disp, COUNT tcount, MPI_Datatype tt, MPI_Win win) {        \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        c.peer = target, c.bytes = bytesOf(ocount, ot), c.comm = handleBits(win);                \
        return pmpi(obuf, ocount, ot, target, disp, tcount, tt, win);                            \
    }
SL_BOTH(SL_PUT, Put)
#define SL_GET(NAME, COUNT)                                                                      \
    SL_EXPORT int MPI_##NAME(void* obuf, COUNT ocount, MPI_Datatype ot, int target,              \
                             MPI_Aint disp, COUNT tcount, MPI_Datatype tt, MPI_Win win) {        \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        c.peer = target, c.recvBytes = bytesOf(ocount, ot), c.comm = handleBits(win);            \
        return pmpi(obuf, ocount, ot, target, disp, tcount, tt, win);                            \
    }
SL_BOTH(SL_GET, Get)
#define SL_ACCUMULATE(NAME, COUNT)                                                               \
    SL_EXPORT int MPI_##NAME(const void* obuf, COUNT ocount, MPI_Datatype ot, int target,        \
                             MPI_Aint disp, COUNT tcount, MPI_Datatype tt, MPI_Op op,            \
                             MPI_Win win) {                                                      \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::P2p);                                                 \
        c.peer = target, c.bytes = bytesOf(ocount, ot), c.comm = handleBits(win);                \
        return pmpi(obuf, ocount, ot, target, disp, tcount, tt, op, win);                        \
    }
SL_BOTH(SL_ACCUMULATE, Accumulate)

// ---- Collectives ----
SL_EXPORT int MPI_Barrier(MPI_Comm comm) {
    SL_PMPI(Barrier);
    Call c("MPI_Barrier", MpiCallClass::Collective);
    c.comm = handleBits(comm);
    return pmpi(comm);
}
SL_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request* req) {
    SL_PMPI(Ibarrier);
    Call c("MPI_Ibarrier", MpiCallClass::Collective);
    c.comm = handleBits(comm);
    int r = pmpi(comm, req);
    if (req) c.request = handleBits(*req);
    return r;
}
#define SL_BCAST(NAME, COUNT)                                                                    \
    SL_EXPORT int MPI_##NAME(void* buf, COUNT count, MPI_Datatype t, int root, MPI_Comm comm) {  \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root, c.bytes = bytesOf(count, t);                   \
        return pmpi(buf, count, t, root, comm);                                                  \
    }
SL_BOTH(SL_BCAST, Bcast)
#define SL_IBCAST(NAME, COUNT)                                                                   \
    SL_EXPORT int MPI_##NAME(void* buf, COUNT count, MPI_Datatype t, int root, MPI_Comm comm,    \
                             MPI_Request* req) {                                                 \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root, c.bytes = bytesOf(count, t);                   \
        int r = pmpi(buf, count, t, root, comm, req);                                            \
        if (req) c.request = handleBits(*req);                                                   \
        return r;                                                                                \
    }
SL_BOTH(SL_IBCAST, Ibcast)
#define SL_REDUCE(NAME, COUNT)                                                                   \
    SL_EXPORT int MPI_##NAME(const void* s, void* r, COUNT count, MPI_Datatype t, MPI_Op op,     \
                             int root, MPI_Comm comm) {                                          \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root, c.bytes = bytesOf(count, t);                   \
        return pmpi(s, r, count, t, op, root, comm);                                             \
    }
SL_BOTH(SL_REDUCE, Reduce)
#define SL_ALLREDUCE(NAME, COUNT)                                                                \
    SL_EXPORT int MPI_##NAME(const void* s, void* r, COUNT count, MPI_Datatype t, MPI_Op op,     \
                             MPI_Comm comm) {                                                    \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.bytes = bytesOf(count, t), c.recvBytes = c.bytes;           \
        return pmpi(s, r, count, t, op, comm);                                                   \
    }
SL_BOTH(SL_ALLREDUCE, Allreduce)
SL_BOTH(SL_ALLREDUCE, Scan)
SL_BOTH(SL_ALLREDUCE, Exscan)
#define SL_IALLREDUCE(NAME, COUNT)                                                               \
    SL_EXPORT int MPI_##NAME(const void* s, void* r, COUNT count, MPI_Datatype t, MPI_Op op,     \
                             MPI_Comm comm, MPI_Request* req) {                                  \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.bytes = bytesOf(count, t), c.recvBytes = c.bytes;           \
        int rc = pmpi(s, r, count, t, op, comm, req);                                            \
        if (req) c.request = handleBits(*req);                                                   \
        return rc;                                                                               \
    }
SL_BOTH(SL_IALLREDUCE, Iallreduce)
#define SL_REDUCE_SCATTER_BLOCK(NAME, COUNT)                                                     \
    SL_EXPORT int MPI_##NAME(const void* s, void* r, COUNT count, MPI_Datatype t, MPI_Op op,     \
                             MPI_Comm comm) {                                                    \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.recvBytes = bytesOf(count, t);                              \
        c.bytes = c.recvBytes * sl::mpi::commSize(comm);                                         \
        return pmpi(s, r, count, t, op, comm);                                                   \
    }
SL_BOTH(SL_REDUCE_SCATTER_BLOCK, Reduce_scatter_block)
#define SL_REDUCE_SCATTER(NAME, COUNT)                                                           \
    SL_EXPORT int MPI_##NAME(const void* s, void* r, const COUNT counts[], MPI_Datatype t,       \
                             MPI_Op op, MPI_Comm comm) {                                         \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.bytes = bytesOfCounts(counts, t, comm);                     \
        int me = sl::mpi::commRank(comm);                                                        \
        c.recvBytes = counts && me >= 0 ? bytesOf(counts[me], t) : 0;                            \
        return pmpi(s, r, counts, t, op, comm);                                                  \
    }
SL_BOTH(SL_REDUCE_SCATTER, Reduce_scatter)
// Gather, scatter, allgather, alltoall: bytes = this rank's send size, recv_bytes its receive
// size, as the call's arguments give them (MPI_IN_PLACE: the part it would have sent).
#define SL_ROOTED(NAME, COUNT)                                                                   \
    SL_EXPORT int MPI_##NAME(const void* s, COUNT scount, MPI_Datatype st, void* r, COUNT rcount, \
                             MPI_Datatype rt, int root, MPI_Comm comm) {                         \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root;                                                \
        c.bytes = s == MPI_IN_PLACE ? 0 : bytesOf(scount, st), c.recvBytes = bytesOf(rcount, rt); \
        return pmpi(s, scount, st, r, rcount, rt, root, comm);                                   \
    }
SL_BOTH(SL_ROOTED, Gather)
SL_BOTH(SL_ROOTED, Scatter)
#define SL_ALLTOALL(NAME, COUNT)                                                                 \
    SL_EXPORT int MPI_##NAME(const void* s, COUNT scount, MPI_Datatype st, void* r, COUNT rcount, \
                             MPI_Datatype rt, MPI_Comm comm) {                                   \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm);                                                               \
        c.bytes = s == MPI_IN_PLACE ? 0 : bytesOf(scount, st), c.recvBytes = bytesOf(rcount, rt); \
        return pmpi(s, scount, st, r, rcount, rt, comm);                                         \
    }
SL_BOTH(SL_ALLTOALL, Allgather)
SL_BOTH(SL_ALLTOALL, Alltoall)
// The v-collectives' displacements: ints, MPI_Aints in the large-count functions.
#define SL_GATHERV(NAME, COUNT, DISP)                                                            \
    SL_EXPORT int MPI_##NAME(const void* s, COUNT scount, MPI_Datatype st, void* r,              \
                             const COUNT rcounts[], const DISP displs[], MPI_Datatype rt,        \
                             int root, MPI_Comm comm) {                                          \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root;                                                \
        c.bytes = s == MPI_IN_PLACE ? 0 : bytesOf(scount, st);                                   \
        if (sl::mpi::commRank(comm) == root) c.recvBytes = bytesOfCounts(rcounts, rt, comm);     \
        return pmpi(s, scount, st, r, rcounts, displs, rt, root, comm);                          \
    }
#define SL_SCATTERV(NAME, COUNT, DISP)                                                           \
    SL_EXPORT int MPI_##NAME(const void* s, const COUNT scounts[], const DISP displs[],          \
                             MPI_Datatype st, void* r, COUNT rcount, MPI_Datatype rt, int root,  \
                             MPI_Comm comm) {                                                    \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root, c.recvBytes = bytesOf(rcount, rt);             \
        if (sl::mpi::commRank(comm) == root) c.bytes = bytesOfCounts(scounts, st, comm);         \
        return pmpi(s, scounts, displs, st, r, rcount, rt, root, comm);                          \
    }
#define SL_ALLGATHERV(NAME, COUNT, DISP)                                                         \
    SL_EXPORT int MPI_##NAME(const void* s, COUNT scount, MPI_Datatype st, void* r,              \
                             const COUNT rcounts[], const DISP displs[], MPI_Datatype rt,        \
                             MPI_Comm comm) {                                                    \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.bytes = s == MPI_IN_PLACE ? 0 : bytesOf(scount, st);        \
        c.recvBytes = bytesOfCounts(rcounts, rt, comm);                                          \
        return pmpi(s, scount, st, r, rcounts, displs, rt, comm);                                \
    }
#define SL_ALLTOALLV(NAME, COUNT, DISP)                                                          \
    SL_EXPORT int MPI_##NAME(const void* s, const COUNT scounts[], const DISP sdispls[],         \
                             MPI_Datatype st, void* r, const COUNT rcounts[],                    \
                             const DISP rdispls[], MPI_Datatype rt, MPI_Comm comm) {             \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm);                                                               \
        c.bytes = s == MPI_IN_PLACE ? 0 : bytesOfCounts(scounts, st, comm);                      \
        c.recvBytes = bytesOfCounts(rcounts, rt, comm);                                          \
        return pmpi(s, scounts, sdispls, st, r, rcounts, rdispls, rt, comm);                     \
    }
SL_GATHERV(Gatherv, int, int)
SL_SCATTERV(Scatterv, int, int)
SL_ALLGATHERV(Allgatherv, int, int)
SL_ALLTOALLV(Alltoallv, int, int)
#if MPI_VERSION >= 4
SL_GATHERV(Gatherv_c, MPI_Count, MPI_Aint)
SL_SCATTERV(Scatterv_c, MPI_Count, MPI_Aint)
SL_ALLGATHERV(Allgatherv_c, MPI_Count, MPI_Aint)
SL_ALLTOALLV(Alltoallv_c, MPI_Count, MPI_Aint)
#endif

// The nonblocking collectives (MPI-3): the same columns as their blocking forms, and the
// request they return (its wait is recorded apart, as a start/wait call).
#define SL_IREQUEST_DONE                                                                         \
    if (req) c.request = handleBits(*req);                                                       \
    return rc
#define SL_IREDUCE(NAME, COUNT)                                                                  \
    SL_EXPORT int MPI_##NAME(const void* s, void* r, COUNT count, MPI_Datatype t, MPI_Op op,     \
                             int root, MPI_Comm comm, MPI_Request* req) {                        \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root, c.bytes = bytesOf(count, t);                   \
        int rc = pmpi(s, r, count, t, op, root, comm, req);                                      \
        SL_IREQUEST_DONE;                                                                        \
    }
SL_BOTH(SL_IREDUCE, Ireduce)
SL_BOTH(SL_IALLREDUCE, Iscan)
SL_BOTH(SL_IALLREDUCE, Iexscan)
#define SL_IREDUCE_SCATTER_BLOCK(NAME, COUNT)                                                    \
    SL_EXPORT int MPI_##NAME(const void* s, void* r, COUNT count, MPI_Datatype t, MPI_Op op,     \
                             MPI_Comm comm, MPI_Request* req) {                                  \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.recvBytes = bytesOf(count, t);                              \
        c.bytes = c.recvBytes * sl::mpi::commSize(comm);                                         \
        int rc = pmpi(s, r, count, t, op, comm, req);                                            \
        SL_IREQUEST_DONE;                                                                        \
    }
SL_BOTH(SL_IREDUCE_SCATTER_BLOCK, Ireduce_scatter_block)
#define SL_IREDUCE_SCATTER(NAME, COUNT)                                                          \
    SL_EXPORT int MPI_##NAME(const void* s, void* r, const COUNT counts[], MPI_Datatype t,       \
                             MPI_Op op, MPI_Comm comm, MPI_Request* req) {                       \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.bytes = bytesOfCounts(counts, t, comm);                     \
        int me = sl::mpi::commRank(comm);                                                        \
        c.recvBytes = counts && me >= 0 ? bytesOf(counts[me], t) : 0;                            \
        int rc = pmpi(s, r, counts, t, op, comm, req);                                           \
        SL_IREQUEST_DONE;                                                                        \
    }
SL_BOTH(SL_IREDUCE_SCATTER, Ireduce_scatter)
#define SL_IROOTED(NAME, COUNT)                                                                  \
    SL_EXPORT int MPI_##NAME(const void* s, COUNT scount, MPI_Datatype st, void* r, COUNT rcount, \
                             MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request* req) {       \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root;                                                \
        c.bytes = s == MPI_IN_PLACE ? 0 : bytesOf(scount, st), c.recvBytes = bytesOf(rcount, rt); \
        int rc = pmpi(s, scount, st, r, rcount, rt, root, comm, req);                            \
        SL_IREQUEST_DONE;                                                                        \
    }
SL_BOTH(SL_IROOTED, Igather)
SL_BOTH(SL_IROOTED, Iscatter)
#define SL_IALLTOALL(NAME, COUNT)                                                                \
    SL_EXPORT int MPI_##NAME(const void* s, COUNT scount, MPI_Datatype st, void* r, COUNT rcount, \
                             MPI_Datatype rt, MPI_Comm comm, MPI_Request* req) {                 \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm);                                                               \
        c.bytes = s == MPI_IN_PLACE ? 0 : bytesOf(scount, st), c.recvBytes = bytesOf(rcount, rt); \
        int rc = pmpi(s, scount, st, r, rcount, rt, comm, req);                                  \
        SL_IREQUEST_DONE;                                                                        \
    }
SL_BOTH(SL_IALLTOALL, Iallgather)
SL_BOTH(SL_IALLTOALL, Ialltoall)
#define SL_IGATHERV(NAME, COUNT, DISP)                                                           \
    SL_EXPORT int MPI_##NAME(const void* s, COUNT scount, MPI_Datatype st, void* r,              \
                             const COUNT rcounts[], const DISP displs[], MPI_Datatype rt,        \
                             int root, MPI_Comm comm, MPI_Request* req) {                        \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root;                                                \
        c.bytes = s == MPI_IN_PLACE ? 0 : bytesOf(scount, st);                                   \
        if (sl::mpi::commRank(comm) == root) c.recvBytes = bytesOfCounts(rcounts, rt, comm);     \
        int rc = pmpi(s, scount, st, r, rcounts, displs, rt, root, comm, req);                   \
        SL_IREQUEST_DONE;                                                                        \
    }
#define SL_ISCATTERV(NAME, COUNT, DISP)                                                          \
    SL_EXPORT int MPI_##NAME(const void* s, const COUNT scounts[], const DISP displs[],          \
                             MPI_Datatype st, void* r, COUNT rcount, MPI_Datatype rt, int root,  \
                             MPI_Comm comm, MPI_Request* req) {                                  \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.root = root, c.recvBytes = bytesOf(rcount, rt);             \
        if (sl::mpi::commRank(comm) == root) c.bytes = bytesOfCounts(scounts, st, comm);         \
        int rc = pmpi(s, scounts, displs, st, r, rcount, rt, root, comm, req);                   \
        SL_IREQUEST_DONE;                                                                        \
    }
#define SL_IALLGATHERV(NAME, COUNT, DISP)                                                        \
    SL_EXPORT int MPI_##NAME(const void* s, COUNT scount, MPI_Datatype st, void* r,              \
                             const COUNT rcounts[], const DISP displs[], MPI_Datatype rt,        \
                             MPI_Comm comm, MPI_Request* req) {                                  \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm), c.bytes = s == MPI_IN_PLACE ? 0 : bytesOf(scount, st);        \
        c.recvBytes = bytesOfCounts(rcounts, rt, comm);                                          \
        int rc = pmpi(s, scount, st, r, rcounts, displs, rt, comm, req);                         \
        SL_IREQUEST_DONE;                                                                        \
    }
#define SL_IALLTOALLV(NAME, COUNT, DISP)                                                         \
    SL_EXPORT int MPI_##NAME(const void* s, const COUNT scounts[], const DISP sdispls[],         \
                             MPI_Datatype st, void* r, const COUNT rcounts[],                    \
                             const DISP rdispls[], MPI_Datatype rt, MPI_Comm comm,               \
                             MPI_Request* req) {                                                 \
        SL_PMPI(NAME);                                                                           \
        Call c("MPI_" #NAME, MpiCallClass::Collective);                                          \
        c.comm = handleBits(comm);                                                               \
        c.bytes = s == MPI_IN_PLACE ? 0 : bytesOfCounts(scounts, st, comm);                      \
        c.recvBytes = bytesOfCounts(rcounts, rt, comm);                                          \
        int rc = pmpi(s, scounts, sdispls, st, r, rcounts, rdispls, rt, comm, req);              \
        SL_IREQUEST_DONE;                                                                        \
    }
SL_IGATHERV(Igatherv, int, int)
SL_ISCATTERV(Iscatterv, int, int)
SL_IALLGATHERV(Iallgatherv, int, int)
SL_IALLTOALLV(Ialltoallv, int, int)
#if MPI_VERSION >= 4
SL_IGATHERV(Igatherv_c, MPI_Count, MPI_Aint)
SL_ISCATTERV(Iscatterv_c, MPI_Count, MPI_Aint)
SL_IALLGATHERV(Iallgatherv_c, MPI_Count, MPI_Aint)
SL_IALLTOALLV(Ialltoallv_c, MPI_Count, MPI_Aint)
#endif

// ---- Completion: waits, tests and starts of persistent requests ----
SL_EXPORT int MPI_Wait(MPI_Request* req, MPI_Status* status) {
    SL_PMPI(Wait);
    Call c("MPI_Wait", MpiCallClass::StartWait);
    if (req) c.request = handleBits(*req);
    return pmpi(req, status);
}
SL_EXPORT int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
    SL_PMPI(Test);
    Call c("MPI_Test", MpiCallClass::StartWait);
    if (req) c.request = handleBits(*req);
    return pmpi(req, flag, status);
}
SL_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
    SL_PMPI(Waitall);
    Call c("MPI_Waitall", MpiCallClass::StartWait);
    if (reqs && n > 0) c.request = handleBits(reqs[0]);
    return pmpi(n, reqs, statuses);
}
SL_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
    SL_PMPI(Testall);
    Call c("MPI_Testall", MpiCallClass::StartWait);
    if (reqs && n > 0) c.request = handleBits(reqs[0]);
    return pmpi(n, reqs, flag, statuses);
}
SL_EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
    SL_PMPI(Waitany);
    Call c("MPI_Waitany", MpiCallClass::StartWait);
    int r = pmpi(n, reqs, index, status);
    if (r == MPI_SUCCESS && index && *index >= 0 && *index < n) c.request = handleBits(reqs[*index]);
    return r;
}
SL_EXPORT int MPI_Testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
    SL_PMPI(Testany);
    Call c("MPI_Testany", MpiCallClass::StartWait);
    return pmpi(n, reqs, index, flag, status);
}
SL_EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                           MPI_Status statuses[]) {
    SL_PMPI(Waitsome);
    Call c("MPI_Waitsome", MpiCallClass::StartWait);
    return pmpi(n, reqs, outcount, indices, statuses);
}
SL_EXPORT int MPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                           MPI_Status statuses[]) {
    SL_PMPI(Testsome);
    Call c("MPI_Testsome", MpiCallClass::StartWait);
    return pmpi(n, reqs, outcount, indices, statuses);
}
SL_EXPORT int MPI_Start(MPI_Request* req) {
    SL_PMPI(Start);
    Call c("MPI_Start", MpiCallClass::StartWait);
    if (req) c.request = handleBits(*req);
    return pmpi(req);
}
SL_EXPORT int MPI_Startall(int n, MPI_Request reqs[]) {
    SL_PMPI(Startall);
    Call c("MPI_Startall", MpiCallClass::StartWait);
    if (reqs && n > 0) c.request = handleBits(reqs[0]);
    return pmpi(n, reqs);
}

// ---- Communicators and windows ----
SL_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
    SL_PMPI(Comm_split);
    Call c("MPI_Comm_split", MpiCallClass::Other);
    c.comm = handleBits(comm);
    return pmpi(comm, color, key, out);
}
SL_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
    SL_PMPI(Comm_dup);
    Call c("MPI_Comm_dup", MpiCallClass::Other);
    c.comm = handleBits(comm);
    return pmpi(comm, out);
}
SL_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* out) {
    SL_PMPI(Comm_create);
    Call c("MPI_Comm_create", MpiCallClass::Other);
    c.comm = handleBits(comm);
    return pmpi(comm, group, out);
}
SL_EXPORT int MPI_Comm_free(MPI_Comm* comm) {
    SL_PMPI(Comm_free);
    Call c("MPI_Comm_free", MpiCallClass::Other);
    if (comm) c.comm = handleBits(*comm);
    return pmpi(comm);
}
SL_EXPORT int MPI_Win_create(void* base, MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm,
                             MPI_Win* win) {
    SL_PMPI(Win_create);
    Call c("MPI_Win_create", MpiCallClass::Other);
    c.comm = handleBits(comm), c.bytes = static_cast<int64_t>(size);
    return pmpi(base, size, unit, info, comm, win);
}
SL_EXPORT int MPI_Win_free(MPI_Win* win) {
    SL_PMPI(Win_free);
    Call c("MPI_Win_free", MpiCallClass::Other);
    return pmpi(win);
}
SL_EXPORT int MPI_Win_fence(int assert_, MPI_Win win) {
    SL_PMPI(Win_fence);
    Call c("MPI_Win_fence", MpiCallClass::Other);
    c.comm = handleBits(win);
    return pmpi(assert_, win);
}
SL_EXPORT int MPI_Win_lock(int type, int rank, int assert_, MPI_Win win) {
    SL_PMPI(Win_lock);
    Call c("MPI_Win_lock", MpiCallClass::Other);
    c.peer = rank, c.comm = handleBits(win);
    return pmpi(type, rank, assert_, win);
}
SL_EXPORT int MPI_Win_unlock(int rank, MPI_Win win) {
    SL_PMPI(Win_unlock);
    Call c("MPI_Win_unlock", MpiCallClass::Other);
    c.peer = rank, c.comm = handleBits(win);
    return pmpi(rank, win);
}
