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
//
// A handler the program installs for one of the signal board's signals (SignalBoard.h: SIGTERM,
// SIGINT, SIGHUP, ...) runs behind a trampoline of ours, installed with the program's own mask
// and flags: it notes the delivery for the launcher, then calls the program's handler with the
// same arguments. The launcher then knows that a signal sent to the whole group from outside
// reached the program already, and does not send it a second copy.
#include <signal.h>

#include <atomic>

#include "capture/common/SignalBoard.h"
#include "capture/inject/InjectCommon.h"
#include "capture/inject/OpenCalls.h"
#include "capture/inject/SignalDeliveries.h"

namespace sl::inject {
namespace {

// The signals whose default action ends the process (and so would lose unflushed records).
// SIGXFSZ: a program past its file-size limit (whose buffers may be on the heap then, with no
// arena to salvage); SIGXCPU likewise past its CPU limit.
constexpr int kFlushSignals[] = {SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,    SIGABRT, SIGTERM,
                                 SIGINT,  SIGHUP,  SIGQUIT, SIGPIPE,   SIGALRM, SIGUSR1,
                                 SIGUSR2, SIGXFSZ, SIGXCPU, SIGVTALRM, SIGPROF, SIGSYS};
constexpr int kMaxSignal = 65;
constexpr int kSaRestorer = 0x04000000;  // the kernel's SA_RESTORER (x86-64, arm64)

// What the trampoline calls: a handler's address and flags, published whole (a pointer to
// one of a few records, swapped atomically) so that a delivery on one thread while another
// changes the disposition reads one action or the other, never the new address with the old
// flags (an SA_SIGINFO handler's flags with SIG_IGN's address jumped to address 1).
struct Target {
    void* fn;
    int flags;
};
constexpr int kTargetsPerSignal = 8;

struct Slot {
    struct sigaction view;  // the program's disposition, as it set or found it
    bool managed;           // the view is kept here (set once at load)
    Target targets[kTargetsPerSignal];
    std::atomic<uint32_t> nextTarget;
    std::atomic<const Target*> target;  // the trampoline's, once the program set a handler
};
Slot g_slots[kMaxSignal];

// Async-signal-safe (lock-free): a record is reused only after kTargetsPerSignal later calls.
void publishTarget(int sig, const struct sigaction& a) {
    Slot& s = g_slots[sig];
    Target& t = s.targets[s.nextTarget.fetch_add(1) % kTargetsPerSignal];
    t.fn = reinterpret_cast<void*>(a.sa_handler);
    t.flags = a.sa_flags;
    s.target.store(&t, std::memory_order_release);
}

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
// Resolved at load, before any handler can run: dlsym is not async-signal-safe.
SigactionFn g_realSigaction = nullptr;

// SA_SIGINFO does not matter for SIG_DFL and SIG_IGN: the kernel takes the address alone (a
// program resets to the default through the struct its handler was installed with).
bool isDefault(const struct sigaction& a) {
    return a.sa_handler == SIG_DFL;
}
bool isHandler(const struct sigaction& a) {
    return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
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

// In front of the program's handler of a board signal: notes the delivery, then runs the
// program's handler as the kernel would have (the same signal, siginfo and context; its mask
// and flags are the installed ones). The target is read once, as the signal came: a program
// changing its disposition meanwhile gets one action or the other, as with the kernel's own.
void countingHandler(int sig, siginfo_t* info, void* context) {
    noteSignalDelivered(sig, info);
    const Target* t = g_slots[sig].target.load(std::memory_order_acquire);
    if (!t) return;
    const Target target = *t;
    if ((target.flags & SA_RESETHAND) && !ProcessWriter::inVforkChild()) {
        // The kernel has put SIG_DFL back as it delivered this one, flags, mask and restorer
        // kept: so does the view, with our flush handler where the default ends the process.
        // (A vfork child's dispositions are its own; its views are its parent's memory.)
        struct sigaction dfl = g_slots[sig].view;
        dfl.sa_handler = SIG_DFL;
        publishTarget(sig, dfl);
        g_slots[sig].view = dfl;
        installFlushHandler(sig);
    }
    if (target.fn == reinterpret_cast<void*>(SIG_DFL)) {
        flushHandler(sig, info, context);  // changed to the default since: it ends the process
    } else if (target.fn == reinterpret_cast<void*>(SIG_IGN)) {
        return;
    } else if (target.flags & SA_SIGINFO) {
        reinterpret_cast<void (*)(int, siginfo_t*, void*)>(target.fn)(sig, info, context);
    } else {
        reinterpret_cast<void (*)(int)>(target.fn)(sig);
    }
}

bool onBoard(int sig) {
    return capture::signalBoardIndex(sig) >= 0;
}

// The program's handler for a board signal, behind countingHandler: its mask and flags as given.
int installCountingHandler(int sig, const struct sigaction& program) {
    claimSignalBoardEntry();
    // Published before the kernel has the trampoline: a signal right after it runs this
    // handler, as it would the program's own once its sigaction returned.
    publishTarget(sig, program);
    struct sigaction sa = program;
    sa.sa_sigaction = countingHandler;
    sa.sa_flags = program.sa_flags | SA_SIGINFO;
    return g_realSigaction(sig, &sa, nullptr);
}

bool isOurs(const struct sigaction& a) {
    return (a.sa_flags & SA_SIGINFO) &&
           (a.sa_sigaction == flushHandler || a.sa_sigaction == countingHandler);
}

// In a vfork child the views are its parent's (shared memory), so they stay as they are: the
// child's dispositions are the kernel's, and our handler in them reads as the view it stands for.
int vforkChildSigaction(int sig, const struct sigaction* act, struct sigaction* oldact) {
    struct sigaction current {};
    if (g_realSigaction(sig, act, &current) != 0) return -1;
    if (oldact) *oldact = isOurs(current) ? g_slots[sig].view : current;
    return 0;
}

int virtualSigaction(int sig, const struct sigaction* act, struct sigaction* oldact) {
    if (!g_realSigaction) g_realSigaction = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
    if (sig <= 0 || sig >= kMaxSignal || !g_slots[sig].managed)
        return g_realSigaction(sig, act, oldact);
    if (ProcessWriter::inVforkChild()) return vforkChildSigaction(sig, act, oldact);
    const struct sigaction previous = g_slots[sig].view;
    if (act) {
        const int r = isDefault(*act)                      ? installFlushHandler(sig)
                      : isHandler(*act) && onBoard(sig)    ? installCountingHandler(sig, *act)
                                                           : g_realSigaction(sig, act, nullptr);
        if (r != 0) return r;
        g_slots[sig].view = *act;
        // As the kernel keeps it: SIGKILL and SIGSTOP cannot be blocked, and a sigfillset()
        // mask reads back without them.
        sigdelset(&g_slots[sig].view.sa_mask, SIGKILL);
        sigdelset(&g_slots[sig].view.sa_mask, SIGSTOP);
        // Read back, glibc's own sigaction reports the restorer it installs with every action
        // (the kernel's SA_RESTORER flag, which glibc's headers do not name, and its address):
        // so does the view.
        struct sigaction real {};
        if (g_realSigaction(sig, nullptr, &real) == 0 && (real.sa_flags & kSaRestorer)) {
            g_slots[sig].view.sa_flags |= kSaRestorer;
            g_slots[sig].view.sa_restorer = real.sa_restorer;
        }
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
        if (isDefault(s.view) || (isHandler(s.view) && onBoard(sig)))
            g_realSigaction(sig, &s.view, nullptr);
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
