// Signal dispositions exactly as the program sets and sees them, with the record buffers still
// flushed when a signal ends the process by its default action.
//
// Why: a handler of ours changes the program. Python then sees SIGINT as "not default" at start,
// installs no KeyboardInterrupt handler and its signal.getsignal returns None (multiprocessing's
// forkserver then fails with a TypeError); a signal the program ignored becomes a caught one,
// which exec resets to default, so nohup's children die on SIGHUP.
//
// How: the module keeps the program's own disposition of each signal below (its "view"). While
// the view is SIG_DFL, the module's handler is installed for real: it flushes, restores SIG_DFL
// and re-raises, so the process still ends by the same signal. Any other disposition (a handler,
// SIG_IGN) is installed for real as the program gave it, and the module stays out of the way.
// sigaction() and signal() are interposed: they report and update the view, never our handler.
// Everything here is async-signal-safe (programs call sigaction in handlers).
#include <signal.h>

#include "capture/inject/InjectCommon.h"
#include "capture/inject/OpenCalls.h"

namespace sl::inject {
namespace {

// The signals whose default action ends the process (and so would lose unflushed records).
// SIGXFSZ: a program past its file-size limit (whose buffers may be on the heap then, with no
// arena to salvage); SIGXCPU likewise past its CPU limit.
constexpr int kFlushSignals[] = {SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,    SIGABRT, SIGTERM,
                                 SIGINT,  SIGHUP,  SIGQUIT, SIGPIPE,   SIGALRM, SIGUSR1,
                                 SIGUSR2, SIGXFSZ, SIGXCPU, SIGVTALRM, SIGPROF, SIGSYS};
constexpr int kMaxSignal = 65;

struct Slot {
    struct sigaction view;  // the program's disposition, as it set or found it
    bool managed;           // the view is kept here (set once at load)
};
Slot g_slots[kMaxSignal];

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
// Resolved at load, before any handler can run: dlsym is not async-signal-safe.
SigactionFn g_realSigaction = nullptr;

bool isDefault(const struct sigaction& a) {
    return !(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_DFL;
}

void flushHandler(int sig, siginfo_t*, void*) {
    // Only installed while the program's disposition is SIG_DFL: the process is about to end.
    // A vfork child has nothing to flush (and the state is its parent's).
    if (!ProcessWriter::inVforkChild()) {
        g_osrtOn.store(false);
        recordOpenCalls(capture::nowNs(), true);  // this thread's too, when the signal cut it short
        runFinalFlushHooks(capture::ExitHow::Signal);
        ProcessWriter::shutdown(capture::ExitHow::Signal, 0, sig);
    }
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    g_realSigaction(sig, &dfl, nullptr);
    // Sent again to this thread while it is still blocked here, and delivered, now with the
    // default action, as this handler returns: the process ends by the same signal at the
    // point it was interrupted, so a core shows the program's own stack (at the faulting
    // instruction for a fault), not this handler's frames above it (a user's gdb showed
    // flushHandler above main when the signal was unblocked and sent from here). Returning
    // alone is not enough: a SIGBUS of a memory failure (BUS_MCEERR_AO) or a signal the
    // process queued to itself would not come again.
    syscall(SYS_tgkill, syscall(SYS_getpid), syscall(SYS_gettid), sig);
}

int installFlushHandler(int sig) {
    struct sigaction sa {};
    sa.sa_sigaction = flushHandler;
    // SA_ONSTACK: a stack overflow's SIGSEGV runs on the program's alternate stack, if it has one.
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    return g_realSigaction(sig, &sa, nullptr);
}

// In a vfork child the views are its parent's (shared memory), so they stay as they are: the
// child's dispositions are the kernel's, and our handler in them reads as the view it stands for.
int vforkChildSigaction(int sig, const struct sigaction* act, struct sigaction* oldact) {
    struct sigaction current {};
    if (g_realSigaction(sig, act, &current) != 0) return -1;
    if (oldact)
        *oldact = (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == flushHandler
                      ? g_slots[sig].view
                      : current;
    return 0;
}

int virtualSigaction(int sig, const struct sigaction* act, struct sigaction* oldact) {
    if (!g_realSigaction) g_realSigaction = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
    if (sig <= 0 || sig >= kMaxSignal || !g_slots[sig].managed)
        return g_realSigaction(sig, act, oldact);
    if (ProcessWriter::inVforkChild()) return vforkChildSigaction(sig, act, oldact);
    const struct sigaction previous = g_slots[sig].view;
    if (act) {
        const int r = isDefault(*act) ? installFlushHandler(sig) : g_realSigaction(sig, act, nullptr);
        if (r != 0) return r;
        g_slots[sig].view = *act;
    }
    if (oldact) *oldact = previous;
    return 0;
}

// glibc's signal(): BSD semantics (the handler stays, interrupted calls restart).
sighandler_t signalVia(int sig, sighandler_t handler, int flags) {
    struct sigaction sa {}, old {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    if (!(flags & SA_NODEFER) && sig > 0 && sig < kMaxSignal) sigaddset(&sa.sa_mask, sig);
    sa.sa_flags = flags;
    if (virtualSigaction(sig, &sa, &old) != 0) return SIG_ERR;
    return (old.sa_flags & SA_SIGINFO) ? reinterpret_cast<sighandler_t>(old.sa_sigaction)
                                       : old.sa_handler;
}

}  // namespace

void installSignalHandlers() {
    g_realSigaction = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
    if (!g_realSigaction) return;
    for (int sig : kFlushSignals) {
        Slot& s = g_slots[sig];
        if (g_realSigaction(sig, nullptr, &s.view) != 0) continue;
        s.managed = true;
        // Ignored (nohup) or handled signals stay exactly as they are.
        if (isDefault(s.view)) installFlushHandler(sig);
    }
}

void uninstallSignalHandlers() {
    if (!g_realSigaction) return;
    for (int sig : kFlushSignals) {
        Slot& s = g_slots[sig];
        if (!s.managed) continue;
        if (isDefault(s.view)) g_realSigaction(sig, &s.view, nullptr);
        s.managed = false;  // the kernel's dispositions are the program's views now
    }
}

}  // namespace sl::inject

SL_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* oldact) {
    return sl::inject::virtualSigaction(sig, act, oldact);
}

SL_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
    return sl::inject::signalVia(sig, handler, SA_RESTART);
}

SL_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler) {
    return sl::inject::signalVia(sig, handler, SA_RESTART);
}

// System V semantics: the handler is reset to default when it runs, and not blocked in it.
SL_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler) {
    return sl::inject::signalVia(sig, handler, SA_RESETHAND | SA_NODEFER);
}

SL_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t handler) {
    return sl::inject::signalVia(sig, handler, SA_RESETHAND | SA_NODEFER);
}
