// Interposers that follow the process tree and the threads: fork/vfork/posix_spawn (children),
// exec* (flush before the image is replaced, keep our environment), wait* (how children
// ended), _exit/exit, pthread_create (thread lifetimes) and thread names.
#include <pthread.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "capture/common/ExecCheck.h"
#include "capture/common/PidQuery.h"
#include "capture/inject/InjectCommon.h"
#include "capture/inject/OpenCalls.h"

extern char** environ;

namespace sl::inject {
namespace {

using capture::ChildVia;
using capture::MetaKind;

// In another PID namespace than the launcher's, pids of children are that namespace's: they
// would name the wrong processes, so the launcher is asked which ones they are.
bool childPidsAreOurs() {
    return ProcessWriter::pid() == ProcessWriter::namespacePid();
}

// In another PID namespace: the children this process created, their namespace pid and the pid
// the launcher sees (asked of it at their creation, PidQuery.h), so that their reaping, when
// they are gone from /proc, is recorded too. Slots are taken and freed under a spin flag; each
// names the process that made it, so a forked child never takes its parent's.
struct ChildPids {
    int64_t owner, inner, outer;  // owner: the creating process's namespace pid
};
constexpr int kChildSlots = 256;
ChildPids g_childPids[kChildSlots];
int g_childNext = 0;
std::atomic_flag g_childLock = ATOMIC_FLAG_INIT;

void rememberChild(int64_t inner, int64_t outer) {
    while (g_childLock.test_and_set(std::memory_order_acquire)) {
    }
    g_childPids[g_childNext] = {ProcessWriter::namespacePid(), inner, outer};
    g_childNext = (g_childNext + 1) % kChildSlots;
    g_childLock.clear(std::memory_order_release);
}

// The launcher's pid of the reaped child `inner` (forgotten now); 0 when not remembered.
int64_t takeChild(int64_t inner) {
    int64_t outer = 0;
    const int64_t owner = ProcessWriter::namespacePid();
    while (g_childLock.test_and_set(std::memory_order_acquire)) {
    }
    for (int k = 1; k <= kChildSlots && !outer; ++k) {  // the newest first: pids are reused
        ChildPids& c = g_childPids[(g_childNext - k + kChildSlots) % kChildSlots];
        if (c.inner == inner && c.owner == owner) {
            outer = c.outer;
            c = {0, 0, 0};
        }
    }
    g_childLock.clear(std::memory_order_release);
    return outer;
}

// `traced`: the child runs our module before any exec (a fork() child under
// --trace-fork-before-exec=true). It opens its stream at its first record, so one killed before
// it recorded anything leaves no stream; the merge must not call it untraced.
void childCreated(pid_t child, ChildVia via, bool traced = false, int64_t time = capture::nowNs()) {
    if (child <= 0 || !ProcessWriter::active()) return;
    int64_t pid = child;
    if (!childPidsAreOurs()) {
        // 50-100 us, paid only by processes in another PID namespace.
        pid = capture::askLauncherForChild(ProcessWriter::sessionDir(), child);
        if (!pid) return;
        rememberChild(child, pid);
    }
    ProcessWriter::ToolScope scope;
    int64_t ints[4] = {pid, time, static_cast<int64_t>(via), traced ? 1 : 0};
    ProcessWriter::emitMeta(MetaKind::ChildCreated, ints, 4);
}

void childReaped(pid_t child, int status) {
    if (child <= 0 || !ProcessWriter::active()) return;
    if (!WIFEXITED(status) && !WIFSIGNALED(status)) return;
    const int64_t pid = childPidsAreOurs() ? child : takeChild(child);
    if (!pid) return;
    ProcessWriter::ToolScope scope;
    int64_t ints[4] = {pid, capture::nowNs(), WIFEXITED(status) ? WEXITSTATUS(status) : 0,
                       WIFSIGNALED(status) ? WTERMSIG(status) : 0};
    ProcessWriter::emitMeta(MetaKind::ChildReaped, ints, 4);
}

// Why our module cannot be loaded into `file` (searched in PATH when `search`; the path found
// goes into `found`), or Untraceable::No.
capture::Untraceable untraceable(const char* file, bool search, char (&found)[4096],
                                 const char*& path) {
    path = file;
    if (search) {
        if (!capture::findExecutable(file, found, sizeof found)) return capture::Untraceable::No;
        path = found;
    }
    return capture::untraceableImage(path);
}

std::string commandLineOf(char* const argv[]) {
    std::string commandLine;
    for (char* const* a = argv; a && *a; ++a) (commandLine += commandLine.empty() ? "" : " ") += *a;
    return commandLine;
}

void emitUntracedImage(int64_t pid, int64_t time, capture::Untraceable why, std::string_view path,
                       std::string_view commandLine) {
    int64_t ints[3] = {pid, time, static_cast<int64_t>(why)};
    std::string_view strs[2] = {path, commandLine};
    ProcessWriter::emitMeta(MetaKind::UntracedImage, ints, 3, strs, 2);
}

// What a vfork child leaves its parent, in the storage of the thread that called vfork (the
// child runs on it while that thread is suspended): when the child started, whether the parent
// was tracing, the environment copy it exec'd with (the parent frees it: the child's heap is the
// parent's) and the untraceable image it ran, which the parent records with the child's pid
// (the child may write nothing: the streams, buffers and file descriptors are the parent's).
struct VforkHandoff {
    int64_t childStart;
    bool parentActive;
    capture::ThreadState* parentState;  // the thread's writer state, hidden from the child
    EnvironmentCopy environment;
    capture::Untraceable why;
    int64_t imageTime;
    char* imagePath;    // malloc'd by the child
    char* commandLine;  // malloc'd by the child
    void forgetImage() {
        std::free(imagePath);
        std::free(commandLine);
        imagePath = commandLine = nullptr;
    }
};
thread_local VforkHandoff t_vfork SL_CAPTURE_TLS{};

// In a vfork child about to exec `file`: an untraceable image is noted for the parent.
void noteVforkImage(const char* file, bool search, char* const argv[]) {
    if (!t_vfork.parentActive || !childPidsAreOurs()) return;
    char found[4096];
    const char* path = nullptr;
    const capture::Untraceable why = untraceable(file, search, found, path);
    t_vfork.forgetImage();  // an earlier exec of this child failed
    if (why == capture::Untraceable::No) return;
    t_vfork.why = why;
    t_vfork.imageTime = capture::nowNs();
    t_vfork.imagePath = strdup(path);
    t_vfork.commandLine = strdup(commandLineOf(argv).c_str());
}

// Before `pid` runs `file` (searched in PATH when `search`): when our module cannot be loaded
// into it (static, setuid), say so now; the process will record nothing of its own.
// In a vfork child the parent records it (noteVforkImage).
void checkImage(pid_t pid, const char* file, bool search, char* const argv[]) {
    if (ProcessWriter::inVforkChild()) {
        noteVforkImage(file, search, argv);
        return;
    }
    if (pid <= 0 || !ProcessWriter::active() || !childPidsAreOurs()) return;
    ProcessWriter::ToolScope scope;
    char found[4096];
    const char* path = nullptr;
    const capture::Untraceable why = untraceable(file, search, found, path);
    if (why == capture::Untraceable::No) return;
    ProcessWriter::openDeferred();  // a forked child's announcement comes first
    emitUntracedImage(pid == getpid() ? ProcessWriter::pid() : pid, capture::nowNs(), why, path,
                      commandLineOf(argv));
}

}  // namespace

char** vforkChildEnvironment(char* const envp[]) {
    t_vfork.environment.release();  // an earlier exec of this child failed
    return withOurEnvironment(envp, &t_vfork.environment);
}

namespace {

pid_t forkImpl(ChildVia via) {
    SL_REAL(fork);
    pid_t r = real_fork.get()();  // the child runs afterForkChild (a pthread_atfork handler)
    if (r > 0) childCreated(r, via, g_config.traceForkBeforeExec);
    return r;
}

// pthread_t -> tid of the threads we started, for pthread_setname_np on another thread.
constexpr int kTidSlots = 4096;
std::atomic<uint64_t> g_tidKeys[kTidSlots];
std::atomic<int64_t> g_tidValues[kTidSlots];

void rememberTid(pthread_t th, int64_t tid) {
    uint64_t key = static_cast<uint64_t>(th);
    for (int i = 0; i < kTidSlots; ++i) {
        int slot = static_cast<int>((key / 64 + static_cast<uint64_t>(i)) % kTidSlots);
        uint64_t cur = g_tidKeys[slot].load();
        if (cur == key || (cur == 0 && g_tidKeys[slot].compare_exchange_strong(cur, key)) ||
            cur == key) {
            g_tidValues[slot].store(tid);
            return;
        }
    }
}

// The main thread's pthread_t. Its tid is the process's pid as the launcher sees it, so it takes
// no slot: remembering it at load made every process fault in two pages of the table (and make
// a gettid call), traced or not.
std::atomic<uint64_t> g_mainThread{0};

int64_t lookupTid(pthread_t th) {
    if (pthread_equal(th, pthread_self())) return currentTid();
    if (static_cast<uint64_t>(th) == g_mainThread.load(std::memory_order_relaxed))
        return ProcessWriter::pid();
    uint64_t key = static_cast<uint64_t>(th);
    for (int i = 0; i < kTidSlots; ++i) {
        int slot = static_cast<int>((key / 64 + static_cast<uint64_t>(i)) % kTidSlots);
        uint64_t cur = g_tidKeys[slot].load();
        if (cur == key) return g_tidValues[slot].load();
        if (cur == 0) return 0;
    }
    return 0;
}

// Thread bookkeeping: the start routine runs inside a trampoline that records the thread's
// start and, through the writer's thread-exit hook, its end.
struct Trampoline {
    void* (*fn)(void*);
    void* arg;
};

pthread_key_t g_endKey;
pthread_once_t g_endKeyOnce = PTHREAD_ONCE_INIT;

// Program threads created through pthread_create and ended through its trampoline: while they
// differ, some still live (recordLiveThreads).
std::atomic<int64_t> g_threadsCreated{0}, g_threadsEnded{0};

void threadEnded(void*) {
    g_threadsEnded.fetch_add(1, std::memory_order_relaxed);
    if (!ProcessWriter::active()) return;
    recordOpenCalls(capture::nowNs(), false);  // cancelled inside a call
    releaseOpenCallSlot();
    ProcessWriter::ToolScope scope;
    char comm[17] = {};
    prctl(PR_GET_NAME, comm, 0, 0, 0);
    int64_t ints[2] = {currentTid(), capture::nowNs()};
    std::string_view name[1] = {comm};
    ProcessWriter::emitMeta(MetaKind::ThreadName, ints, 2, name, 1);  // catches renames by prctl
    ProcessWriter::emitMeta(MetaKind::ThreadEnd, ints, 2);
    ProcessWriter::threadExit();
}

void makeEndKey() {
    pthread_key_create(&g_endKey, threadEnded);
}

void* trampolineMain(void* p) {
    Trampoline t = *static_cast<Trampoline*>(p);
    std::free(p);
    rememberTid(pthread_self(), currentTid());
    if (ProcessWriter::active()) {
        ProcessWriter::ToolScope scope;
        char comm[17] = {};
        prctl(PR_GET_NAME, comm, 0, 0, 0);
        int64_t ints[2] = {currentTid(), capture::nowNs()};
        std::string_view name[1] = {comm};
        ProcessWriter::emitMeta(MetaKind::ThreadStart, ints, 2, name, 1);
        pthread_once(&g_endKeyOnce, makeEndKey);
        pthread_setspecific(g_endKey, reinterpret_cast<void*>(1));
    }
    return t.fn(t.arg);
}

// Whether `tid` ran the trampoline (its start is recorded).
bool startRecorded(int64_t tid) {
    for (int i = 0; i < kTidSlots; ++i)
        if (g_tidKeys[i].load(std::memory_order_relaxed) != 0 &&
            g_tidValues[i].load(std::memory_order_relaxed) == tid)
            return true;
    return false;
}

// Reads /proc/self/task/TID/comm into `comm` (16 bytes and a NUL); false when it is gone.
bool readThreadComm(int64_t tid, char* comm) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%lld/comm", static_cast<long long>(tid));
    const int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
    if (fd < 0) return false;
    const long n = syscall(SYS_read, fd, comm, 16);
    syscall(SYS_close, fd);
    if (n <= 0) return false;
    comm[n] = 0;
    if (comm[n - 1] == '\n') comm[n - 1] = 0;
    return true;
}

}  // namespace

// The threads of a program whose main returns while its workers sleep (daemon threads, a pool
// never joined) had no end and often no name in the report, and those not yet scheduled were
// missing (with context switches off) or nameless rows (with them on). Only when some thread
// the program created has not ended, and only where /proc/self/task lists the tids the launcher
// sees (not in another PID namespace): a single-threaded process pays one comparison.
void recordLiveThreads(bool exec) {
    if (g_threadsCreated.load() == g_threadsEnded.load() || !ProcessWriter::active() ||
        ProcessWriter::inVforkChild() || ProcessWriter::namespacePid() != ProcessWriter::pid())
        return;
    ProcessWriter::ToolScope scope;
    const int dir = static_cast<int>(syscall(SYS_openat, AT_FDCWD, "/proc/self/task",
                                             O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir < 0) return;
    const int64_t self = currentTid(), now = capture::nowNs();
    alignas(8) char buf[4096];
    for (;;) {
        const long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
        if (n <= 0) break;
        for (long off = 0; off < n;) {
            const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
            off += d->d_reclen;
            const int64_t tid = std::strtoll(d->d_name, nullptr, 10);
            char comm[17] = {};
            if (tid <= 0 || tid == self || tid == ProcessWriter::pid() || !readThreadComm(tid, comm))
                continue;
            const int64_t ints[3] = {tid, now, 0};
            const std::string_view name[1] = {comm};
            if (startRecorded(tid))
                ProcessWriter::emitMeta(MetaKind::ThreadName, ints, 3, name, 1);
            else  // created, never scheduled: it existed, under the name it inherited
                ProcessWriter::emitMeta(MetaKind::ThreadStart, ints, 2, name, 1);
            // An exec ends it now; the process goes on (its end would be the new image's).
            if (exec) ProcessWriter::emitMeta(MetaKind::ThreadEnd, ints, 2);
        }
    }
    syscall(SYS_close, dir);
}

namespace {

void recordThreadName(int64_t tid, const char* name) {
    if (tid <= 0 || !name || !ProcessWriter::active()) return;
    ProcessWriter::ToolScope scope;
    int64_t ints[2] = {tid, capture::nowNs()};
    std::string_view s[1] = {name};
    ProcessWriter::emitMeta(MetaKind::ThreadName, ints, 2, s, 1);
}

using Wait4Fn = pid_t (*)(pid_t, int*, int, struct rusage*);

// wait4 and wait3: the child that ended is recorded (exit code or signal) and a long wait is an
// OS runtime call.
pid_t timedWait4(Wait4Fn real, capture::CachedString& name, const char* label, pid_t pid,
                 int* status, int options, struct rusage* ru) {
    int local = 0;
    int* st = status ? status : &local;
    if (ProcessWriter::inTool()) return real(pid, status, options, ru);
    // An OS runtime call only with -t osrt, in a --capture-range window where there is one.
    const bool marked = capture::CaptureGate::isOn() && g_osrtOn.load(std::memory_order_relaxed);
    int64_t t0 = capture::nowNs();
    const OpenCall open = marked ? openCallBegin(name, label, t0) : OpenCall{};
    pid_t r = real(pid, st, options, ru);
    openCallEnd(open);
    int64_t t1 = capture::nowNs();
    int e = errno;
    if (r > 0) childReaped(r, *st);
    if (marked && t1 - t0 >= g_config.osrtThresholdNs)
        recordOsrt(name, label, t0, t1, r, r < 0 ? e : 0);
    errno = e;
    return r;
}

}  // namespace
}  // namespace sl::inject

using namespace sl::inject;

SL_EXPORT pid_t fork(void) {
    return forkImpl(sl::capture::ChildVia::Fork);
}

// The halves of our vfork (below), which a vfork-like clone() goes through too.
extern "C" {
int sl_vfork_allowed();
pid_t sl_vfork_child_started();
pid_t sl_vfork_parent_resumed(long result, void* callerSp);
}

// _Fork (glibc 2.34+): fork without the atfork handlers, so the child would keep writing into
// its parent's shared buffers; it lets go of them here instead. It records nothing until it
// execs: _Fork is the fork of async-signal-safe code (a crash handler's), whose child may not
// allocate (malloc's locks are not reset), and our recording would. The set-up itself writes
// only our memory and makes system calls. glibc's fork() reaches _Fork inside libc, not
// through this.
SL_EXPORT pid_t _Fork(void) {
    SL_REAL(_Fork);
    const pid_t r = real__Fork.get()();
    if (r == 0)
        forkChildSetUp(false, false);
    else if (r > 0)
        childCreated(r, sl::capture::ChildVia::Fork);
    return r;
}

namespace {
// clone() without CLONE_VM makes a process with a copy of the caller's memory, as fork does
// but without the atfork handlers: the child starts here to let go of the parent's buffers
// before the program's function runs, and records nothing until it execs (a container
// runtime's child, on a small stack of its own, in a parent whose other threads may hold
// malloc's locks). With CLONE_FILES the parent's descriptors stay open: the table is shared.
// The call is read from the child's copy of the parent's stack frame.
struct CloneCall {
    int (*fn)(void*);
    void* arg;
    bool newPidNamespace, sharesFiles;
};

int cloneChildStart(void* p) {
    const CloneCall call = *static_cast<const CloneCall*>(p);
    // In a new PID namespace its exec'd image reads its pids from /proc.
    if (call.newPidNamespace) ProcessWriter::childPidNamespaceChanged();
    forkChildSetUp(false, call.sharesFiles);
    return call.fn(call.arg);
}

// CLONE_VM | CLONE_VFORK (and the caller's thread-local storage) is vfork on a stack of the
// caller's: the child runs as a vfork child (it records nothing, its exec or exit leaves the
// parent's state alone) while the calling thread waits.
int vforkCloneChildStart(void* p) {
    const CloneCall call = *static_cast<const CloneCall*>(p);  // the suspended parent's frame
    sl_vfork_child_started();
    return call.fn(call.arg);
}
}  // namespace

// Any other CLONE_VM child shares the caller's memory, buffers and thread-local state while
// both run: it is passed through as it is (docs/capture.md).
SL_EXPORT int clone(int (*fn)(void*), void* stack, int flags, void* arg, ...) {
    SL_REAL(clone);
    va_list ap;
    va_start(ap, arg);
    pid_t* parentTid = va_arg(ap, pid_t*);
    void* tls = va_arg(ap, void*);
    pid_t* childTid = va_arg(ap, pid_t*);
    va_end(ap);
    constexpr int kVforkLike = CLONE_VM | CLONE_VFORK;
    if (fn && (flags & (kVforkLike | CLONE_THREAD | CLONE_SETTLS)) == kVforkLike &&
        sl_vfork_allowed()) {
        CloneCall call{fn, arg, false, false};
        const int r = real_clone.get()(vforkCloneChildStart, stack, flags, &call, parentTid, tls,
                                       childTid);
        return sl_vfork_parent_resumed(r < 0 ? -errno : r, nullptr);
    }
    // CLONE_SETTLS: our thread-local state would be in storage the program made.
    if ((flags & (CLONE_VM | CLONE_SETTLS)) || !fn)
        return real_clone.get()(fn, stack, flags, arg, parentTid, tls, childTid);
    CloneCall call{fn, arg, (flags & CLONE_NEWPID) != 0, (flags & CLONE_FILES) != 0};
    const int r = real_clone.get()(cloneChildStart, stack, flags, &call, parentTid, tls, childTid);
    // CLONE_PARENT: the caller's parent is the child's; the kernel's fork record says so.
    if (r > 0 && !(flags & CLONE_PARENT)) childCreated(r, sl::capture::ChildVia::Clone);
    return r;
}

// A process that moves its future children to another PID namespace: its forked children
// cannot take getpid() for the pid the launcher sees (ProcessWriter::onForkChild).
SL_EXPORT int unshare(int flags) {
    SL_REAL(unshare);
    if (flags & (CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM))
        ProcessWriter::stopWriterThread();  // else EINVAL: our writer made it multi-threaded
    const int r = real_unshare.get()(flags);
    if (r == 0 && (flags & CLONE_NEWPID)) ProcessWriter::childPidNamespaceChanged();
    return r;
}

SL_EXPORT int setns(int fd, int nstype) {
    SL_REAL(setns);
    // Joining a user namespace needs a single-threaded caller (0: whatever fd is).
    if (nstype == 0 || (nstype & CLONE_NEWUSER)) ProcessWriter::stopWriterThread();
    const int r = real_setns.get()(fd, nstype);
    if (r == 0 && (nstype == 0 || (nstype & CLONE_NEWPID)))  // 0: whatever fd is
        ProcessWriter::childPidNamespaceChanged();
    return r;
}

// vfork: a real one (VforkStub.S) on x86-64; these are the two halves it returns through, and
// the fork it falls back to. Elsewhere vfork is served by fork: its contract (the child only
// execs or _exits) is met by fork, and a real vfork cannot be wrapped in C because the child
// would return through our frame on the parent's stack.
extern "C" {
// Before the system call: 0 when this thread is a vfork child already (the inner vfork is then
// served by fork). Else the thread is marked now, before the child exists, so that a signal in
// the child's first instructions cannot run our flush on the parent's state, and its writer
// state is hidden: the records' fast path (ProcessWriter::reserve) then refuses in the child.
int sl_vfork_allowed() {
    if (ProcessWriter::inVforkChild()) return 0;
    t_vfork.parentActive = ProcessWriter::active();
    t_vfork.parentState = sl::capture::detail::t_state;
    sl::capture::detail::t_state = nullptr;
    ProcessWriter::setVforkChild(true);
    return 1;
}

// In the child, right after the system call: nothing of ours changes from here on.
pid_t sl_vfork_child_started() {
    t_vfork.childStart = sl::capture::nowNs();
    return 0;
}

// AddressSanitizer's own vfork (which ours replaces in an instrumented program) clears what the
// child's frames left in the shadow of the stack below the caller's.
void __asan_handle_vfork(void* sp) __attribute__((weak));

// In the parent, once the child exec'd or exited; `result` is the system call's (-errno when it
// failed), `callerSp` the stack pointer of vfork's caller.
pid_t sl_vfork_parent_resumed(long result, void* callerSp) {
    ProcessWriter::setVforkChild(false);
    sl::capture::detail::t_state = t_vfork.parentState;
    if (__asan_handle_vfork && callerSp) __asan_handle_vfork(callerSp);
    VforkHandoff& h = t_vfork;
    h.environment.release();
    if (result < 0) {
        h.forgetImage();
        errno = static_cast<int>(-result);
        return -1;
    }
    const auto child = static_cast<pid_t>(result);
    childCreated(child, sl::capture::ChildVia::Vfork, false, h.childStart);
    if (h.imagePath && ProcessWriter::active()) {
        ProcessWriter::ToolScope scope;
        emitUntracedImage(child, h.imageTime, h.why, h.imagePath,
                          h.commandLine ? h.commandLine : "");
    }
    h.forgetImage();
    return child;
}

pid_t sl_vfork_as_fork() {
    return forkImpl(sl::capture::ChildVia::Vfork);
}
}

#if !(defined(__x86_64__) && defined(__linux__))
SL_EXPORT pid_t vfork(void) {
    return sl_vfork_as_fork();
}
#endif

SL_EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* fa,
                          const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
    SL_REAL(posix_spawn);
    pid_t local = 0;
    char** env = const_cast<char**>(envp);
    if (ProcessWriter::active()) {
        ProcessWriter::ToolScope scope;
        env = withOurEnvironment(
            envp);  // the caller is not replaced: only fix the child's environment
    }
    int r = real_posix_spawn.get()(pid ? pid : &local, path, fa, attr, argv, env);
    if (r == 0) childCreated(pid ? *pid : local, sl::capture::ChildVia::PosixSpawn);
    if (r == 0) checkImage(pid ? *pid : local, path, false, argv);
    return r;
}

SL_EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* fa,
                           const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
    SL_REAL(posix_spawnp);
    pid_t local = 0;
    char** env = const_cast<char**>(envp);
    if (ProcessWriter::active()) {
        ProcessWriter::ToolScope scope;
        env = withOurEnvironment(envp);
    }
    int r = real_posix_spawnp.get()(pid ? pid : &local, file, fa, attr, argv, env);
    if (r == 0) childCreated(pid ? *pid : local, sl::capture::ChildVia::PosixSpawn);
    if (r == 0) checkImage(pid ? *pid : local, file, true, argv);
    return r;
}

SL_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
    SL_REAL(execve);
    checkImage(getpid(), path, false, argv);
    char** env = prepareExec(envp);
    int r = real_execve.get()(path, argv, env);
    int e = errno;
    execFailed();
    errno = e;
    return r;
}

SL_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
    SL_REAL(execvpe);
    checkImage(getpid(), file, true, argv);
    char** env = prepareExec(envp);
    int r = real_execvpe.get()(file, argv, env);
    int e = errno;
    execFailed();
    errno = e;
    return r;
}

SL_EXPORT int execv(const char* path, char* const argv[]) {
    return execve(path, argv, environ);
}
SL_EXPORT int execvp(const char* file, char* const argv[]) {
    return execvpe(file, argv, environ);
}

namespace {
// Collects the variadic arguments of execl* into an argv array on the stack.
#define SL_COLLECT_ARGS(first, last_out_env)                                            \
    va_list ap;                                                                         \
    va_start(ap, first);                                                                \
    const char* argvBuf[1024];                                                          \
    int argc = 0;                                                                       \
    argvBuf[argc++] = first;                                                            \
    while (argc < 1023 && (argvBuf[argc] = va_arg(ap, const char*)) != nullptr) ++argc; \
    argvBuf[argc] = nullptr;                                                            \
    last_out_env;                                                                       \
    va_end(ap)
}  // namespace

SL_EXPORT int execl(const char* path, const char* arg, ...) {
    SL_COLLECT_ARGS(arg, (void)0);
    return execve(path, const_cast<char* const*>(argvBuf), environ);
}
SL_EXPORT int execlp(const char* file, const char* arg, ...) {
    SL_COLLECT_ARGS(arg, (void)0);
    return execvpe(file, const_cast<char* const*>(argvBuf), environ);
}
SL_EXPORT int execle(const char* path, const char* arg, ...) {
    char* const* envp = nullptr;
    SL_COLLECT_ARGS(arg, envp = va_arg(ap, char* const*));
    return execve(path, const_cast<char* const*>(argvBuf), envp);
}

SL_EXPORT void _exit(int code) {
    SL_REAL(_exit);
    if (!ProcessWriter::inVforkChild()) {  // a vfork child has nothing to flush
        g_osrtOn.store(false);
        runFinalFlushHooks(sl::capture::ExitHow::QuickExit);
        recordImageEnd();
        ProcessWriter::shutdown(sl::capture::ExitHow::QuickExit, code, 0);
    }
    real__exit.get()(code);
    __builtin_unreachable();
}

SL_EXPORT void _Exit(int code) {
    _exit(code);
}

SL_EXPORT void exit(int code) {
    SL_REAL(exit);
    if (ProcessWriter::inVforkChild()) {
        // exit() in a vfork child would run its parent's exit handlers on the parent's memory:
        // they would be gone when the parent exits (our final flush among them, and every other
        // module's). The child flushes the streams, as exit does, and ends (_exit below).
        std::fflush(nullptr);
        _exit(code);
    }
    g_exitCode.store(code & 0xff);
    real_exit.get()(code);
    __builtin_unreachable();
}

// main's return value is the exit code; wrapping main through __libc_start_main records it for
// programs that return from main (exit() is interposed for the others).
namespace {
using MainFn = int (*)(int, char**, char**);
MainFn g_realMain = nullptr;
int wrappedMain(int argc, char** argv, char** envp) {
    int code = g_realMain(argc, argv, envp);
    g_exitCode.store(code & 0xff);
    return code;
}
}  // namespace

SL_EXPORT int __libc_start_main(MainFn main, int argc, char** argv, void (*init)(), void (*fini)(),
                                void (*rtldFini)(), void* stackEnd) {
    using StartFn = int (*)(MainFn, int, char**, void (*)(), void (*)(), void (*)(), void*);
    auto real = reinterpret_cast<StartFn>(dlsym(RTLD_NEXT, "__libc_start_main"));
    g_realMain = main;
    return real(wrappedMain, argc, argv, init, fini, rtldFini, stackEnd);
}

SL_EXPORT pid_t waitpid(pid_t pid, int* status, int options) {
    SL_REAL(waitpid);
    static sl::capture::CachedString name;
    int local = 0;
    int* st = status ? status : &local;
    if (ProcessWriter::inTool()) return real_waitpid.get()(pid, status, options);
    // An OS runtime call only with -t osrt, in a --capture-range window where there is one.
    const bool marked = sl::capture::CaptureGate::isOn() && g_osrtOn.load(std::memory_order_relaxed);
    int64_t t0 = sl::capture::nowNs();
    const sl::inject::OpenCall open =
        marked ? sl::inject::openCallBegin(name, "waitpid", t0) : sl::inject::OpenCall{};
    pid_t r = real_waitpid.get()(pid, st, options);
    sl::inject::openCallEnd(open);
    int64_t t1 = sl::capture::nowNs();
    int e = errno;
    if (r > 0) childReaped(r, *st);
    if (marked && t1 - t0 >= g_config.osrtThresholdNs)
        recordOsrt(name, "waitpid", t0, t1, r, r < 0 ? e : 0);
    errno = e;
    return r;
}

SL_EXPORT pid_t wait(int* status) {
    return waitpid(-1, status, 0);
}

SL_EXPORT pid_t wait4(pid_t pid, int* status, int options, struct rusage* ru) {
    SL_REAL(wait4);
    static sl::capture::CachedString name;
    return timedWait4(real_wait4.get(), name, "wait4", pid, status, options, ru);
}

// glibc's wait3 calls its internal wait4, not through the PLT: shells (dash) reap with it.
SL_EXPORT pid_t wait3(int* status, int options, struct rusage* ru) {
    SL_REAL(wait4);
    static sl::capture::CachedString name;
    return timedWait4(real_wait4.get(), name, "wait3", -1, status, options, ru);
}

SL_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t* info, int options) {
    SL_REAL(waitid);
    static sl::capture::CachedString name;
    if (ProcessWriter::inTool()) return real_waitid.get()(idtype, id, info, options);
    // An OS runtime call only with -t osrt, in a --capture-range window where there is one.
    const bool marked = sl::capture::CaptureGate::isOn() && g_osrtOn.load(std::memory_order_relaxed);
    int64_t t0 = sl::capture::nowNs();
    const sl::inject::OpenCall open =
        marked ? sl::inject::openCallBegin(name, "waitid", t0) : sl::inject::OpenCall{};
    int r = real_waitid.get()(idtype, id, info, options);
    sl::inject::openCallEnd(open);
    int64_t t1 = sl::capture::nowNs();
    int e = errno;
    if (r == 0 && info && info->si_pid > 0 && !(options & WNOWAIT)) {
        int status =
            info->si_code == CLD_EXITED ? (info->si_status & 0xff) << 8 : (info->si_status & 0x7f);
        childReaped(info->si_pid, status);
    }
    if (marked && t1 - t0 >= g_config.osrtThresholdNs)
        recordOsrt(name, "waitid", t0, t1, r, r < 0 ? e : 0);
    errno = e;
    return r;
}

SL_EXPORT int pthread_create(pthread_t* th, const pthread_attr_t* attr, void* (*fn)(void*),
                             void* arg) {
    SL_REAL(pthread_create);
    if (ProcessWriter::inTool() || !ProcessWriter::active())
        return real_pthread_create.get()(th, attr, fn, arg);
    auto* t = static_cast<Trampoline*>(std::malloc(sizeof(Trampoline)));
    if (!t) return real_pthread_create.get()(th, attr, fn, arg);
    t->fn = fn;
    t->arg = arg;
    int r = real_pthread_create.get()(th, attr, trampolineMain, t);
    if (r != 0)
        std::free(t);
    else
        g_threadsCreated.fetch_add(1, std::memory_order_relaxed);
    return r;
}

SL_EXPORT int pthread_setname_np(pthread_t th, const char* name) {
    SL_REAL(pthread_setname_np);
    int r = real_pthread_setname_np.get()(th, name);
    if (r == 0 && !ProcessWriter::inTool()) recordThreadName(lookupTid(th), name);
    return r;
}

SL_EXPORT int prctl(int option, ...) {
    SL_REAL(prctl);
    va_list ap;
    va_start(ap, option);
    unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
    unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
    va_end(ap);
    if (option == PR_SET_SECCOMP && a2 == SECCOMP_MODE_STRICT)
        sealForSandbox("prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT)");
    else if (option == PR_SET_SECCOMP && a2 == SECCOMP_MODE_FILTER && filterCanInstall(0, a3))
        sealForSandbox("prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)");
    int r = real_prctl.get()(option, a2, a3, a4, a5);
    if (r == 0 && option == PR_SET_NAME && !ProcessWriter::inTool())
        recordThreadName(currentTid(), reinterpret_cast<const char*>(a2));
    return r;
}

namespace sl::inject {
// The main thread's pthread_t, for setname on it from other threads (lookupTid).
__attribute__((constructor(102))) static void noteMainThread() {
    g_mainThread.store(static_cast<uint64_t>(pthread_self()), std::memory_order_relaxed);
}
}  // namespace sl::inject
