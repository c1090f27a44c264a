#pragma once
// Shared state of the injection module (libsightline-inject.so): configuration read from the
// environment at load, the real libc functions behind our interposers, and small helpers.
// Everything is per process; the module is loaded with LD_PRELOAD and, for NVTX, found again
// through NVTX_INJECTION64_PATH (the same file, so one writer and one stream per process).
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>

#include "capture/common/CaptureGate.h"
#include "capture/common/Clock.h"
#include "capture/common/Export.h"
#include "capture/common/HeldFile.h"
#include "capture/common/ProcessWriter.h"

// glibc declares most interposed functions with nonnull/nothrow attributes; they do not matter for
// the function pointer types we keep.
#pragma GCC diagnostic ignored "-Wignored-attributes"


namespace sl::inject {

using capture::ProcessWriter;

struct Config {
    bool nvtx = false;
    bool osrt = false;
    bool openmp = false;  // -t openmp: note processes whose OpenMP runtime has no OMPT
    bool traceForkBeforeExec = true;
    int64_t osrtThresholdNs = 1000;
    // --python-backtrace: at recorded OS runtime calls, at NVTX pushes, starts and marks.
    bool pythonBacktraceOsrt = false;
    bool pythonBacktraceNvtx = false;
    // --osrt-backtrace-threshold: recorded OS runtime calls at least this long get their native
    // stack (NativeBacktrace.h), at most osrtBacktraceDepth frames; -1: none.
    int64_t osrtBacktraceThresholdNs = -1;
    uint32_t osrtBacktraceDepth = 24;
};
extern Config g_config;
// OS runtime recording is on (set after the constructor, off during shutdown).
extern std::atomic<bool> g_osrtOn;
// Exit code given to exit(), -1 when the process returns from main (the parent knows it).
extern std::atomic<int> g_exitCode;

// A libc function behind an interposer, resolved on first use with dlsym(RTLD_NEXT).
template <class F>
struct RealFn {
    std::atomic<F> fn;
    const char* name;
    F get() {
        F f = fn.load(std::memory_order_relaxed);
        if (__builtin_expect(f == nullptr, 0)) {
            f = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
            fn.store(f, std::memory_order_relaxed);
        }
        return f;
    }
};
#define SL_REAL(fn)                                          \
    static ::sl::inject::RealFn<decltype(&::fn)> real_##fn { \
        {nullptr}, #fn                                       \
    }

// One of the module's own descriptors (HeldFile.h), asked about by the program (not by a library
// call of our own): the interposers answer EBADF, as for a number not open. The first test is
// all most calls pay.
inline bool hiddenFromProgram(int fd) {
    return __builtin_expect(fd >= capture::g_lowestHeldEver.load(std::memory_order_relaxed), 0) &&
           capture::ProcessWriter::ownsFd(fd) && !capture::ProcessWriter::inTool();
}

// A path resolved from one of them as the directory (the *at calls): a relative or empty path
// (AT_EMPTY_PATH, Rust's File::metadata) names ours; an absolute one ignores the descriptor.
inline bool hiddenDirectory(int dirfd, const char* path) {
    return hiddenFromProgram(dirfd) && (path == nullptr || path[0] != '/');
}

// What an interposer answers for one of them: EBADF, -1.
inline int badDescriptor() {
    errno = EBADF;
    return -1;
}

// Puts the flush-on-signal handler on the signals the program leaves at their default, and keeps
// the program's own view of every disposition (SignalInterpose.cpp).
void installSignalHandlers();
// Puts the program's own dispositions back for good (ProcessWriter::seal): no handler of ours
// runs after a seccomp filter, whose rules it could break.
void uninstallSignalHandlers();
// Before a seccomp filter or strict mode: the process's capture ends here, complete
// (SeccompInterpose.cpp). Idempotent.
void sealForSandbox(const char* how);
// Whether a seccomp filter with these flags and program pointer can be installed (a failing call,
// such as libseccomp's probes, must not end the capture).
bool filterCanInstall(unsigned long flags, unsigned long program);
// Takes our variables (and our module's LD_PRELOAD entry) out of the process's environment.
void removeOurEnvironment();

// A system call's raw result, -errno on failure, errno untouched (as glibc's own wrappers for
// calls that cannot fail return it, and without going through syscall(), which is ours:
// SyscallStub.S). Async-signal-safe.
inline long kernelCall(long number, long a = 0, long b = 0, long c = 0) {
#if defined(__x86_64__)
    long r;
    asm volatile("syscall" : "=a"(r) : "a"(number), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
#else
    const long r = syscall(number, a, b, c);
    return r == -1 ? -errno : r;
#endif
}

// The calling thread's kernel tid (cached; refreshed after fork).
int64_t currentTid();

// Records one OS runtime call on the calling thread.
void recordOsrt(capture::CachedString& name, const char* text, int64_t t0, int64_t t1,
                int64_t result, int err);

// Emits ProcessStart and the calling thread's ThreadStart for this process image.
void announceProcess();
// The main thread's name now, recorded as the process ends or execs: a rename through
// /proc/self/comm (or pthread_setname_np from another thread) passes no interposer, and the
// main thread records no end of its own (other threads record their name as they end).
void recordMainThreadName();
// What ends with this image and no interposer saw end: OS runtime calls still blocked in any
// thread (OpenCalls.h), the main thread's last name and the threads still alive
// (recordLiveThreads). At exit, _exit and exec (`exec`: the threads end now, the process goes
// on).
void recordImageEnd(bool exec = false);
// At the end of the image (exit, _exit, exec), threads still alive die without recording their
// end or their last name, and those created but not yet scheduled recorded nothing: each gets
// its name now (and a start, when it never ran); its end is its process's at an exit, now at an
// exec (`exec`), which ends them while the process goes on (ProcessInterpose.cpp).
void recordLiveThreads(bool exec = false);
// In every forked child, as the first pthread_atfork child handler (registered when the module
// starts): its own stream (with --trace-fork-before-exec, opened lazily) or none. A handler and
// not the fork interposer alone: glibc's own forks (daemon) bypass the interposer, and the
// program's handlers run after ours, so nothing of the child ever writes into the parent's
// shared buffers.
void afterForkChild();
// The same for a child that glibc's fork did not make (_Fork, clone): `trace` false records
// nothing in it until it execs; `sharesFiles` as ProcessWriter::onForkChild.
void forkChildSetUp(bool trace, bool sharesFiles);
// In a forked child: the capture window the parent's range opened is the parent's to close.
void nvtxForgetWindowOwner();
// Exec support: stops recording and puts our environment variables back into `envp` (a new
// array, or envp itself when nothing is missing); in a vfork child only the latter.
char** prepareExec(char* const envp[]);
// Other modules' final flushes (FinalFlushHooks.cpp), before this module's own at _exit, exec
// and a fatal signal (at exit() they flush from their own atexit handlers).
void runFinalFlushHooks(capture::ExitHow how);
// What withOurEnvironment allocated (a vfork child's copy, which its parent frees).
struct EnvironmentCopy {
    char** array;
    char* preload;  // the LD_PRELOAD entry it rewrote
    void release() {
        std::free(preload);
        std::free(array);
        preload = nullptr;
        array = nullptr;
    }
};
// With `copy`, what it allocates is recorded there; without, it is left to the exec.
char** withOurEnvironment(char* const envp[], EnvironmentCopy* copy = nullptr);
// Whether an exec'd image could load this module from where the loader found it (not after a
// chroot or in another mount namespace, where withOurEnvironment leaves it out).
bool moduleReachable();
// withOurEnvironment in a vfork child: its copy is left for the parent to free when it resumes
// (ProcessInterpose.cpp).
char** vforkChildEnvironment(char* const envp[]);
void execFailed();

}  // namespace sl::inject
