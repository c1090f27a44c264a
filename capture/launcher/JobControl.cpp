#include "capture/launcher/JobControl.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "capture/common/Clock.h"
#include "capture/launcher/ProcTree.h"

namespace sl::capture {

namespace {
// How long a SIGCONT to a process group takes to reach all of it: the sender's one kill() call
// continues each of them, within microseconds; 20 ms, looked at each millisecond, allows for
// a loaded machine.
constexpr int64_t kGroupContinueNs = 20'000'000;
}  // namespace

void stopAsTheProgramDid(int sig) {
    // SIGTSTP is the profiler's own (a Ctrl+Z to a program that ignores it must not stop the
    // job); the others have their default action already. SIGSTOP cannot be caught.
    struct sigaction stop {}, ours {};
    stop.sa_handler = SIG_DFL;
    sigemptyset(&stop.sa_mask);
    const bool catchable = sig != SIGSTOP;
    if (catchable) sigaction(sig, &stop, &ours);
    // To this thread: it stops the whole process before raise() returns, and the handler is
    // back only after the continue. (In an orphaned process group the kernel drops SIGTSTP,
    // SIGTTIN and SIGTTOU: nothing stops, as it would not without the profiler.)
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, &old);
    raise(sig);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (catchable) sigaction(sig, &ours, nullptr);
}

namespace {
bool g_ttouWasBlocked = false;
bool g_ttouBlocked = false;
}  // namespace

void blockTerminalOutputStops() {
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGTTOU);
    if (pthread_sigmask(SIG_BLOCK, &set, &old) != 0) return;
    g_ttouWasBlocked = sigismember(&old, SIGTTOU) == 1;
    g_ttouBlocked = true;
}

void restoreTerminalOutputStops() {
    if (!g_ttouBlocked || g_ttouWasBlocked) return;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTTOU);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

bool tookGroupOutputStop() {
    if (!g_ttouBlocked || g_ttouWasBlocked) return false;
    sigset_t pending, only;
    if (sigpending(&pending) != 0 || sigismember(&pending, SIGTTOU) != 1) return false;
    sigemptyset(&only);
    sigaddset(&only, SIGTTOU);
    const timespec none{0, 0};
    return sigtimedwait(&only, nullptr, &none) == SIGTTOU;
}

bool inTerminalForeground() {
    for (int fd = 0; fd <= 2; ++fd) {
        const pid_t foreground = tcgetpgrp(fd);
        if (foreground > 0) return foreground == getpgrp();
    }
    return false;
}

bool continueIfStillStopped(pid_t root) {
    if (root <= 0) return false;
    const int64_t until = nowNs() + kGroupContinueNs;
    while (isStopped(root)) {
        if (nowNs() >= until) return kill(root, SIGCONT) == 0;
        const timespec step{0, 1'000'000};
        nanosleep(&step, nullptr);
    }
    return false;
}

}  // namespace sl::capture
