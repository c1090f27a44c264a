#include "capture/launcher/ProgramStart.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "capture/common/SessionEnv.h"
#include "capture/launcher/JobControl.h"

namespace sl::capture {

// In the child: makes the program's environment and output, waits for the go byte (the perf
// events are open by then: the first of a boot, or after a second without any, waits for the
// kernel's RCU grace period, which this set-up runs beside), restores the signal dispositions
// and execs the program; on failure reports errno through errFd.
void execChild(const ChildSetup& c) {
    if (c.stdoutFd >= 0) dup2(c.stdoutFd, 1);
    if (c.stderrFd >= 0) dup2(c.stderrFd, 2);
    // -n false: only what tracing needs and the -e variables (execvp then searches the default
    // path, /bin:/usr/bin, as it does for any program started without PATH).
    if (!c.inheritEnvironment) clearenv();
    for (const auto& [k, v] : c.env) setenv(k.c_str(), v.c_str(), 1);
    setenv(env::kRootPid, std::to_string(getpid()).c_str(), 1);
    std::vector<char*> argv;
    for (const auto& a : *c.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    char byte;
    while (read(c.goFd, &byte, 1) < 0 && errno == EINTR) {
    }
    // After the wait, as before it: a Ctrl+C meanwhile reaches the launcher's handler here.
    for (const auto& [sig, action] : c.restore) sigaction(sig, &action, nullptr);
    restoreTerminalOutputStops();
    if (c.descriptorLimit && c.descriptorLimit->raised())
        setrlimit(RLIMIT_NOFILE, &c.descriptorLimit->previous());
    execvp(argv[0], argv.data());
    int e = errno;
    [[maybe_unused]] ssize_t w = write(c.errFd, &e, sizeof e);
    _exit(127);
}

}  // namespace sl::capture
