#pragma once
// The per-process data path of one injection module (.so): per-thread buffers filled without
// locks, handed whole to a writer thread that appends them as blocks to this module's stream
// file in the session directory (RawFormat.h). Each module links its own copy (static
// library, hidden visibility), so each module has its own writer and stream file.
//
// Hot path (any thread): reserve() -> fill the record -> commit(). No lock, no syscall, no
// allocation: a thread-local pointer, a bounds check and a store. A full buffer goes to the
// writer through a lock-free stack; when the in-flight budget is exhausted the record is not
// stored and the caller counts it with countDrop() (reported per thread as Meta Drops).
// reserveCritical() may also use a reserve at the end of each buffer: NVTX pops and ends of
// ranges whose start was recorded use it, so a recorded range is never left open by a drop.
//
// Final flush (shutdown): at exit, _exit, exec, and fatal signals. It drains the writer and
// writes the committed part of every thread's current buffer; it uses only syscalls and
// atomics, so it is async-signal-safe. After fork the child gets a new stream (or none, see
// onForkChild).
//
// A death without the final flush (SIGKILL, the OOM killer, a crash inside the flush) loses
// nothing committed: the buffers live in the stream's arena file (BufferArena.h), which the
// launcher reads when the process is gone. Lost are only records reserved and not committed.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "capture/common/RawFormat.h"

#define SL_CAPTURE_TLS __attribute__((tls_model("initial-exec")))

namespace sl::capture {

// Laid out as ArenaSlotHeader (RawFormat.h): most buffers are slots of the stream's arena file.
struct Buffer {
    Buffer* next;  // link in the writer's queue
    int64_t tid;
    uint64_t seq;
    std::atomic<uint32_t> used;  // committed bytes (readable by the final flush and the launcher)
    uint32_t limit;              // capacity minus the critical reserve
    uint32_t capacity;
    uint32_t slot;  // 1 + index in the arena; 0: heap memory (no arena, or it is full)
    // The records follow the header.
    uint8_t* data() { return reinterpret_cast<uint8_t*>(this + 1); }
};

struct ThreadState {
    ThreadState* nextAll;  // registry of all thread states (never unlinked)
    std::atomic<Buffer*> buffer;
    int64_t tid;
    uint64_t seq;
    uint32_t generation;     // fork generation the state belongs to
    std::atomic<bool> free;  // the thread ended; the state can be reused
    int64_t drops[kDropKindCount];  // per DropKind, not yet reported
    bool hasDrops;
};

namespace detail {
extern constinit thread_local ThreadState* t_state SL_CAPTURE_TLS;
extern constinit thread_local bool t_inTool SL_CAPTURE_TLS;
extern constinit thread_local bool t_inVforkChild SL_CAPTURE_TLS;
// Between a reserve that gave space and its commit: a signal handler that records then (an
// nvtxMarkA or a traced OS call in a SIGALRM handler) would be given the same space, and the
// two records mixed cut the rest of the buffer off ("mai", 39,631 of 50,000 marks). Its record
// is refused and counted as a drop instead. Set before the space is measured, so that what a
// handler added before is never written over. It holds the stack pointer of the record being
// made (0: none): a handler that left with siglongjmp after interrupting a record left the
// mark set, and every later record of its thread was refused. A record made at exactly the
// marked stack address is on the same stack at the same depth, where the marked record's frame
// was: that record is gone (the same call made again from the loop the handler jumped back
// to), and the mark is the new record's. Any other address refuses: a handler runs below the
// signal frame on the same stack, or on another stack (a signal stack, a context switched to),
// where no address is the marked one.
extern constinit thread_local uintptr_t t_recording SL_CAPTURE_TLS;
// The last refusal was for that reason: countDrop() counts it as DropKind::InSignalHandler.
extern constinit thread_local bool t_refusedInHandler SL_CAPTURE_TLS;
inline uintptr_t stackPointer() {
    uintptr_t sp;
#if defined(__x86_64__)
    asm("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
    asm("mov %0, sp" : "=r"(sp));
#else
    sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
#endif
    return sp;
}
// Marks the thread as inside a record made at stack address `sp`; false (nothing marked, the
// refusal noted for countDrop) when it already is: a signal handler interrupted its record.
inline bool beginRecord(uintptr_t sp) {
    if (__builtin_expect(t_recording != 0 && t_recording != sp, 0)) {
        t_refusedInHandler = true;
        return false;
    }
    t_recording = sp;
    std::atomic_signal_fence(std::memory_order_seq_cst);  // before the space is measured
    return true;
}
inline void endRecord() {
    std::atomic_signal_fence(std::memory_order_seq_cst);  // after the space is given or taken
    t_recording = 0;
}
extern std::atomic<uint32_t> g_generation;
// `sp`: the caller's stack address, which the record mark takes again.
uint8_t* reserveSlow(uint32_t bytes, bool critical, uintptr_t sp);
}  // namespace detail

class ProcessWriter {
public:
    // Opens the stream file for this process if SIGHTLINE_SESSION_DIR is set. Safe to call more
    // than once (later calls return the first result). `module` names the stream file.
    static bool start(const char* module);
    static bool active();
    // Before the process installs a seccomp filter, which may refuse or punish any system call
    // the module would make later (opening its stream at exit, growing a buffer, its writer
    // thread's exit): everything recorded so far is written and the stream ended
    // (ExitHow::Sealed), the writer joined, the descriptors closed; from then on the module
    // records nothing and makes no system call in this process or its forked children.
    static void seal();
    static bool sealed();
    // In a forked child (whose stream opens at its first record): when it was forked, the start
    // of its process and main thread. 0 in an image the loader started.
    static int64_t forkedAt();
    // A forked child that has recorded nothing yet (its stream not opened): an exec then
    // leaves no stream of it, and nothing should be recorded only to say what the new image
    // announces anyway.
    static bool recordedNothing();
    // Whether `fd` is one of this module's files, its stream or its buffer arena, and still
    // names it (interposers refuse to close it).
    static bool ownsFd(int fd);
    // The program is about to put another file at `fd` (dup2, dup3): if that number is one of
    // ours, ours moves to another first.
    static void moveAsideFrom(int fd);
    // The program set its address-space limit to `limit` (setrlimit, prlimit; UINT64_MAX: none):
    // the buffers give back what is past their share of it (AddressSpaceLimit.h), so that the
    // program keeps the room it would have without the capture, said in the stream; a limit
    // raised again gives the budget back (not the arena's unmapped slots: the heap serves).
    static void fitAddressSpace(uint64_t limit);
    // The numbers of this module's files still open and naming them (at most 2), ascending;
    // returns how many.
    static int heldNumbers(int* out);
    // This process's pid as the launcher sees it (NSpid; updated after fork), its pid in its own
    // PID namespace (getpid(); differs in containers) and its parent's pid as the launcher sees it.
    static int64_t pid();
    static int64_t namespacePid();
    // pid() is only the namespace's: this process's /proc is its PID namespace's own and the
    // launcher could not be reached to say which pid it sees (PidQuery.h).
    static bool pidsUnresolved();
    // The session directory (env::kSessionDir); "" outside a capture.
    static const char* sessionDir();
    // Where the buffer arenas go (env::kArenaDir, else the session directory); "" outside one.
    static const char* arenaDir();
    // The tid the launcher sees of this process's thread `namespaceTid` (what gettid() gave in
    // it, as a program passes to nvtxNameOsThread); itself in the launcher's namespace.
    static int64_t launcherTidOf(int64_t namespaceTid);
    static int64_t parentPid();
    // The calling thread's id as records carry it (gettid(); the main thread's is pid()).
    static int64_t threadId();

    // Hot path: space for a record of `bytes` (a multiple of 8) in the calling thread's buffer,
    // or nullptr (nothing stored: count it with countDrop).
    static inline uint8_t* reserve(uint32_t bytes) { return reserveIn(bytes, false); }
    static inline uint8_t* reserveCritical(uint32_t bytes) { return reserveIn(bytes, true); }
    // Publishes the record written at the pointer reserve() returned.
    static inline void commit(uint32_t bytes) {
        Buffer* b = detail::t_state->buffer.load(std::memory_order_relaxed);
        b->used.store(b->used.load(std::memory_order_relaxed) + bytes, std::memory_order_release);
        detail::endRecord();
    }
    static void countDrop(DropKind kind);

    // Convenience writers (not for the hottest paths). All return false when dropped (counted).
    // Defines a new stream-local string id for `s` (no deduplication: cache the id).
    static uint32_t defineString(std::string_view s);
    // The largest record a thread's buffer takes (half of it); larger ones are dropped.
    static uint32_t maxRecordBytes();
    static bool emitEvent(EventKind kind, int64_t tid, int64_t start, int64_t end, uint32_t name,
                          const int64_t* columns, int columnCount, int32_t device = -1,
                          uint32_t context = 0, uint32_t stream = 0, uint32_t domain = 0);
    static bool emitMeta(MetaKind kind, const int64_t* ints, int intCount,
                         const std::string_view* strs = nullptr, int strCount = 0);

    // Hands the calling thread's buffer to the writer now (thread exit, before blocking forever).
    static void flushThread();
    // The calling thread is ending: flush and let its state be reused.
    static void threadExit();

    // Final flush; the first call wins, later calls return at once. Writes a ProcessEnd record
    // unless how == Exec. Async-signal-safe.
    static void shutdown(ExitHow how, int exitCode, int signal);
    // After a failed exec: tracing resumes with a new stream file (true: opened now, to be
    // announced), or, for a forked child that had recorded nothing, deferred again (false).
    static bool resumeAfterExec();
    // In the child right after fork(): parent data is discarded; with `trace` the child gets its
    // own stream with its first record (then the announcer set below writes first), or at its
    // exit; a child that execs first never has one. Without `trace` it records nothing.
    // `sharesFiles`: the child shares its parent's descriptor table (clone with CLONE_FILES):
    // the parent's stream and arena descriptors are left open, only forgotten.
    // pthread_atfork's prepare handler: the writer thread drains and exits (restarted lazily).
    static void beforeFork();
    // The same before a call the kernel refuses to a multi-threaded process (unshare or setns
    // of a user namespace, unshare of CLONE_THREAD/CLONE_VM/CLONE_SIGHAND): the program must
    // be as single-threaded as it made itself.
    static void stopWriterThread() { beforeFork(); }
    static void onForkChild(bool trace, bool sharesFiles = false);
    // The process moved its children to another PID namespace (unshare or setns of
    // CLONE_NEWPID): a forked child must read its pids from /proc (onForkChild).
    static void childPidNamespaceChanged();
    static void setAnnouncer(void (*announce)());
    // Opens a forked child's deferred stream now (announcing it), so that a record timed next
    // comes after the announcement.
    static void openDeferred();
    // Fork generation: changes in a forked child. Caches of stream-local ids (strings, domains)
    // compare against it and re-define their ids when it changed.
    static uint32_t generation() { return detail::g_generation.load(std::memory_order_relaxed); }

    // True on threads of the tool itself (the writer), while the tool is inside a libc call on
    // its own behalf, and in a vfork child: interposers must pass such calls straight through.
    static bool inTool() { return detail::t_inTool || detail::t_inVforkChild; }
    // A vfork child runs in its parent's memory, on the calling thread's state, until it execs
    // or exits: nothing of the writer may change there (active() is false, shutdown() and
    // resumeAfterExec() do nothing). Set in the child by the vfork interposer, cleared by the
    // parent when it resumes (the parent's thread is suspended until then).
    static bool inVforkChild() { return detail::t_inVforkChild; }
    static void setVforkChild(bool child) { detail::t_inVforkChild = child; }
    struct ToolScope {
        bool saved;
        ToolScope() : saved(detail::t_inTool) { detail::t_inTool = true; }
        ~ToolScope() { detail::t_inTool = saved; }
    };

    // Statistics for tests and benchmarks.
    static uint64_t blocksWritten();
    static uint64_t bytesWritten();

private:
    // reserve() and reserveCritical(): the fast path takes space below the buffer's limit; the
    // slow path gives a critical record the reserve above it, or a new buffer.
    static inline uint8_t* reserveIn(uint32_t bytes, bool critical) {
        const uintptr_t sp = detail::stackPointer();
        if (!detail::beginRecord(sp)) return nullptr;  // a handler inside a record
        ThreadState* t = detail::t_state;
        if (__builtin_expect(t != nullptr && t->generation == detail::g_generation.load(
                                                                  std::memory_order_relaxed),
                             1)) {
            Buffer* b = t->buffer.load(std::memory_order_relaxed);
            if (__builtin_expect(b != nullptr, 1)) {
                uint32_t used = b->used.load(std::memory_order_relaxed);
                if (__builtin_expect(used + bytes <= b->limit, 1)) return b->data() + used;
            }
        }
        detail::endRecord();  // reserveSlow marks it again when it gives space
        return detail::reserveSlow(bytes, critical, sp);
    }
};

// A stream-local string id that is defined once per stream (re-defined after fork).
struct CachedString {
    std::atomic<uint64_t> value{0};  // generation << 32 | id
    uint32_t get(std::string_view s) {
        uint64_t v = value.load(std::memory_order_relaxed);
        uint32_t gen = ProcessWriter::generation();
        if (__builtin_expect(v != 0 && static_cast<uint32_t>(v >> 32) == gen, 1))
            return static_cast<uint32_t>(v);
        uint32_t id = ProcessWriter::defineString(s);
        if (id) value.store((static_cast<uint64_t>(gen) << 32) | id, std::memory_order_relaxed);
        return id;
    }
};

}  // namespace sl::capture
