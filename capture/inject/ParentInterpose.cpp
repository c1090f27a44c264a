// getppid() as without the profiler. The launcher is the traced tree's subreaper (it waits for
// every process of the tree and gets each one's exit status), so a process whose parent ended is
// given to the launcher, where without it the kernel gives it to init or to the nearest
// subreaper above the profiler. A child polling `getppid() == 1` to learn that its parent is
// gone (daemons do) waited forever under the profiler, and the profiler for it. An orphan's
// getppid() now answers with that process (SessionEnv.h, kOrphanReaper); the program's first
// process, the launcher's own child, still sees the launcher. /proc/PID/stat shows the truth.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "capture/common/SessionEnv.h"
#include "capture/inject/InjectCommon.h"

namespace {

// From the environment at load, before main (a signal handler may ask).
pid_t g_launcher = 0, g_root = 0, g_reaper = 0;

pid_t pidFrom(const char* name) {
    const char* v = std::getenv(name);
    return v ? static_cast<pid_t>(std::atoi(v)) : 0;
}

__attribute__((constructor(102))) void readParents() {
    g_launcher = pidFrom(sl::capture::env::kLauncherPid);
    g_root = pidFrom(sl::capture::env::kRootPid);
    g_reaper = pidFrom(sl::capture::env::kOrphanReaper);
}

}  // namespace

SL_EXPORT pid_t getppid() {
    // As glibc's: the kernel's answer as it is (a seccomp filter's SECCOMP_RET_ERRNO gives
    // -errno, which syscall() would turn into -1 and errno).
    const auto parent = static_cast<pid_t>(sl::inject::kernelCall(SYS_getppid));
    if (parent != g_launcher || parent <= 0 || g_reaper <= 0) return parent;
    // Only in the launcher's PID namespace (the numbers compared are its), and not the root.
    // The pids the module keeps (updated at each fork) save a getpid per call.
    using sl::capture::ProcessWriter;
    const int64_t self = ProcessWriter::pid();
    if (self <= 0 || ProcessWriter::namespacePid() != self || self == g_root) return parent;
    return g_reaper;
}
