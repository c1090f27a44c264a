// Load and unload of the injection module: configuration, the process's first records, the
// final flush at exit (the flush on fatal signals is in SignalInterpose.cpp).
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "capture/common/SessionEnv.h"
#include "capture/cupti/CudaBacktrace.h"
#include "capture/inject/InjectCommon.h"
#include "capture/inject/SignalDeliveries.h"
#include "capture/inject/OpenCalls.h"
#include "capture/inject/NativeBacktrace.h"
#include "capture/inject/PythonBacktrace.h"
#include "model/core/EventColumns.h"

namespace sl::inject {

Config g_config;
std::atomic<bool> g_osrtOn{false};
std::atomic<int> g_exitCode{-1};

namespace {

thread_local int64_t t_tid SL_CAPTURE_TLS = 0;
thread_local uint32_t t_tidGen SL_CAPTURE_TLS = 0;

// Our saved environment, restored into exec'd programs whose environment lost it.
std::vector<std::string>* g_savedEnv = nullptr;

// /proc/self/cmdline, its NULs as spaces, at most `keep` bytes of it (cut at a character's
// start); *fullBytes is its whole length (up to ARG_MAX, a few MiB), to say what was cut.
std::string readCommandLine(size_t keep, size_t* fullBytes) {
    std::string out;
    size_t total = 0;
    int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[4096];
        ssize_t n;
        while ((n = ::read(fd, buf, sizeof buf)) > 0) {
            total += static_cast<size_t>(n);
            if (out.size() <= keep) out.append(buf, static_cast<size_t>(n));
        }
        ::close(fd);
    }
    const bool whole = out.size() == total;
    while (!out.empty() && out.back() == 0) out.pop_back();
    for (char& c : out)
        if (c == 0) c = ' ';
    // Read whole: its length without the last NUL; else what was there, less that NUL.
    *fullBytes = whole ? out.size() : total - 1;
    if (out.size() > keep) out.resize(capture::cutAtCharacter(out, keep).size());
    return out;
}

void readConfig() {
    const char* trace = std::getenv(capture::env::kTrace);
    std::string t = trace ? trace : "nvtx,osrt";
    g_config.nvtx = t.find("nvtx") != std::string::npos;
    g_config.osrt = t.find("osrt") != std::string::npos;
    g_config.openmp = t.find("openmp") != std::string::npos;
    if (const char* th = std::getenv(capture::env::kOsrtThresholdNs))
        g_config.osrtThresholdNs = std::atoll(th);
    if (const char* f = std::getenv(capture::env::kTraceForkBeforeExec))
        g_config.traceForkBeforeExec = f[0] == '1';
    if (const char* b = std::getenv(capture::env::kPythonBacktrace)) {
        const std::string kinds = b;
        g_config.pythonBacktraceOsrt = kinds.find("osrt") != std::string::npos;
        g_config.pythonBacktraceNvtx = kinds.find("nvtx") != std::string::npos;
    }
    // "THRESHOLD_NS:DEPTH" (SessionEnv.h).
    if (const char* b = std::getenv(capture::env::kOsrtBacktrace)) {
        char* rest = nullptr;
        const long long threshold = std::strtoll(b, &rest, 10);
        const long depth = rest && *rest == ':' ? std::strtol(rest + 1, nullptr, 10) : 24;
        if (threshold >= 0 && depth > 0) {
            g_config.osrtBacktraceThresholdNs = threshold;
            g_config.osrtBacktraceDepth = static_cast<uint32_t>(depth);
        }
    }
    g_savedEnv = new std::vector<std::string>();
    for (const char* name : capture::env::kAll)
        if (const char* v = std::getenv(name)) g_savedEnv->push_back(std::string(name) + "=" + v);
}

__attribute__((constructor(101))) void onLoad() {
    ProcessWriter::ToolScope scope;
    readConfig();
    if (!ProcessWriter::start("inject")) return;
    pthread_atfork(ProcessWriter::beforeFork, nullptr, afterForkChild);
    announceProcess();
    installSignalHandlers();
    if ((g_config.osrt && g_config.osrtBacktraceThresholdNs >= 0) ||
        std::getenv(cuda::kCudaBacktraceEnv))  // --cudabacktrace: the CUDA module asks later
        nbt::init();
    g_osrtOn.store(g_config.osrt);
}

// -t openmp: GCC's OpenMP runtime has no OMPT, so its regions cannot be traced; the report says
// so for each process that ends with it loaded (libomp's programs load our OMPT tool instead).
void noteOpenMpWithoutOmpt() {
    if (!g_config.openmp || !ProcessWriter::active()) return;
    void* gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!gomp) return;
    dlclose(gomp);
    ProcessWriter::ToolScope scope;
    int64_t count = 1;
    std::string_view s[2] = {"openmp.no_ompt",
                             "-t openmp: this process's OpenMP runtime is GCC's libgomp, which has "
                             "no OMPT interface: its OpenMP regions are not traced (build with "
                             "clang -fopenmp, or run it on LLVM's libomp)"};
    ProcessWriter::emitMeta(capture::MetaKind::Diagnostic, &count, 1, s, 2);
}

__attribute__((destructor(101))) void onUnload() {
    if (ProcessWriter::inVforkChild()) return;  // exit() in a vfork child: the parent's state
    g_osrtOn.store(false);
    noteOpenMpWithoutOmpt();
    recordImageEnd();
    ProcessWriter::shutdown(capture::ExitHow::Exit, g_exitCode.load(), 0);
}

}  // namespace

int64_t currentTid() {
    uint32_t gen = ProcessWriter::generation();
    if (__builtin_expect(t_tidGen != gen, 0)) {
        t_tid = ProcessWriter::threadId();
        t_tidGen = gen;
    }
    return t_tid;
}

void recordOsrt(capture::CachedString& name, const char* text, int64_t t0, int64_t t1,
                int64_t result, int err) {
    ProcessWriter::ToolScope scope;
    uint32_t id = name.get(text);
    OsRuntimeCall call;  // its columns as the model defines them (EventColumns.h)
    call.result = result;
    call.errnum = err;
    const auto cols = columnsOf(call);
    if (g_config.pythonBacktraceOsrt) pybt::recordFor(t0, EventKind::OsRuntime);  // before its event, in its thread
    if (g_config.osrtBacktraceThresholdNs >= 0 && t1 - t0 >= g_config.osrtBacktraceThresholdNs)
        nbt::recordFor(t0, EventKind::OsRuntime, g_config.osrtBacktraceDepth);
    ProcessWriter::emitEvent(EventKind::OsRuntime, currentTid(), t0, t1, id, cols.data(),
                             static_cast<int>(cols.size()));
}

void announceProcess() {
    ProcessWriter::ToolScope scope;
    // A forked child announces itself at its first record, which may come long after the fork.
    const int64_t now = ProcessWriter::forkedAt() ? ProcessWriter::forkedAt() : capture::nowNs();
    char comm[17] = {};
    prctl(PR_GET_NAME, comm, 0, 0, 0);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string_view exePath(exe, n > 0 ? static_cast<size_t>(n) : 0);
    // The command line is kept whole up to what one record takes (64 KiB, less with a small
    // SIGHTLINE_BUFFER_KB); a longer one is cut, and its full length goes with it so that the
    // report says so (capture.command_lines_cut).
    const size_t fixed = sizeof(capture::MetaRecord) + 7 * 8 + 3 * 4 + 16 + exePath.size() + 8;
    const size_t room = ProcessWriter::maxRecordBytes() > fixed + 64
                            ? ProcessWriter::maxRecordBytes() - fixed - 64
                            : 64;
    size_t fullBytes = 0;
    std::string cmdline =
        readCommandLine(std::min<size_t>(capture::kMetaStringMax, room), &fullBytes);
    // The kernel keeps 15 characters of the name: take the full one from argv[0] when it was cut.
    std::string name = comm;
    if (name.size() == 15) {
        std::string first = cmdline.substr(0, cmdline.find(' '));
        std::string base = first.substr(first.find_last_of('/') + 1);
        if (base.size() > 15 && base.compare(0, 15, name) == 0) name = base;
    }
    int64_t ints[7] = {ProcessWriter::pid(),
                       ProcessWriter::parentPid(),
                       now,
                       capture::utcNowNs() - (capture::nowNs() - now),
                       ProcessWriter::namespacePid(),
                       ProcessWriter::pidsUnresolved() ? 1 : 0,
                       fullBytes > cmdline.size() ? static_cast<int64_t>(fullBytes) : 0};
    std::string_view strs[3] = {name, cmdline, exePath};
    ProcessWriter::emitMeta(capture::MetaKind::ProcessStart, ints, 7, strs, 3);
    int64_t t[2] = {currentTid(), now};
    std::string_view threadName[1] = {comm};
    ProcessWriter::emitMeta(capture::MetaKind::ThreadStart, t, 2, threadName, 1);
}

void recordMainThreadName() {
    if (!ProcessWriter::active() || ProcessWriter::inVforkChild()) return;
    ProcessWriter::ToolScope scope;
    char comm[17] = {};
    if (currentTid() == ProcessWriter::pid()) {
        prctl(PR_GET_NAME, comm, 0, 0, 0);
    } else {  // /proc/self/comm is the thread group leader's, the main thread's
        const int fd = static_cast<int>(
            syscall(SYS_openat, AT_FDCWD, "/proc/self/comm", O_RDONLY | O_CLOEXEC));
        if (fd < 0) return;
        const long n = syscall(SYS_read, fd, comm, sizeof comm - 1);
        syscall(SYS_close, fd);
        if (n <= 0) return;
        comm[n] = 0;
        if (comm[n - 1] == '\n') comm[n - 1] = 0;
    }
    if (!comm[0]) return;
    const int64_t ints[2] = {ProcessWriter::pid(), capture::nowNs()};
    const std::string_view name[1] = {comm};
    ProcessWriter::emitMeta(capture::MetaKind::ThreadName, ints, 2, name, 1);
}

void recordImageEnd(bool exec) {
    recordOpenCalls(capture::nowNs(), true);
    recordMainThreadName();
    recordLiveThreads(exec);
}

void afterForkChild() {
    forkChildSetUp(g_config.traceForkBeforeExec, false);
}

void forkChildSetUp(bool trace, bool sharesFiles) {
    ProcessWriter::setAnnouncer(announceProcess);  // when the child's stream opens (lazily)
    ProcessWriter::onForkChild(trace, sharesFiles);
    openCallsAfterFork();
    nvtxForgetWindowOwner();
    nbt::afterForkChild();
    signalBoardAfterFork();
    if (!ProcessWriter::active()) g_osrtOn.store(false);
}

namespace {
std::string_view ownPath();
}  // namespace

char** prepareExec(char* const envp[]) {
    // A vfork child stops nothing (what runs is its parent's); its environment copy is freed
    // by the parent.
    if (ProcessWriter::inVforkChild()) return vforkChildEnvironment(envp);
    g_osrtOn.store(false);
    runFinalFlushHooks(capture::ExitHow::Exec);
    if (!ProcessWriter::sealed() && !moduleReachable()) {
        // (Not once sealed: a filter may punish the faccessat, and the environment is being
        // stripped of the module anyway.) The new image is not traced (withOurEnvironment leaves the module out): said here,
        // in the image that knows why.
        ProcessWriter::ToolScope scope;
        char reason[1200];
        std::snprintf(reason, sizeof reason,
                      "exec'd a program where the capture's module %.*s cannot be reached (after "
                      "a chroot, or in a mount namespace of its own): that program and its "
                      "children are not traced",
                      static_cast<int>(ownPath().size()), ownPath().data());
        int64_t count = 1;
        std::string_view strs[2] = {"capture.module_unreachable", reason};
        ProcessWriter::emitMeta(capture::MetaKind::Diagnostic, &count, 1, strs, 2);
    }
    if (!ProcessWriter::recordedNothing()) recordImageEnd(true);  // else no stream is opened for it
    if (const int64_t tid = currentTid(); tid != ProcessWriter::pid()) {
        // Exec from a thread that is not the main one: its id ends here (it goes on as the main
        // thread's, in the new image), and the kernel records no exit for it.
        ProcessWriter::ToolScope scope;
        const int64_t ints[2] = {tid, capture::nowNs()};
        ProcessWriter::emitMeta(capture::MetaKind::ThreadEnd, ints, 2);
    }
    ProcessWriter::shutdown(capture::ExitHow::Exec, 0, 0);
    return withOurEnvironment(envp);
}

namespace {
// Whether a preload list (entries separated by ':' or ' ', as the loader reads it) has `entry`.
bool hasPreload(std::string_view list, std::string_view entry) {
    size_t i = 0;
    while (i < list.size()) {
        size_t j = list.find_first_of(": ", i);
        if (j == std::string_view::npos) j = list.size();
        if (list.substr(i, j - i) == entry) return true;
        i = j + 1;
    }
    return false;
}

// This module's own file, as the loader found it (the entry of LD_PRELOAD that is ours).
std::string_view ownPath() {
    static const std::string path = [] {
        Dl_info info{};
        return dladdr(reinterpret_cast<void*>(&ownPath), &info) && info.dli_fname
                   ? std::string(info.dli_fname)
                   : std::string();
    }();
    return path;
}

}  // namespace

// Whether the next image can load this module: after a chroot or in a mount namespace of its
// own (a build sandbox, a container launcher) the path may be gone, and the loader then printed
// "ERROR: ld.so: object ... cannot be preloaded" into the program's stderr. One faccessat.
bool moduleReachable() {
    const std::string_view path = ownPath();
    if (path.empty()) return true;
    return kernelCall(SYS_faccessat, AT_FDCWD, reinterpret_cast<long>(path.data()), R_OK) == 0;
}

namespace {
// LD_PRELOAD as the program set it, with our module appended when it lacks it ("" when it has
// it). Only ours: preloads of the user's the program dropped stay dropped.
std::string preloadWithOurs(std::string_view theirs) {
    const std::string_view ours = ownPath();
    if (ours.empty()) return {};
    if (hasPreload(theirs, ours)) return {};
    std::string merged(theirs);
    (merged += merged.empty() ? "" : ":") += ours;
    return merged;
}
}  // namespace

// Whether "NAME=value" is one of ours: a SIGHTLINE_ variable (the CUDA module's too), or one the
// launcher set with this value (the injection paths); LD_PRELOAD is edited, not dropped.
bool isOurVariable(std::string_view entry) {
    if (entry.starts_with("SIGHTLINE_")) return true;
    if (entry.starts_with("LD_PRELOAD=") || !g_savedEnv) return false;
    for (const auto& kv : *g_savedEnv)
        if (entry == kv) return true;
    return false;
}

// A preload list less our module ("" when nothing else was in it).
std::string preloadWithoutOurs(std::string_view list) {
    const std::string_view ours = ownPath();
    std::string kept;
    for (size_t at = 0; at <= list.size();) {
        size_t end = list.find_first_of(": ", at);
        if (end == std::string_view::npos) end = list.size();
        const std::string_view one = list.substr(at, end - at);
        if (!one.empty() && one != ours) (kept += kept.empty() ? "" : ":") += one;
        at = end + 1;
    }
    return kept;
}

// After a seal (seccomp, ProcessWriter::seal) what the process runs next runs without the
// module, as it would without the profiler: the filter, which it keeps, could refuse the
// loader's opening of the module (an error line on the program's stderr) and the calls the
// module makes. An explicit environment (exec*, posix_spawn) is copied without our variables
// and our module's LD_PRELOAD entry; leaked (as the copy below) unless `copy` takes it.
char** withoutOurEnvironment(char* const envp[], EnvironmentCopy* copy) {
    size_t n = 0;
    for (char* const* e = envp; e && *e; ++e) ++n;
    auto** out = static_cast<char**>(std::calloc(n + 1, sizeof(char*)));
    if (!out) return const_cast<char**>(envp);
    if (copy) copy->array = out;
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        const std::string_view entry = envp[i];
        if (entry.starts_with("LD_PRELOAD=")) {
            const std::string kept = preloadWithoutOurs(entry.substr(11));
            if (kept.empty()) continue;
            char* dup = strdup(("LD_PRELOAD=" + kept).c_str());
            if (copy) copy->preload = dup;
            if (dup) out[k++] = dup;
        } else if (!isOurVariable(entry)) {
            out[k++] = envp[i];
        }
    }
    return out;
}

// The process's own environment loses the same (at the seal): what it starts from environ
// without an exec interposer (system, popen: glibc's posix_spawn inside libc; fexecve; a raw
// execve) would carry the module into the sandbox.
void removeOurEnvironment() {
    std::vector<std::string> names;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view entry = *e;
        if (isOurVariable(entry)) names.emplace_back(entry.substr(0, entry.find('=')));
    }
    for (const std::string& name : names) unsetenv(name.c_str());
    if (const char* preload = std::getenv("LD_PRELOAD")) {
        const std::string kept = preloadWithoutOurs(preload);
        if (kept.empty())
            unsetenv("LD_PRELOAD");
        else if (kept != preload)
            setenv("LD_PRELOAD", kept.c_str(), 1);
    }
}

// The environment an exec'd program gets: the program's, with our variables it dropped put
// back, and our module added to an LD_PRELOAD it replaced (else that program is not traced).
char** withOurEnvironment(char* const envp[], EnvironmentCopy* copy) {
    if (g_savedEnv && (ProcessWriter::sealed() || !moduleReachable()))
        return withoutOurEnvironment(envp, copy);
    if (!g_savedEnv || g_savedEnv->empty()) return const_cast<char**>(envp);
    size_t n = 0;
    for (char* const* e = envp; e && *e; ++e) ++n;
    std::vector<const char*> missing;
    std::vector<std::pair<size_t, std::string>> replaced;  // envp index -> new "NAME=value"
    for (const auto& kv : *g_savedEnv) {
        const size_t eq = kv.find('=');
        size_t at = n;
        for (size_t i = 0; i < n && at == n; ++i)
            if (std::strncmp(envp[i], kv.c_str(), eq + 1) == 0) at = i;
        if (at == n) {
            missing.push_back(kv.c_str());
        } else if (kv.compare(0, eq, "LD_PRELOAD") == 0) {
            std::string merged = preloadWithOurs(envp[at] + eq + 1);
            if (!merged.empty()) replaced.emplace_back(at, "LD_PRELOAD=" + merged);
        }
    }
    if (missing.empty() && replaced.empty()) return const_cast<char**>(envp);
    // Without `copy`, leaked on purpose: exec replaces the image (and a failed exec is rare).
    auto** out = static_cast<char**>(std::calloc(n + missing.size() + 1, sizeof(char*)));
    if (!out) return const_cast<char**>(envp);
    for (size_t i = 0; i < n; ++i) out[i] = envp[i];
    if (copy) copy->array = out;
    for (auto& [i, text] : replaced)  // LD_PRELOAD only: at most one
        if (char* dup = strdup(text.c_str())) {
            out[i] = dup;
            if (copy) copy->preload = dup;
        }
    for (size_t i = 0; i < missing.size(); ++i) out[n + i] = const_cast<char*>(missing[i]);
    return out;
}

void execFailed() {
    if (ProcessWriter::resumeAfterExec()) announceProcess();  // else announced when it opens
    if (ProcessWriter::active()) g_osrtOn.store(g_config.osrt);
}

}  // namespace sl::inject
