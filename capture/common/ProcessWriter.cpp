#include "capture/common/ProcessWriter.h"

#include "capture/common/PidQuery.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "capture/common/AddressSpaceLimit.h"
#include "capture/common/BufferArena.h"
#include "capture/common/HeldFile.h"
#include "capture/common/CaptureGate.h"
#include "capture/common/Clock.h"
#include "capture/common/FileSizeLimit.h"
#include "capture/common/SessionEnv.h"

namespace sl::capture {
namespace detail {
constinit thread_local ThreadState* t_state SL_CAPTURE_TLS = nullptr;
constinit thread_local bool t_inTool SL_CAPTURE_TLS = false;
constinit thread_local bool t_inVforkChild SL_CAPTURE_TLS = false;
constinit thread_local uintptr_t t_recording SL_CAPTURE_TLS = 0;
constinit thread_local bool t_refusedInHandler SL_CAPTURE_TLS = false;
std::atomic<uint32_t> g_generation{1};
}  // namespace detail

namespace {

static_assert(sizeof(Buffer) == sizeof(ArenaSlotHeader));
static_assert(offsetof(Buffer, tid) == offsetof(ArenaSlotHeader, tid));
static_assert(offsetof(Buffer, seq) == offsetof(ArenaSlotHeader, seq));
static_assert(offsetof(Buffer, used) == offsetof(ArenaSlotHeader, used));
static_assert(offsetof(Buffer, capacity) == offsetof(ArenaSlotHeader, capacity));
static_assert(offsetof(Buffer, slot) == offsetof(ArenaSlotHeader, slot));

using detail::g_generation;
using detail::t_state;

constexpr uint32_t kCriticalReserve = 4096;

std::atomic<int> g_startState{0};  // 0 not started, 1 starting, 2 done
std::atomic<bool> g_active{false};
std::atomic<bool> g_shutdown{false};
std::atomic<bool> g_sealed{false};  // seal(): inert for good (inherited by forked children)
int64_t g_forkedAt = 0;  // in a forked child (traced before exec): when it was forked
// The stream file (HeldFile.h: kept at 1000+, checked before each use).
constinit HeldFile g_stream;
int g_streamErrno = 0;  // why the deferred stream could not be made, for good (0: it can be)
int64_t g_pid = 0;
char g_module[24] = {};
char g_sessionDir[1024] = {};
char g_arenaDir[1024] = {};  // where buffer arenas go (a tmpfs when the launcher found one)
// constinit: start() runs from a constructor(101) before dynamic initializers would.
constinit BufferArena g_arena;
int g_arenaErrno = 0;  // why the current stream has no arena (0: it has one)
// A forked child's stream opens with its first record, not at fork: the usual child execs at
// once (a shell running a command) and would pay for a stream and an arena it never uses.
// While one thread opens it, what the others hand over stays queued (streamToBeMade,
// writeQueued): a thread that went on recording then found neither a stream nor one to be made,
// and its blocks were lost without a word (a forked worker whose second thread recorded 3,000
// marks while its main thread, forking, opened the stream: all of them, 1 run in 5 of a
// review's program). They do not wait for the opener, who may need a lock they hold (the
// program's allocator, for the announcement): only a fork and the final flush do, bounded.
enum LazyStream : uint32_t {
    kLazyNone = 0,     // opened, or not a forked child's
    kLazyPending = 1,  // opens with the first record
    kLazyOpening = 2,  // a thread (t_lazyOpener) opens it now
};
std::atomic<uint32_t> g_lazyStream{kLazyNone};
thread_local bool t_lazyOpener SL_CAPTURE_TLS = false;
bool g_lazyAtExec = false;  // an exec by a forked child whose stream was never opened
// The stream file is made with the first block written, not at the start (only when the arenas
// are on their own file system, a tmpfs): most processes of a build (gcc, as, sh) write all
// they recorded at their end, and then their stream goes next to their arena on the tmpfs.
// A disk file system pays for each file it creates (ext4 without a journal scanned its recently
// deleted inodes: 0.3-2.5 ms per file in `make -j2`, the largest part of its capture cost).
// Streams that receive a block while the process runs go to the session directory, so what
// stays on the tmpfs is bounded by what the arenas hold there anyway.
std::atomic<bool> g_streamDeferred{false};
int64_t g_streamStartMono = 0, g_streamStartUtc = 0;  // the deferred stream's header times
char g_stem[128] = {};
void (*g_onLazyOpen)() = nullptr;  // the module's announcement, written first into the stream
uint32_t g_bufferBytes = 256 * 1024;
std::atomic<int64_t> g_budgetBytes{512ll << 20};
int64_t g_budgetWithoutLimit = 512ll << 20;  // SIGHTLINE_BUFFER_MB's, before any RLIMIT_AS cut
// The address-space limit the budget is cut for (AddressSpaceLimit.h), said in each stream
// opened while it holds; 0: none.
std::atomic<uint64_t> g_budgetCutForLimit{0};

std::atomic<Buffer*> g_queue{nullptr};
std::atomic<uint32_t> g_queueLen{0};  // futex word the writer sleeps on
std::atomic<int64_t> g_inflight{0};
std::atomic<ThreadState*> g_registry{nullptr};
// The writer thread's state: none, being created, running (g_writerThread valid), being
// stopped before a fork (beforeFork). Only the thread that moves it out of kWriterRunning joins.
enum : int { kWriterNone = 0, kWriterStarting = 1, kWriterRunning = 2, kWriterStopping = 3 };
std::atomic<int> g_writerRunning{kWriterNone};
pthread_t g_writerThread;
std::atomic<int64_t> g_writerTid{0};  // the latest writer thread's (named again at the end)
std::atomic<int> g_writerStop{0};
std::atomic<uint32_t> g_writerDone{0};
std::atomic<uint32_t> g_nextString{1};
std::atomic<uint64_t> g_blocks{0}, g_bytes{0};
pthread_key_t g_threadKey;
std::atomic<bool> g_keyCreated{false};

long futexWait(std::atomic<uint32_t>* word, uint32_t expected, long timeoutNs) {
    timespec ts{timeoutNs / 1000000000, timeoutNs % 1000000000};
    return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, &ts,
                   nullptr, 0);
}
void futexWake(std::atomic<uint32_t>* word) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr,
            0);
}
void sleepNs(long ns) {
    timespec ts{ns / 1000000000, ns % 1000000000};
    syscall(SYS_nanosleep, &ts, nullptr);
}
int64_t g_nsPid = 0;      // getpid(): the pid in the process's own PID namespace
int64_t g_parentPid = 0;  // the parent as the launcher sees it (0: unknown)
std::atomic<bool> g_childPidNsChanged{false};  // unshare/setns(CLONE_NEWPID) in this process

uint64_t g_launcherProcDev = 0;  // env::kProcDevice: set while the launcher answers PidQuery
bool g_pidsUnresolved = false;    // g_pid is a namespace pid: the launcher could not be asked
bool g_pidsAsked = false;         // g_pid came from the launcher: /proc is the namespace's own

// The first number after each of `keys` ("\nNSpid:") in the /proc status file `path` into
// `values` (-1 where absent). Raw syscalls: also called in a forked child.
void statusFields(const char* path, const char* const* keys, int64_t* values, int count) {
    for (int k = 0; k < count; ++k) values[k] = -1;
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char buf[4096];
    long n = 0, r;
    while (n < static_cast<long>(sizeof buf) - 1 &&
           (r = syscall(SYS_read, fd, buf + n, sizeof buf - 1 - static_cast<size_t>(n))) > 0)
        n += r;
    syscall(SYS_close, fd);
    if (n <= 0) return;
    buf[n] = 0;
    for (int k = 0; k < count; ++k) {
        const char* at = std::strstr(buf, keys[k]);
        if (!at) continue;
        at += std::strlen(keys[k]);
        while (*at == ' ' || *at == '\t') ++at;
        int64_t v = 0;
        bool any = false;
        while (*at >= '0' && *at <= '9') v = v * 10 + (*at++ - '0'), any = true;
        if (any) values[k] = v;
    }
}

// In another PID namespace: this thread's tid and the one the launcher sees (the kernel's
// records of the thread use that one), found once per thread.
// The module's writer thread. It never opens a file: a descriptor it opened takes the lowest
// free number, which the program's own thread may have just freed for itself (a shell's
// `: </dev/null` closes 0 and dup2s its file onto it): the program's dup2 replaced our new
// stream, whose header then went to the program's file (or failed, and the stream with every
// block of that process was lost, one shell in 70 in a test), and our clean-up closed the
// program's descriptor. On the program's own threads a file is made and moved to a high
// number within one of its calls, so its numbering is as without us.
thread_local bool t_isWriter SL_CAPTURE_TLS = false;
thread_local int64_t t_nsTid SL_CAPTURE_TLS = 0;
thread_local int64_t t_launcherTid SL_CAPTURE_TLS = 0;

int64_t rawGettid() {
    const int64_t tid = syscall(SYS_gettid);
    if (tid == g_nsPid) return g_pid;  // the main thread's tid is the pid the launcher sees
    if (g_pid == g_nsPid || g_pidsUnresolved) return tid;  // the launcher's namespace, or no way
    if (t_nsTid == tid) return t_launcherTid;
    // 10-100 us once per thread, paid only in another PID namespace: the first NSpid of
    // /proc/thread-self/status where /proc is an outer namespace's, else the launcher's answer.
    static const char* const kNsPid[1] = {"\nNSpid:"};
    int64_t seen = 0;
    if (g_pidsAsked)
        seen = capture::askLauncherForThread(g_sessionDir, tid);
    else
        statusFields("/proc/thread-self/status", kNsPid, &seen, 1);
    t_nsTid = tid;
    t_launcherTid = seen > 0 ? seen : tid;
    return t_launcherTid;
}

// Pids as the launcher sees them. In a container or under `unshare --pid`, getpid() would be 1
// in each of them. Raw syscalls: also called in a forked child.
void readPids() {
    g_pidsUnresolved = false;
    g_pidsAsked = false;
    t_nsTid = 0;  // the forking thread's, in a forked child
    g_nsPid = syscall(SYS_getpid);
    g_pid = g_nsPid;
    g_parentPid = syscall(SYS_getppid);
    // /proc/self names this process's pid in the namespace of the mounted /proc. The same pid
    // as getpid(): the process is in that namespace, and getppid() is right too. 9 us cold,
    // where /proc/self/status takes 10 us more of each process's start.
    char self[32];
    const long len = syscall(SYS_readlinkat, AT_FDCWD, "/proc/self", self, sizeof self - 1);
    if (len > 0) {
        int64_t seen = 0;
        long i = 0;
        while (i < len && self[i] >= '0' && self[i] <= '9') seen = seen * 10 + (self[i++] - '0');
        if (i == len && seen == g_nsPid) {
            // That namespace is the launcher's when its /proc is the launcher's (2 us: the link
            // is looked up already; /proc/self/ns/pid would cost 10). Otherwise it is this
            // process's own, under unshare --mount-proc or in a container, and only the launcher
            // can say which pids it sees (PidQuery.h).
            if (g_launcherProcDev == 0) return;
            struct stat st;
            if (fstatat(AT_FDCWD, "/proc/self", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                static_cast<uint64_t>(st.st_dev) == g_launcherProcDev)
                return;
            PidAnswer a;
            g_pidsUnresolved = !askLauncherForPids(g_sessionDir, a);
            g_pidsAsked = !g_pidsUnresolved;
            if (!g_pidsUnresolved) {
                g_pid = a.pid;
                if (a.parentPid > 0) g_parentPid = a.parentPid;
            }
            return;  // NSpid of this /proc names no pid the launcher sees
        }
    }
    // /proc is that of an outer namespace (unshare --pid without --mount-proc): /proc/self/status.
    // NSpid lists the pid in every PID namespace the process is in, outermost (that of /proc's
    // mount) first; PPid is shown in /proc's namespace too.
    static const char* const kKeys[2] = {"\nNSpid:", "\nPPid:"};
    int64_t v[2];
    statusFields("/proc/self/status", kKeys, v, 2);
    if (v[0] > 0) g_pid = v[0];
    if (v[1] >= 0) g_parentPid = v[1];
}

char g_streamPath[1200] = {};

bool writeFully(const iovec* iov, int count) {
    // The number may be the program's now (a dup2 onto it, close_range, Python's subprocess
    // closing every descriptor before exec): then the file is opened again, at its end.
    int fd = g_stream.use();
    if (fd < 0) return false;
    iovec local[4];
    uint64_t total = 0;
    for (int i = 0; i < count; ++i) local[i] = iov[i], total += iov[i].iov_len;
    // A block that would cross the file-size limit is not written (SIGXFSZ would end the
    // program); it is counted as lost with EFBIG.
    if (const uint64_t limit = fileSizeLimit(); limit != UINT64_MAX) {
        const long end = syscall(SYS_lseek, fd, 0, SEEK_END);
        if (end < 0 || static_cast<uint64_t>(end) + total > limit) {
            errno = EFBIG;
            return false;
        }
    }
    int first = 0;
    long written = 0;
    bool reopened = false;
    while (first < count) {
        long n = syscall(SYS_writev, fd, local + first, count - first);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EBADF && !reopened && written == 0) {  // closed since use() checked it
                reopened = true;
                fd = g_stream.use();
                if (fd >= 0) continue;
                errno = EBADF;
            }
            // A block cut short would end the readable stream here: take it back, so blocks
            // written once there is room again are still read.
            if (written > 0) {
                int err = errno;
                long end = syscall(SYS_lseek, fd, 0, SEEK_CUR);
                if (end >= written) {
                    syscall(SYS_ftruncate, fd, end - written);
                    syscall(SYS_lseek, fd, end - written, SEEK_SET);
                }
                errno = err;
            }
            return false;
        }
        written += n;
        g_bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
        while (first < count && static_cast<size_t>(n) >= local[first].iov_len) {
            n -= static_cast<long>(local[first].iov_len);
            ++first;
        }
        if (first < count) {
            local[first].iov_base = static_cast<char*>(local[first].iov_base) + n;
            local[first].iov_len -= static_cast<size_t>(n);
        }
    }
    return true;
}

bool createStreamFile(const char* dir, const char* stem, int64_t startMono, int64_t startUtc);

// No signal is delivered to this thread while one lives (sigfillset leaves out glibc's own
// cancellation and setxid signals). Making a stream holds them off: a handler's final flush
// run between the file's creation and its header (or its removal after a failed header) would
// find a stream it cannot write, or write blocks into a file without a header. Raw system
// calls: it runs in signal handlers too, and nests.
struct SignalsHeld {
    sigset_t old;
    SignalsHeld() {
        sigset_t all;
        sigfillset(&all);
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, sizeof(uint64_t));
    }
    ~SignalsHeld() { syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, nullptr, sizeof(uint64_t)); }
    SignalsHeld(const SignalsHeld&) = delete;
    SignalsHeld& operator=(const SignalsHeld&) = delete;
};

// A program thread is making the deferred stream: the others (and the writer) wait for it, so
// that no block finds the stream neither made nor to be made. A thread making it holds its
// signals until the flag is down again: a handler of its own that recorded would wait for it.
std::atomic<bool> g_streamCreating{false};

void makeDeferredStream();
void waitForStreamMade();

// The deferred stream, made by the first block: in the arena directory when the process is
// ending (the final flush), else in the session directory. Returns once it is made, or failed,
// by this thread or another; errno says why it failed.
void createDeferredStream() {
    if (t_isWriter) return;  // a program thread makes it (handOver, shutdown)
    SignalsHeld held;  // before the flag goes up, until it is down
    bool idle = false;
    if (g_streamCreating.compare_exchange_strong(idle, true, std::memory_order_acq_rel)) {
        if (g_streamDeferred.exchange(false)) makeDeferredStream();
        g_streamCreating.store(false, std::memory_order_release);
        return;
    }
    waitForStreamMade();  // another thread makes it
}

// Whether the stream is still to be made, or being made: a block must wait for it.
// While `busy` holds, at most `maxNs` (a clock, not a count of sleeps: a 10 us sleep took 82
// us on a loaded VM, and 200,000 of them 20 s).
template <typename Busy>
void waitWhile(Busy busy, int64_t maxNs) {
    const int64_t until = nowNs() + maxNs;
    while (busy() && nowNs() < until) sleepNs(10000);
}

// Until no thread is making the stream (bounded: the one that does takes no lock and no signal).
void waitForStreamMade() {
    waitWhile([] { return g_streamCreating.load(std::memory_order_acquire); }, 1'000'000'000);
}

bool streamToBeMade() {
    return g_streamCreating.load(std::memory_order_acquire) || g_streamDeferred.load() ||
           g_lazyStream.load(std::memory_order_acquire) == kLazyOpening;
}

bool lazyOpeningElsewhere() {
    return !t_lazyOpener && g_lazyStream.load(std::memory_order_acquire) == kLazyOpening;
}

// Until no other thread is opening a forked child's stream, at most 200 ms: for a fork (the
// child would inherit the stream half made) and the final flush (the queue is written then).
void waitForLazyOpen() {
    waitWhile(lazyOpeningElsewhere, 200'000'000);
}

void makeDeferredStream() {
    const char* dir = g_shutdown.load() ? g_arenaDir : g_sessionDir;
    bool created = createStreamFile(dir, g_stem, g_streamStartMono, g_streamStartUtc);
    if (!created && (errno == EMFILE || errno == ENFILE)) {
        // The program is at its descriptor limit: the arena gives its descriptor back (its
        // mapping stays; it opens again when it next grows a slot, or the heap is used).
        g_arena.releaseDescriptor();
        created = createStreamFile(dir, g_stem, g_streamStartMono, g_streamStartUtc);
    }
    if (created) return;
    const int err = errno;
    // Out of descriptors or room: tried again with the next block, they may be free by then.
    // Other causes (no rights, the directory gone) stay: its blocks are counted as not written.
    if (err == EMFILE || err == ENFILE || err == ENOSPC || err == EDQUOT || err == EINTR ||
        err == ENOMEM || err == EAGAIN)
        g_streamDeferred.store(true);
    else
        g_streamErrno = err ? err : EIO;
    errno = err;
}

void writeBlock(int64_t tid, uint64_t seq, const void* data, uint32_t bytes) {
    if (bytes == 0) return;
    if (!g_stream.made() && streamToBeMade()) {
        createDeferredStream();
        // No stream (no room, no rights, no descriptor): the arena says so, and the launcher
        // makes the stream from what its slots still hold.
        if (!g_stream.made()) g_arena.noteWriteFailure(errno ? errno : EIO, bytes);
    } else if (!g_stream.made() && g_streamErrno) {
        g_arena.noteWriteFailure(g_streamErrno, bytes);  // each block its stream never took
    }
    if (!g_stream.made()) {
        // Never made: its arena slot still holds the block, for the launcher.
        g_arena.keepForLauncher();
        return;
    }
    BlockHeader h{kBlockMagic, bytes, tid, seq};
    iovec iov[2] = {{&h, sizeof h}, {const_cast<void*>(data), bytes}};
    if (writeFully(iov, 2))
        g_blocks.fetch_add(1, std::memory_order_relaxed);
    else
        g_arena.noteWriteFailure(errno, bytes);
}

// Creates <dir>/<stem>.slraw (O_EXCL) with its header and makes it the stream (g_stream).
bool createStreamFile(const char* dir, const char* stem, int64_t startMono, int64_t startUtc) {
    char path[1200];
    std::snprintf(path, sizeof path, "%s/%s.slraw", dir, stem);
    // No signal between the file's creation and its header (a pool worker ended by SIGTERM as
    // its first block went out lost every record). A SIGKILL here leaves an empty file, which
    // the launcher's salvage makes again from the arena.
    SignalsHeld held;
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    // What the new descriptor names: another thread of the program may dup2 its own file onto
    // that number meanwhile, which must then be neither written nor closed by us.
    struct stat made {};
    syscall(SYS_fstat, fd, &made);
    const auto stillMade = [&] {
        struct stat now {};
        return syscall(SYS_fstat, fd, &now) == 0 && now.st_dev == made.st_dev &&
               now.st_ino == made.st_ino;
    };
    StreamHeader h{};
    std::memcpy(h.magic, kStreamMagic, 8);
    h.version = kStreamVersion;
    h.headerBytes = sizeof h;
    h.pid = g_pid;
    h.startMonotonicNs = startMono;
    h.startUtcNs = startUtc;
    std::snprintf(h.module, sizeof h.module, "%s", g_module);
    if (fileSizeLimit() < sizeof h) {  // not even the header fits (SIGXFSZ)
        if (stillMade()) syscall(SYS_close, fd);
        syscall(SYS_unlinkat, AT_FDCWD, path, 0);
        errno = EFBIG;
        return false;
    }
    // The header goes in through the descriptor just opened, before it is moved to a high
    // number a program may be taking over: a stream without its header is unreadable.
    long n = -1;
    const bool ours = stillMade();
    if (ours) do {
            n = syscall(SYS_write, fd, &h, sizeof h);
        } while (n < 0 && errno == EINTR);
    if (n != static_cast<long>(sizeof h)) {
        // No room (a full disk): no stream rather than a bad one. Taken by the program before
        // its header (another thread's dup2): not ours; made again later (EAGAIN).
        const int err = !ours ? EAGAIN : n < 0 ? errno : ENOSPC;
        if (stillMade()) syscall(SYS_close, fd);
        syscall(SYS_unlinkat, AT_FDCWD, path, 0);
        errno = err;
        return false;
    }
    g_bytes.fetch_add(sizeof h, std::memory_order_relaxed);
    std::memcpy(g_streamPath, path, sizeof path);
    g_stream.adopt(fd, g_streamPath, O_WRONLY | O_APPEND);
    return true;
}

bool fileExists(const char* dir, const char* stem, const char* ext) {
    char path[1200];
    std::snprintf(path, sizeof path, "%s/%s%s", dir, stem, ext);
    return syscall(SYS_faccessat, AT_FDCWD, path, F_OK) == 0;
}

// With the arenas on their own file system: the stem is taken by creating the arena (cheap on
// a tmpfs); a stem whose stream exists in either directory (an earlier image of this pid, before
// an exec) is skipped. The stream file waits for the first block. False: not possible here
// (the caller then opens the stream at once, as without a separate arena directory).
bool openArenaFirst() {
    if (std::strcmp(g_arenaDir, g_sessionDir) == 0) return false;
    char stem[128] = {};
    for (int n = 0; n < 1000; ++n) {
        std::snprintf(stem, sizeof stem, "%s-%lld-%d", g_module, static_cast<long long>(g_pid), n);
        if (fileExists(g_sessionDir, stem, ".slraw") || fileExists(g_arenaDir, stem, ".slraw"))
            continue;
        errno = 0;
        const int64_t mono = nowNs(), utc = utcNowNs();
        if (g_arena.open(g_arenaDir, stem, g_bufferBytes, g_budgetBytes.load(), g_pid)) {
            std::memcpy(g_stem, stem, sizeof stem);
            g_streamStartMono = mono;
            g_streamStartUtc = utc;
            g_arenaErrno = 0;
            g_streamDeferred.store(true);
            return true;
        }
        if (errno != EEXIST) return false;
    }
    return false;
}

bool openStream() {
    g_streamDeferred.store(false);
    g_streamErrno = 0;
    if (openArenaFirst()) return true;
    char stem[128] = {};
    bool created = false;
    for (int n = 0; n < 1000 && !created; ++n) {
        std::snprintf(stem, sizeof stem, "%s-%lld-%d", g_module, static_cast<long long>(g_pid), n);
        created = createStreamFile(g_sessionDir, stem, nowNs(), utcNowNs());
        if (!created && (g_stream.made() || errno != EEXIST)) return false;
    }
    if (!created) return false;
    g_arenaErrno = 0;
    if (!g_arena.open(g_arenaDir, stem, g_bufferBytes, g_budgetBytes.load(), g_pid))
        g_arenaErrno = errno ? errno : EIO;
    return true;
}

// Under a small file-size limit (`ulimit -f 100` in a build script) a full buffer is a block
// larger than the whole stream may grow: the first block, with the process's announcement,
// was refused (EFBIG) and the process showed as never traced, its children under its parent's
// name. Buffers of an eighth of the limit (16 KiB at least) let the stream fill up to it; what
// comes after is counted as lost (capture.write_failed names the limit).
void fitBuffersToFileSize(uint64_t limit) {
    if (limit == UINT64_MAX) return;
    uint64_t want = limit / 8 / 4096 * 4096;
    if (want < 16 * 1024) want = 16 * 1024;
    if (want < g_bufferBytes) g_bufferBytes = static_cast<uint32_t>(want);
}

// Under an address-space limit the buffers (arena mapping and heap buffers alike) take at most
// their share of it (bufferShareOf), never less than two buffers. True when that cut the budget.
// A limit raised again (or none: UINT64_MAX) gives the budget back, up to what it was before
// any limit.
bool fitBudgetToAddressSpace(uint64_t limit) {
    const int64_t unlimited = g_budgetWithoutLimit;
    const uint64_t share = bufferShareOf(limit);
    const int64_t floor = 2 * static_cast<int64_t>(g_bufferBytes);
    int64_t want = share == UINT64_MAX || static_cast<int64_t>(share) >= unlimited
                       ? unlimited
                       : static_cast<int64_t>(share);
    if (want < floor) want = floor;
    const int64_t before = g_budgetBytes.exchange(want);
    g_budgetCutForLimit.store(want < unlimited ? limit : 0);
    return want < before;
}

// Said in the stream when an address-space limit cut the budget: under a heavy load more
// records may be dropped (each counted).
void reportBudgetCut() {
    const uint64_t limit = g_budgetCutForLimit.load();
    if (!limit) return;
    char reason[400];
    std::snprintf(reason, sizeof reason,
                  "under an address-space limit (ulimit -v) of %llu MiB the capture's buffers "
                  "took at most %lld MiB, so that the program kept its room: records that did "
                  "not fit were dropped and counted",
                  static_cast<unsigned long long>(limit >> 20),
                  static_cast<long long>(g_budgetBytes.load() >> 20));
    int64_t count = 1;
    std::string_view strs[2] = {"capture.buffers_limited", reason};
    ProcessWriter::emitMeta(MetaKind::Diagnostic, &count, 1, strs, 2);
}

// Said in the stream when its buffers could not be put in an arena file: the records are then
// safe only once written, and a SIGKILL loses the rest.
void reportMissingArena() {
    if (!g_arenaErrno) return;
    char reason[1400];
    std::snprintf(reason, sizeof reason,
                  "cannot create the buffer file %s (%s): events not yet written are lost if "
                  "the process is killed",
                  g_arena.path(), std::strerror(g_arenaErrno));
    int64_t count = 1;
    std::string_view strs[2] = {"capture.no_buffer_file", reason};
    ProcessWriter::emitMeta(MetaKind::Diagnostic, &count, 1, strs, 2);
}

// Written buffers are kept for reuse (their pages are already faulted in: a fresh 256 KiB
// buffer costs 64 page faults, about 10 ns per record). Taken under a spin flag only when a
// thread switches buffers, never per record.
constexpr int kPoolMax = 64;
// What a child forked inside a record commits that record to (onForkChild): never written, of
// no generation (0), so the child's next record registers its thread afresh.
ThreadState g_forkedMidRecord{};
Buffer g_forkedMidRecordBuffer{};
std::atomic_flag g_poolLock = ATOMIC_FLAG_INIT;
Buffer* g_pool = nullptr;
int g_poolSize = 0;

// The pool's spin lock, held for a few loads and stores, with the thread's signals held: a
// handler that left with siglongjmp while the lock was held left it held for good, and the
// next buffer switch spun forever (a review's program, a 20 us SIGALRM whose handler jumps
// back into a loop of marks). Nothing in it blocks or takes a lock of the program. The writer
// thread has every signal blocked already.
class PoolLock {
public:
    PoolLock() {
        if (!t_isWriter) m_signals.emplace();
        while (g_poolLock.test_and_set(std::memory_order_acquire)) sleepNs(1000);
    }
    ~PoolLock() { g_poolLock.clear(std::memory_order_release); }  // before the signals
    PoolLock(const PoolLock&) = delete;
    PoolLock& operator=(const PoolLock&) = delete;

private:
    std::optional<SignalsHeld> m_signals;
};

void freeBuffer(Buffer* b) {
    // Every buffer counts g_bufferBytes against the budget, an arena slot backed in part too.
    g_inflight.fetch_sub(g_bufferBytes, std::memory_order_relaxed);
    {
        PoolLock lock;
        if (g_poolSize < kPoolMax) {
            b->next = g_pool;
            g_pool = b;
            ++g_poolSize;
            b = nullptr;
        } else if (b->slot) {
            g_arena.release(b->slot);  // its (tid, seq) is in the stream: the slot may be a hole
            b = nullptr;
        }
    }
    std::free(b);  // outside: the program's allocator may take its own lock
}

// An arena slot is backed a part at a time: this much first, four times as much at each growth
// (16 KiB, 64 KiB, the whole slot). Most processes of a build (sh, gcc, as) record a few hundred
// bytes in their life; backing all 260 KiB of their first slot made the kernel allocate, zero
// and free 65 pages per process, about 90 us of its 0.3-0.4 ms extra on tmpfs.
constexpr uint32_t kFirstBackedBytes = 16 * 1024;

// Sets a slot buffer's capacity from how many bytes of its slot are backed (header included).
void setBacked(Buffer* b, uint32_t backedBytes) {
    const uint32_t room = backedBytes - static_cast<uint32_t>(sizeof(Buffer));
    b->capacity = room < g_bufferBytes ? room : g_bufferBytes;
    b->limit = b->capacity > kCriticalReserve ? b->capacity - kCriticalReserve : 0;
}

// More room in the calling thread's arena slot `b`, enough for `used + bytes` plus the critical
// reserve: false when it is a heap buffer, backed whole already, or the file system is full (the
// caller then takes a new buffer, as for a full one).
bool growSlot(Buffer* b, uint32_t need) {
    const uint32_t slotBytes = g_arena.slotBytes();
    const uint32_t backed = b->capacity + static_cast<uint32_t>(sizeof(Buffer));
    if (!b->slot || b->capacity >= g_bufferBytes || backed >= slotBytes) return false;
    const uint64_t page = 4096;
    uint64_t want =
        (sizeof(Buffer) + static_cast<uint64_t>(need) + kCriticalReserve + page - 1) / page * page;
    if (want < 4ull * backed) want = 4ull * backed;
    if (want > slotBytes) want = slotBytes;
    if (!g_arena.grow(b->slot - 1, backed, static_cast<uint32_t>(want))) return false;
    setBacked(b, static_cast<uint32_t>(want));
    return true;
}

// A pooled buffer, else a fresh arena slot, else nullptr (the caller then uses the heap).
Buffer* takePooledOrSlot() {
    Buffer* b = nullptr;
    uint32_t index = 0;
    bool reserved = false;
    {
        PoolLock lock;
        b = g_pool;
        if (b) {
            g_pool = b->next;
            --g_poolSize;
        } else if (!lazyOpeningElsewhere()) {
            // (While another thread opens a forked child's arena, its slots are not ready to be
            // handed out: its bookkeeping was set up after the first slots went, and a slot in
            // use came back as a new buffer, the full one handed over as an empty one: 3,000
            // marks lost. The heap serves until then.)
            reserved = g_arena.reserve(&index);
        }
    }
    if (reserved) {
        // Outside the lock: the kernel zeroes the pages.
        const uint32_t first =
            kFirstBackedBytes < g_arena.slotBytes() ? kFirstBackedBytes : g_arena.slotBytes();
        if (void* p = g_arena.back(index, first)) {
            b = static_cast<Buffer*>(p);
            b->slot = index + 1;
            setBacked(b, first);
        } else {
            PoolLock lock;
            g_arena.unreserve(index);
        }
    }
    return b;
}

// The pool's buffers belong to an arena being given up (after a failed exec).
void dropPool() {
    PoolLock lock;
    while (Buffer* b = g_pool) {
        g_pool = b->next;
        if (!b->slot) std::free(b);
    }
    g_poolSize = 0;
}

// Writes the handed-over buffers in order. `recycle` is false on the final flush, which may run
// in a signal handler that interrupted a thread holding the pool flag: buffers are then left
// alone (the process is ending).
uint32_t writeQueued(bool recycle = true) {
    if (t_isWriter && streamToBeMade()) return 0;
    // Another thread opens a forked child's stream: the blocks stay queued until it is open
    // (the final flush, which waited for the opening, writes them in any case).
    if (recycle && lazyOpeningElsewhere()) return 0;
    Buffer* batch = g_queue.exchange(nullptr, std::memory_order_acquire);
    Buffer* fifo = nullptr;
    uint32_t n = 0;
    // The stack is LIFO: reverse it. Bounded (below) by the most buffers the budget lets be in
    // flight at once.
    const uint64_t most = static_cast<uint64_t>(g_budgetBytes.load(std::memory_order_relaxed)) /
                              (g_bufferBytes ? g_bufferBytes : 1) + kPoolMax + 64;
    while (batch && n < most) {
        Buffer* next = batch->next;
        batch->next = fifo;
        fifo = batch;
        batch = next;
        ++n;
    }
    if (n) g_queueLen.fetch_sub(n, std::memory_order_relaxed);
    // At most the n taken: a buffer linked twice (once, when a forked child's arena handed a slot
    // in use out again while another thread opened it, since mended) must never make the walk
    // endless (a review's run wrote 57 GB of one block before the disk was full).
    for (uint32_t i = 0; fifo && i < n; ++i) {
        Buffer* next = fifo->next;
        writeBlock(fifo->tid, fifo->seq, fifo->data(), fifo->used.load(std::memory_order_acquire));
        if (recycle) freeBuffer(fifo);
        fifo = next;
    }
    return n;
}

void* writerMain(void*) {
    detail::t_inTool = true;
    t_isWriter = true;
    syscall(SYS_prctl, PR_SET_NAME, "sightline-io", 0, 0, 0);  // in top and gdb: ours
    g_writerTid.store(rawGettid(), std::memory_order_relaxed);
    {
        // Source 2: the tool's own thread, left out of the program's rows by the merge.
        int64_t ints[3] = {rawGettid(), nowNs(), 2};
        std::string_view name = "sightline-io";
        ProcessWriter::emitMeta(MetaKind::ThreadName, ints, 3, &name, 1);
    }
    while (true) {
        // A stream still to be made (its creation failed for a while: no descriptor or room)
        // waits for a program thread (its next hand-over, or the final flush): the blocks wait
        // with it rather than be lost.
        const uint32_t queued = g_queueLen.load(std::memory_order_acquire);
        if (queued == 0 || streamToBeMade()) {
            if (g_writerStop.load(std::memory_order_acquire)) break;
            futexWait(&g_queueLen, queued, 20 * 1000 * 1000);
            continue;
        }
        if (g_queue.load(std::memory_order_acquire) == nullptr) {
            // Counted and not yet linked (a hand-over between its push and its count), or a
            // count that went astray: never spin on it, and never keep a fork waiting.
            if (g_writerStop.load(std::memory_order_acquire)) break;
            sleepNs(100000);
            continue;
        }
        writeQueued();
    }
    writeQueued();
    g_writerDone.store(1, std::memory_order_release);
    futexWake(&g_writerDone);
    return nullptr;
}

void ensureWriter() {
    int expected = kWriterNone;
    if (!g_writerRunning.compare_exchange_strong(expected, kWriterStarting)) return;
    // A thread ending while the process ends (Python's daemon threads do) must not start a
    // writer that shutdown() will not wait for: it would be an unnamed thread of the program.
    // (Both are sequentially consistent: shutdown() sets g_shutdown before it looks here.)
    if (g_shutdown.load()) {
        g_writerRunning.store(kWriterNone);
        return;
    }
    ProcessWriter::ToolScope scope;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  // the writer never runs the program's handlers
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    // Joinable: beforeFork() waits for it to be gone from the process.
    const bool created = pthread_create(&g_writerThread, &attr, writerMain, nullptr) == 0;
    g_writerRunning.store(created ? kWriterRunning : kWriterNone, std::memory_order_release);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// `startWriter`: false from a thread that is ending. Starting a thread there would add one to
// the process just as the program joins the ending thread and may fork (Python 3.12+ counts the
// threads at fork and warns); the next hand-over of a living thread, or shutdown, writes it.
// Before a buffer with records is queued: the first block goes to the stream through the
// writer, so the stream is made here, on the program's thread (t_isWriter), within a call whose
// errno is the program's (an NVTX pop between a failed read and its perror) and stays so.
void prepareHandOver(const Buffer* b) {
    if (b->used.load(std::memory_order_relaxed) != 0 && streamToBeMade()) {
        const int saved = errno;
        createDeferredStream();
        errno = saved;
    }
}

// Queues `b` for the writer (an empty one goes back to the pool); true when queued. Takes no
// lock but the pool's and never blocks.
bool enqueue(Buffer* b) {
    if (b->used.load(std::memory_order_relaxed) == 0) {
        freeBuffer(b);
        return false;
    }
    Buffer* head = g_queue.load(std::memory_order_relaxed);
    do {
        b->next = head;
    } while (!g_queue.compare_exchange_weak(head, b, std::memory_order_release,
                                            std::memory_order_relaxed));
    if (g_queueLen.fetch_add(1, std::memory_order_release) == 0) futexWake(&g_queueLen);
    return true;
}

void handOver(Buffer* b, bool startWriter = true) {
    prepareHandOver(b);
    if (enqueue(b) && startWriter) ensureWriter();
}

// Buffers handed over by ending threads wait for a writer, which only a living thread's
// hand-over starts (threadExit never does). A program whose threads all end before they fill
// a buffer (a thread per request, joined before the next) would hold the whole budget in that
// queue after about a thousand threads and drop everything after. With no writer running, the
// thread that needs a buffer writes the queue itself, holding the writer's state so that no
// writer starts meanwhile. False when nothing was written (nothing queued, the stream being
// opened by another thread) or a writer is running (a budget full then is real pressure).
bool writeQueueHere() {
    if (g_queueLen.load(std::memory_order_acquire) == 0) return false;
    int expected = kWriterNone;
    if (!g_writerRunning.compare_exchange_strong(expected, kWriterStarting)) return false;
    const uint32_t written = writeQueued();
    g_writerRunning.store(kWriterNone, std::memory_order_release);
    return written > 0;
}

bool takeBudget(int64_t cap) {
    if (g_inflight.fetch_add(cap, std::memory_order_relaxed) + cap <=
        g_budgetBytes.load(std::memory_order_relaxed))
        return true;
    g_inflight.fetch_sub(cap, std::memory_order_relaxed);
    return false;
}

// The budget for one more buffer, writing the queue first where that frees it. While another
// thread writes it (threads ending together, each finding the budget spent), this one waits for
// that (bounded: 20 ms) instead of dropping its records.
bool takeBudgetOrWriteQueue(int64_t cap) {
    for (int waited = 0; !takeBudget(cap); ++waited) {
        if (writeQueueHere()) continue;
        if (waited >= 200 || g_writerRunning.load(std::memory_order_acquire) != kWriterStarting)
            return false;
        sleepNs(100'000);
    }
    return true;
}

Buffer* allocBuffer(ThreadState* t) {
    int64_t cap = g_bufferBytes;
    if (!takeBudgetOrWriteQueue(cap)) return nullptr;
    Buffer* b = takePooledOrSlot();  // a slot keeps the capacity its backing gives it
    if (!b) {
        b = static_cast<Buffer*>(std::malloc(sizeof(Buffer) + static_cast<size_t>(cap)));
        if (b) {
            b->slot = 0;
            b->capacity = static_cast<uint32_t>(cap);
            b->limit = static_cast<uint32_t>(cap) - kCriticalReserve;
        }
    }
    if (!b) {
        g_inflight.fetch_sub(cap, std::memory_order_relaxed);
        return nullptr;
    }
    // `used` goes to 0 before the slot takes its new (tid, seq): a reader of the arena after a
    // crash here sees an empty slot, never the old records under the new identity. Its seq is
    // given when it becomes the thread's (reserveSlow): a handler that jumped out in between
    // left a gap in the thread's blocks, reported as blocks lost.
    b->used.store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    b->next = nullptr;
    b->tid = t->tid;
    return b;
}

// Writes the pending drop counters of `t` as Meta Drops records at `out` (room for 8 records).
uint32_t encodeDrops(ThreadState* t, uint8_t* out) {
    uint32_t bytes = 0;
    for (int k = 0; k < kDropKindCount; ++k) {
        if (!t->drops[k]) continue;
        const int64_t ints[3] = {t->tid, k, t->drops[k]};
        t->drops[k] = 0;
        bytes += encodeMeta(out + bytes, MetaKind::Drops, ints, 3);
    }
    t->hasDrops = false;
    return bytes;
}

void threadKeyDestructor(void* p) {
    if (p && t_state == p) ProcessWriter::threadExit();
}

ThreadState* registerThread() {
    uint32_t gen = g_generation.load(std::memory_order_relaxed);
    int64_t tid = rawGettid();
    ThreadState* t = nullptr;
    for (ThreadState* s = g_registry.load(std::memory_order_acquire); s; s = s->nextAll) {
        bool isFree = true;
        if (s->generation == gen && s->free.load(std::memory_order_relaxed) &&
            s->free.compare_exchange_strong(isFree, false)) {
            t = s;
            break;
        }
    }
    if (!t) {
        t = static_cast<ThreadState*>(std::calloc(1, sizeof(ThreadState)));
        if (!t) return nullptr;
        t->generation = gen;
        ThreadState* head = g_registry.load(std::memory_order_relaxed);
        do {
            t->nextAll = head;
        } while (!g_registry.compare_exchange_weak(head, t, std::memory_order_release,
                                                   std::memory_order_relaxed));
    }
    t->buffer.store(nullptr, std::memory_order_relaxed);
    t->tid = tid;
    t->seq = 0;
    t->hasDrops = false;
    for (auto& d : t->drops) d = 0;
    t_state = t;
    if (g_keyCreated.load(std::memory_order_acquire)) pthread_setspecific(g_threadKey, t);
    return t;
}

ThreadState* currentState() {
    ThreadState* t = t_state;
    if (t && t->generation == g_generation.load(std::memory_order_relaxed)) return t;
    // A child forked inside a record (onForkChild) commits it through this state: a thread
    // registered meanwhile (a drop counted in the handler) had none, and the commit crashed.
    if (t == &g_forkedMidRecord && detail::t_recording != 0) return nullptr;
    return registerThread();
}

// Opens the deferred stream of a forked child (once) and writes its announcement first.
void openLazily() {
    uint32_t expected = kLazyPending;
    if (!g_lazyStream.compare_exchange_strong(expected, kLazyOpening, std::memory_order_acq_rel)) {
        return;  // another thread opens it (or none is to be opened): records go on
    }
    t_lazyOpener = true;
    {
        ProcessWriter::ToolScope scope;
        if (openStream()) {
            reportMissingArena();
            reportBudgetCut();
            if (g_onLazyOpen) g_onLazyOpen();  // records on this thread: no wait (t_lazyOpener)
        } else {
            g_active.store(false);
        }
    }
    t_lazyOpener = false;
    g_lazyStream.store(kLazyNone, std::memory_order_release);
}

}  // namespace

namespace detail {
uint8_t* reserveSlow(uint32_t bytes, bool critical, uintptr_t sp) {
    if (!g_active.load(std::memory_order_acquire) || g_shutdown.load(std::memory_order_relaxed) ||
        t_inVforkChild)
        return nullptr;
    if (__builtin_expect(g_lazyStream.load(std::memory_order_relaxed) != kLazyNone, 0))
        openLazily();
    if (bytes > g_bufferBytes / 2) return nullptr;
    ThreadState* t = currentState();
    if (!t) return nullptr;
    // From here to the end t_recording is set (ProcessWriter.h): a signal handler's record
    // meanwhile is refused and counted, never given the space being measured, nor let into the
    // pool's lock this thread may hold (it spun there forever), nor given the full buffer
    // being handed over (it handed it over a second time: its records twice, and the queue's
    // list linked in a loop). What happens here records nothing through reserve. Signals are
    // not held here: a garbage collector that stops threads with a signal and waits for their
    // handlers would wait forever for one blocked on a lock it holds (our calloc in its
    // allocator), and a fault the program handles (a write barrier) would kill it.
    t_recording = sp;  // the caller's, as beginRecord() marked it: reserve() cleared it
    std::atomic_signal_fence(std::memory_order_seq_cst);
    Buffer* b = t->buffer.load(std::memory_order_relaxed);
    if (b) {
        uint32_t used = b->used.load(std::memory_order_relaxed);
        if (used + bytes <= (critical ? b->capacity : b->limit)) return b->data() + used;
        if (growSlot(b, used + bytes) && used + bytes <= (critical ? b->capacity : b->limit))
            return b->data() + used;
    }
    Buffer* nb = allocBuffer(t);
    if (!nb) {  // keep the old buffer: its reserve still serves critical records
        endRecord();
        return nullptr;
    }
    if (b) prepareHandOver(b);
    bool queued = false;
    {
        // The new buffer made the thread's and the full one queued as one step that no handler
        // can cut: one that left with siglongjmp between the two lost the full buffer (8,052
        // marks). Neither step blocks or takes a lock the program may hold.
        SignalsHeld held;
        nb->seq = t->seq++;
        if (t->hasDrops) nb->used.store(encodeDrops(t, nb->data()), std::memory_order_relaxed);
        t->buffer.store(nb, std::memory_order_release);
        if (b) queued = enqueue(b);
    }
    if (queued) ensureWriter();
    return nb->data() + nb->used.load(std::memory_order_relaxed);
}
}  // namespace detail

bool ProcessWriter::start(const char* module) {
    int expected = 0;
    if (!g_startState.compare_exchange_strong(expected, 1)) {
        while (g_startState.load() == 1) sleepNs(100000);
        return g_active.load();
    }
    const char* dir = std::getenv(env::kSessionDir);
    if (dir && *dir) {
        std::snprintf(g_sessionDir, sizeof g_sessionDir, "%s", dir);
        std::snprintf(g_module, sizeof g_module, "%s", module);
        if (const char* kb = std::getenv(env::kBufferKb)) {
            long v = std::atol(kb);
            if (v >= 16 && v <= 65536) g_bufferBytes = static_cast<uint32_t>(v * 1024);
        }
        if (const char* mb = std::getenv(env::kBufferMb)) {
            long v = std::atol(mb);
            if (v >= 1) g_budgetWithoutLimit = static_cast<int64_t>(v) << 20;
        }
        g_budgetBytes.store(g_budgetWithoutLimit);
        fitBuffersToFileSize(fileSizeLimit());
        fitBudgetToAddressSpace(addressSpaceLimit());
        if (!g_keyCreated.load() && pthread_key_create(&g_threadKey, threadKeyDestructor) == 0)
            g_keyCreated.store(true);
        if (const char* dev = std::getenv(env::kProcDevice)) g_launcherProcDev = std::strtoull(dev, nullptr, 10);
        const char* arenaDir = std::getenv(env::kArenaDir);
        std::snprintf(g_arenaDir, sizeof g_arenaDir, "%s", arenaDir && *arenaDir ? arenaDir : dir);
        readPids();
        // The capture switch of --capture-range (absent otherwise: always on). Mapped before the
        // stream opens, so no record of this process escapes a switch that is off.
        CaptureGate::attach(g_sessionDir);
        if (openStream()) g_active.store(true, std::memory_order_release);
    }
    g_startState.store(2);
    if (g_active.load()) {
        reportMissingArena();
        reportBudgetCut();
    }
    return g_active.load();
}

bool ProcessWriter::ownsFd(int fd) {
    return g_stream.owns(fd) || g_arena.owns(fd);
}

int ProcessWriter::heldNumbers(int* out) {
    int n = 0;
    for (int fd : {g_stream.number(), g_arena.number()})
        if (fd >= 0 && ownsFd(fd)) out[n++] = fd;
    if (n == 2 && out[0] > out[1]) std::swap(out[0], out[1]);
    return n;
}

void ProcessWriter::fitAddressSpace(uint64_t limit) {
    uint64_t freed = 0;
    if (bufferShareOf(limit) != UINT64_MAX) {
        PoolLock lock;
        freed = g_arena.shrinkTo(bufferShareOf(limit));
    }
    const bool cut = fitBudgetToAddressSpace(limit);
    if ((cut || freed) && g_active.load() && g_lazyStream.load() == kLazyNone) {
        if (!cut) g_budgetCutForLimit.store(limit);
        ToolScope scope;
        reportBudgetCut();
    }
}

void ProcessWriter::moveAsideFrom(int fd) {
    // A vfork child has a copy of the descriptor table but its parent's memory: its dup2
    // replaces only its own copy, and the parent's HeldFile must keep naming the parent's.
    if (detail::t_inVforkChild) return;
    g_stream.moveAsideFrom(fd);
    g_arena.moveAsideFrom(fd);
}

void ProcessWriter::seal() {
    if (detail::t_inVforkChild || g_sealed.exchange(true)) return;
    if (!g_active.load() || g_shutdown.load()) {
        g_active.store(false);
        return;
    }
    stopWriterThread();  // joined: with SECCOMP_FILTER_FLAG_TSYNC its exit would be filtered
    shutdown(ExitHow::Sealed, 0, 0);
    g_active.store(false);
    g_arena.releaseDescriptor();  // its mapping stays: a thread may still hold a buffer in it
}

bool ProcessWriter::recordedNothing() {
    return g_lazyStream.load(std::memory_order_relaxed) == kLazyPending;
}

int64_t ProcessWriter::forkedAt() {
    return g_forkedAt;
}

bool ProcessWriter::sealed() {
    return g_sealed.load(std::memory_order_relaxed);
}

bool ProcessWriter::active() {
    return g_active.load(std::memory_order_relaxed) && !detail::t_inVforkChild;
}
int64_t ProcessWriter::pid() {
    return g_pid;
}
int64_t ProcessWriter::namespacePid() {
    return g_nsPid;
}
bool ProcessWriter::pidsUnresolved() {
    return g_pidsUnresolved;
}
const char* ProcessWriter::sessionDir() {
    return g_sessionDir;
}
const char* ProcessWriter::arenaDir() {
    return g_arenaDir;
}
int64_t ProcessWriter::parentPid() {
    return g_parentPid;
}
int64_t ProcessWriter::threadId() {
    return rawGettid();
}
int64_t ProcessWriter::launcherTidOf(int64_t namespaceTid) {
    if (g_pid == g_nsPid || g_pidsUnresolved || namespaceTid <= 0) return namespaceTid;
    if (namespaceTid == g_nsPid) return g_pid;
    if (namespaceTid == syscall(SYS_gettid)) return rawGettid();
    const int64_t seen = capture::askLauncherForThread(g_sessionDir, namespaceTid);
    return seen > 0 ? seen : namespaceTid;
}

void ProcessWriter::countDrop(DropKind kind) {
    // Refused because the process is ending (another thread called exit): not buffers that
    // were full, and nothing is written after the final flush anyway.
    if (!g_active.load(std::memory_order_relaxed) || g_shutdown.load(std::memory_order_relaxed) ||
        detail::t_inVforkChild)
        return;
    ThreadState* t = currentState();
    if (!t) return;
    auto k = static_cast<int>(kind);
    if (detail::t_refusedInHandler) {
        detail::t_refusedInHandler = false;
        k = static_cast<int>(DropKind::InSignalHandler);
    }
    if (k < 0 || k >= kDropKindCount) k = 0;
    t->drops[k] += 1;
    t->hasDrops = true;
}

uint32_t ProcessWriter::maxRecordBytes() {
    return g_bufferBytes / 2;  // reserveSlow's limit
}

uint32_t ProcessWriter::defineString(std::string_view s) {
    // Cut to what a record keeps, and to what one record of the thread's buffer takes.
    const size_t room = std::min<size_t>(kMetaStringMax, maxRecordBytes() - sizeof(StringRecord) - 8);
    const bool cut = s.size() > room;
    if (cut) s = cutAtCharacter(s, room);
    uint32_t bytes =
        static_cast<uint32_t>(sizeof(StringRecord) + paddedTo8(static_cast<uint32_t>(s.size())));
    uint8_t* p = reserveCritical(bytes);
    if (!p) {
        countDrop(DropKind::Meta);
        return 0;
    }
    uint32_t id = g_nextString.fetch_add(1, std::memory_order_relaxed);
    auto* r = reinterpret_cast<StringRecord*>(p);
    r->h = {RecordType::String, 0, static_cast<uint16_t>(bytes / 8), id};
    r->length = static_cast<uint32_t>(s.size());
    r->reserved = 0;
    std::memcpy(r + 1, s.data(), s.size());
    std::memset(reinterpret_cast<char*>(r + 1) + s.size(), 0,
                bytes - sizeof(StringRecord) - s.size());
    commit(bytes);
    if (cut) countDrop(DropKind::TextCut);
    return id;
}

bool ProcessWriter::emitEvent(EventKind kind, int64_t tid, int64_t start, int64_t end,
                              uint32_t name, const int64_t* columns, int columnCount,
                              int32_t device, uint32_t context, uint32_t stream, uint32_t domain) {
    if (columnCount < 0) columnCount = 0;
    if (columnCount > 16) columnCount = 16;
    uint32_t bytes = static_cast<uint32_t>(sizeof(EventRecord) + 8 * columnCount);
    uint8_t* p = reserve(bytes);
    if (!p) {
        countDrop(DropKind::Event);
        return false;
    }
    auto* e = reinterpret_cast<EventRecord*>(p);
    e->h = {RecordType::Event, 0, static_cast<uint16_t>(bytes / 8), 0};
    e->kind = static_cast<uint8_t>(kind);
    e->columnCount = static_cast<uint8_t>(columnCount);
    e->reserved = 0;
    e->name = name;
    e->tid = tid;
    e->start = start;
    e->end = end;
    e->device = device;
    e->context = context;
    e->stream = stream;
    e->domain = domain;
    if (columnCount) std::memcpy(e + 1, columns, 8 * static_cast<size_t>(columnCount));
    commit(bytes);
    return true;
}

bool ProcessWriter::emitMeta(MetaKind kind, const int64_t* ints, int intCount,
                             const std::string_view* strs, int strCount) {
    // Texts longer than a record keeps are cut at a character's start, and counted.
    std::string_view kept[4];
    bool cut = false;
    if (strCount > 4) strCount = 4;  // what MetaView reads
    for (int i = 0; i < strCount; ++i) {
        kept[i] = cutAtCharacter(strs[i], kMetaStringMax);
        cut = cut || kept[i].size() != strs[i].size();
    }
    // A record larger than the thread's buffer takes (a small SIGHTLINE_BUFFER_KB) would be
    // dropped whole: its longest string is cut until it fits.
    for (uint32_t bytes = metaRecordBytes(intCount, kept, strCount); bytes > maxRecordBytes();
         bytes = metaRecordBytes(intCount, kept, strCount)) {
        int longest = -1;
        for (int i = 0; i < strCount; ++i)
            if (longest < 0 || kept[i].size() > kept[longest].size()) longest = i;
        const size_t over = bytes - maxRecordBytes() + 8;
        if (longest < 0 || kept[longest].size() < over) break;  // the integers alone are too many
        kept[longest] = cutAtCharacter(kept[longest], kept[longest].size() - over);
        cut = true;
    }
    uint8_t* p = reserveCritical(metaRecordBytes(intCount, kept, strCount));
    if (!p) {
        countDrop(DropKind::Meta);
        return false;
    }
    commit(encodeMeta(p, kind, ints, intCount, kept, strCount));
    if (cut) countDrop(DropKind::TextCut);
    return true;
}

void ProcessWriter::flushThread() {
    if (!g_active.load() || g_shutdown.load()) return;
    ThreadState* t = t_state;
    if (!t || t->generation != g_generation.load()) return;
    Buffer* b = t->buffer.exchange(nullptr);
    if (b) handOver(b);
}

void ProcessWriter::threadExit() {
    ThreadState* t = t_state;
    if (!t) return;
    if (t->generation == g_generation.load() && g_active.load() && !g_shutdown.load()) {
        if (t->hasDrops) {
            // Written through the normal path, so a fresh buffer (if any) carries them first.
            int64_t saved[kDropKindCount];
            std::memcpy(saved, t->drops, sizeof saved);
            uint8_t tmp[kDropKindCount * 40];
            uint32_t n = encodeDrops(t, tmp);
            if (uint8_t* p = reserveCritical(n)) {
                std::memcpy(p, tmp, n);
                commit(n);
            } else {
                std::memcpy(t->drops, saved, sizeof t->drops);  // keep them for the final flush
                t->hasDrops = true;
            }
        }
        Buffer* b = t->buffer.exchange(nullptr);
        if (b) handOver(b, /*startWriter=*/false);
        // A state with unreported drops is never reused: the final flush reports them.
        if (!t->hasDrops) t->free.store(true, std::memory_order_release);
    }
    t_state = nullptr;
}

void ProcessWriter::shutdown(ExitHow how, int exitCode, int signal) {
    if (!g_active.load() || detail::t_inVforkChild) return;  // a vfork child: the parent's state
    // A forked child that recorded nothing: before an exec (the new image announces itself) or
    // in a signal handler (no allocation there) it leaves no stream; else it says it existed.
    g_lazyAtExec = false;
    uint32_t pending = kLazyPending;
    if ((how == ExitHow::Exec || how == ExitHow::Signal) &&
        g_lazyStream.compare_exchange_strong(pending, kLazyNone)) {
        g_lazyAtExec = how == ExitHow::Exec;
    } else if (g_lazyStream.load() != kLazyNone) {
        openLazily();
        waitForLazyOpen();  // another thread opens it: its announcement, then the queue
    }
    if (g_shutdown.exchange(true)) return;
    bool wasInTool = detail::t_inTool;
    detail::t_inTool = true;
    // Step 1: let the writer drain what was handed over, then stop it (bounded wait).
    if (g_writerRunning.load()) {
        g_writerStop.store(1, std::memory_order_release);
        g_queueLen.fetch_add(0);
        futexWake(&g_queueLen);
        // (A fork's beforeFork() may join it meanwhile: then it is gone, and done.)
        for (int i = 0; i < 2000 && !g_writerDone.load(std::memory_order_acquire) &&
                        g_writerRunning.load(std::memory_order_acquire) != kWriterNone;
             ++i)
            sleepNs(1000000);
    }
    // Step 2: whatever is still queued (the writer never started or did not finish in time).
    // (What a writer left because the stream waited to be made is written here too: the writer
    // has ended its loop.)
    if (!g_writerDone.load(std::memory_order_acquire) || g_queueLen.load() > 0) writeQueued(false);
    // Step 3: the committed part of every thread's current buffer, and unreported drops.
    uint32_t gen = g_generation.load();
    for (ThreadState* t = g_registry.load(std::memory_order_acquire); t; t = t->nextAll) {
        if (t->generation != gen) continue;
        Buffer* b = t->buffer.exchange(nullptr);
        if (b) writeBlock(b->tid, b->seq, b->data(), b->used.load(std::memory_order_acquire));
        if (t->hasDrops) {
            uint8_t tmp[kDropKindCount * 40];
            uint32_t n = encodeDrops(t, tmp);
            writeBlock(t->tid, UINT64_MAX, tmp, n);
        }
    }
    // Step 4: the writer thread is the capture's, even one started by a thread that ended
    // while the process was ending (its own record of that is refused once shutdown begins).
    if (const int64_t writer = g_writerTid.load(std::memory_order_relaxed)) {
        const std::string_view name = "sightline-io";
        const int64_t ints[3] = {writer, nowNs(), 2};
        alignas(8) uint8_t rec[sizeof(MetaRecord) + 3 * 8 + 4 + 16];
        const uint32_t bytes = encodeMeta(rec, MetaKind::ThreadName, ints, 3, &name, 1);
        writeBlock(0, UINT64_MAX, rec, bytes);
    }
    // Step 5: how the process (or, before an exec, this image) ended: the stream is complete.
    {
        alignas(8) uint8_t rec[sizeof(MetaRecord) + 32];
        const int64_t ints[4] = {nowNs(), exitCode, signal, static_cast<int64_t>(how)};
        writeBlock(0, UINT64_MAX, rec, encodeMeta(rec, MetaKind::ProcessEnd, ints, 4));
    }
    // No fsync: the launcher reads the stream from the page cache on this machine; forcing it
    // to the disk cost 0.2-0.5 ms per process end (and per exec) for nothing it needs.
    g_arena.finished();  // all of it is in the stream now (or the arena says what is not)
    // Not left to close-on-exec: a number the program took over is its own, for the new image.
    if (how == ExitHow::Exec || how == ExitHow::Sealed) g_stream.close();
    detail::t_inTool = wasInTool;
}

bool ProcessWriter::resumeAfterExec() {
    if (detail::t_inVforkChild || g_sealed.load() || !g_shutdown.load() || g_stream.made() || g_sessionDir[0] == 0)
        return false;
    g_generation.fetch_add(1);
    g_forkedAt = 0;  // the image that failed to exec announces itself again, now
    g_queue.store(nullptr);
    g_queueLen.store(0);
    g_writerRunning.store(0);
    g_writerTid.store(0);
    g_writerStop.store(0);
    g_writerDone.store(0);
    g_shutdown.store(false);
    dropPool();
    g_arena.forget();
    t_state = nullptr;
    if (g_lazyAtExec) {  // still a child that recorded nothing: its stream stays deferred
        g_lazyAtExec = false;
        g_lazyStream.store(kLazyPending);
        return false;
    }
    g_active.store(openStream());
    if (g_active.load()) {
        reportMissingArena();
        reportBudgetCut();
    }
    return g_active.load();
}

void ProcessWriter::beforeFork() {
    // The writer thread leaves before fork() and comes back at the next hand-over: a program
    // that counts its threads at fork (Python 3.12+ warns "This process is multi-threaded"
    // from /proc/self/stat) must see only its own. It drains what was handed over first.
    // A fork in a vfork child (not allowed by POSIX) leaves the parent's writer alone.
    if (g_shutdown.load() || detail::t_inVforkChild) return;
    // Another thread making the stream holds its new descriptor at a low number until it is
    // moved: the child would have it there, a number it may count on being free.
    waitForLazyOpen();
    waitForStreamMade();
    int state = g_writerRunning.load(std::memory_order_acquire);
    for (int spins = 0; state == kWriterStarting && spins < 10000; ++spins) {
        sched_yield();  // another thread is creating it: g_writerThread is not set yet
        state = g_writerRunning.load(std::memory_order_acquire);
    }
    if (state != kWriterRunning ||
        !g_writerRunning.compare_exchange_strong(state, kWriterStopping))
        return;  // none, or another thread's fork is stopping it
    const bool wasInTool = detail::t_inTool;
    detail::t_inTool = true;
    g_writerStop.store(1, std::memory_order_release);
    g_queueLen.fetch_add(0);
    futexWake(&g_queueLen);
    pthread_join(g_writerThread, nullptr);
    g_writerStop.store(0);
    g_writerDone.store(0);
    g_writerRunning.store(kWriterNone, std::memory_order_release);
    detail::t_inTool = wasInTool;
}

void ProcessWriter::onForkChild(bool trace, bool sharesFiles) {
    if (g_sealed.load()) return;  // the filter is the child's too: nothing to set up, no call made
    // Forked by a signal handler that interrupted a record of this thread: when the handler
    // returns, the child finishes that record where it was given space (the parent's buffer)
    // and commits it through t_state (it crashed there, t_state cleared). It commits into a
    // state of no generation, and its space is the child's own memory.
    const bool midRecord = detail::t_recording != 0;
    g_generation.fetch_add(1);
    g_poolLock.clear();  // another thread may have held it at fork time; the pool is the parent's
    g_pool = nullptr;
    g_poolSize = 0;
    g_queue.store(nullptr);
    g_queueLen.store(0);
    g_inflight.store(0);
    g_registry.store(nullptr);
    g_writerRunning.store(0);
    g_writerTid.store(0);
    g_writerStop.store(0);
    g_writerDone.store(0);
    if (midRecord) {
        g_forkedMidRecord.buffer.store(&g_forkedMidRecordBuffer, std::memory_order_relaxed);
        t_state = &g_forkedMidRecord;
    } else {
        t_state = nullptr;
    }
    if (sharesFiles)
        g_stream.forget();
    else
        g_stream.close();  // unless the parent's program had taken its number over
    g_streamDeferred.store(false);  // the parent's stream, made (if ever) by the parent
    // The child's records start afresh (t_state too), after the record it was forked inside:
    // till then a record of the handler is refused, as in the parent.
    if (!midRecord) detail::t_recording = 0;
    // Forked while another thread made the parent's stream: that thread is not in the child,
    // whose own stream must not wait for it.
    g_streamCreating.store(false);
    g_streamErrno = 0;
    g_arena.forget(!sharesFiles, midRecord);  // the parent's buffers: never the child's to write
    // A parent in the launcher's PID namespace (its two pids equal; the child inherited them)
    // that did not move its children elsewhere has its children there too: getpid() is the
    // pid the launcher sees. Reading /proc/self/status in every forked child cost 40-50 us.
    if (g_pid == g_nsPid && !g_childPidNsChanged.load()) {
        g_nsPid = g_pid = syscall(SYS_getpid);
        g_parentPid = syscall(SYS_getppid);
    } else {
        g_childPidNsChanged.store(false);  // its own children go where it is, unless it moves them
        readPids();
    }
    g_forkedAt = nowNs();
    bool wasActive = g_active.load() && !g_shutdown.load();
    g_shutdown.store(false);
    t_lazyOpener = false;
    g_lazyStream.store(wasActive && trace ? kLazyPending : kLazyNone);
    g_active.store(wasActive && trace);
}

void ProcessWriter::childPidNamespaceChanged() {
    if (detail::t_inVforkChild) return;  // its children are not its parent's
    g_childPidNsChanged.store(true);
}

void ProcessWriter::setAnnouncer(void (*announce)()) {
    g_onLazyOpen = announce;
}

void ProcessWriter::openDeferred() {
    if (g_lazyStream.load() != kLazyNone && active() && !g_shutdown.load()) openLazily();
}

uint64_t ProcessWriter::blocksWritten() {
    return g_blocks.load();
}
uint64_t ProcessWriter::bytesWritten() {
    return g_bytes.load();
}

}  // namespace sl::capture
