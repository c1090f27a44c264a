// sigwait, sigwaitinfo and sigtimedwait: a signal a program takes by waiting for it (a threaded
// server's signal thread, Python's signal.sigwait) runs no handler, so the signal board
// (capture/common/SignalBoard.h) never showed it: a stop signal sent to the whole group from
// outside reached such a program twice, once from the sender and once sent on by the profiler.
// The wait notes what it took, as the trampoline does for a handler. Not covered: signalfd
// (the signal is read from a descriptor).
//
// The calls behave as glibc's: the same results, errno and retries (sigwait never fails with
// EINTR). Each is glibc's own function underneath, found with RTLD_NEXT.
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>

#include "capture/common/Export.h"
#include "capture/common/SignalBoard.h"
#include "capture/inject/SignalDeliveries.h"

namespace {

using SigwaitinfoFn = int (*)(const sigset_t*, siginfo_t*);
using SigtimedwaitFn = int (*)(const sigset_t*, siginfo_t*, const struct timespec*);

// Claims the process's board entry when the set holds a board signal (as installing a handler
// for one does).
void claimFor(const sigset_t* set) {
    if (!set) return;
    for (int sig : sl::capture::kBoardSignals)
        if (sigismember(set, sig) == 1) return sl::inject::claimSignalBoardEntry();
}

int timedWait(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
    static const auto real = reinterpret_cast<SigtimedwaitFn>(dlsym(RTLD_NEXT, "sigtimedwait"));
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    claimFor(set);
    siginfo_t own;
    siginfo_t* got = info ? info : &own;
    const int sig = real(set, got, timeout);
    if (sig > 0) sl::inject::noteSignalDelivered(sig, got);
    return sig;
}

}  // namespace

SL_EXPORT int sigtimedwait(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
    return timedWait(set, info, timeout);
}

SL_EXPORT int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
    return timedWait(set, info, nullptr);
}

SL_EXPORT int sigwait(const sigset_t* set, int* sig) {
    // glibc's: sigtimedwait without a timeout, again after EINTR; the error as the result.
    int got;
    do {
        got = timedWait(set, nullptr, nullptr);
    } while (got < 0 && errno == EINTR);
    if (got < 0) return errno;
    *sig = got;
    return 0;
}
