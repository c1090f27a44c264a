#include "capture/launcher/LauncherSignals.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "capture/common/Clock.h"
#include "capture/launcher/ProcTree.h"

namespace sl::capture {

namespace launcher_signals {

volatile sig_atomic_t g_stopSignal = 0;
static volatile sig_atomic_t g_sessionLeader = 0;  // the profiler leads its session (getsid)
volatile sig_atomic_t g_stopFromTerminal = 0;
volatile sig_atomic_t g_rangeEnded = 0;
volatile sig_atomic_t g_stopCount = 0;
// When the latest stop signal came (nowNs()), for the signal board (SignalBoardReader.h).
std::atomic<int64_t> g_stopAtNs{0};
std::atomic<int64_t> g_stopSender{0};  // who sent it (si_pid of a kill()), 0 unknown
static_assert(std::atomic<int64_t>::is_always_lock_free, "used in a signal handler");
// What became of the signals the handlers below did not act on, a bit per signal, for the wait
// to report once each (sayCaughtSignals).
static std::atomic<uint64_t> g_fromProgram{0}, g_sentOn{0}, g_ignored{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "used in a signal handler");
static void noteSignal(std::atomic<uint64_t>& bits, int sig) {
    if (sig > 0 && sig < 64) bits.fetch_or(1ULL << sig);
}
// Sent by a process of the traced tree with kill() or sigqueue(): a signal to its process group
// (a shell's `trap 'kill 0' EXIT`, `kill -- -$$`, `kill -USR2 0`), which reached the program
// too, or a program signalling its parent, which without the profiler is the shell. Either way
// the program runs on as it would without us. Async-signal-safe; keeps errno.
// Sent with kill() or sigqueue() by a process, not raised by the kernel (a terminal, a fault,
// a limit).
static bool sentWithKill(const siginfo_t* info) {
    return info && (info->si_code == SI_USER || info->si_code == SI_QUEUE);
}
static bool sentByTheProgram(const siginfo_t* info) {
    if (!sentWithKill(info) || info->si_pid <= 0) return false;
    const int saved = errno;  // the /proc reads may change it
    const bool below = isDescendantOf(info->si_pid, getpid());
    errno = saved;
    return below;
}
volatile sig_atomic_t g_programRoot = 0;  // the program's first process, once started
// A signal the profiler was started with ignored (SignalHandlers::ignoredAtStart: nohup's
// SIGHUP, a script's background job's SIGINT and SIGQUIT) is no stop for the profiler. Sent to
// it from outside (`kill -INT $!`), or a hang-up of the session it leads, it was meant for the
// program, which inherited SIG_IGN but may have installed a handler (a server's graceful
// shutdown, a reload on SIGHUP): passed on to its first process, as without the profiler.
// Before, it was lost: nothing was installed for it.
static void passOnIgnoredSignal(int sig, const siginfo_t* info) {
    const int saved = errno;
    const bool fromProgram = sentByTheProgram(info);
    const bool forProgram = (sentWithKill(info) && !fromProgram) ||
                            (info && info->si_code == SI_KERNEL && sig == SIGHUP && g_sessionLeader);
    if (forProgram && g_programRoot > 0) {
        kill(static_cast<pid_t>(g_programRoot), sig);
        noteSignal(g_sentOn, sig);
    }  // else the program's own or the terminal's: it had it; ignored, as the profiler was told
    errno = saved;
    WakePipe::notify();
}
static void onStopSignal(int sig, siginfo_t* info, void*) {
    if (SignalHandlers::ignoredAtStart(sig)) return passOnIgnoredSignal(sig, info);
    if (sentByTheProgram(info)) {  // not sent on; the capture goes on
        noteSignal(g_fromProgram, sig);
        WakePipe::notify();
        return;
    }
    // SI_KERNEL: the terminal's (Ctrl+C, Ctrl+\, a hang-up), which it sends to the whole
    // foreground process group: the program, in ours, has it already. Except a hang-up when
    // the profiler leads the terminal's session (ssh -t host sightline ..., tmux new
    // 'sightline ...', xterm -e): the kernel sends that to the session leader alone.
    g_stopFromTerminal = info && info->si_code == SI_KERNEL && !(sig == SIGHUP && g_sessionLeader);
    g_stopSender.store(sentWithKill(info) ? info->si_pid : 0);
    g_stopAtNs.store(nowNs());
    g_stopSignal = sig;
    g_stopCount = g_stopCount + 1;
    WakePipe::notify();
}
// The signals whose default would end the profiler, other than the stop signals above and the
// ones it uses (SIGUSR1, onUser1; SIGCHLD; SIGPIPE, ignored); not the synchronous
// ones a fault or a debugger raises (SIGTRAP, SIGSYS, SIGSEGV, ...), which must not be survived.
static std::vector<int> otherFatalSignals() {
    std::vector<int> s{SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU,
                       SIGXFSZ};
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) s.push_back(sig);
    return s;
}
// SIGUSR1, SIGUSR2 and SIGALRM sent to the profiler from outside with kill(), for the wait to
// send on to the program's first process unless it had it (SignalBoard.h), by board index:
// when the profiler had it (nowNs()), 0 for none.
std::atomic<int64_t> g_heldSince[kBoardSignalCount];
std::atomic<int64_t> g_heldSender[kBoardSignalCount];  // who sent each (si_pid)
volatile sig_atomic_t g_holdingSignals = 0;  // while the wait for the tree can send them on
static void onOtherSignal(int sig, siginfo_t* info, void*) {
    // From the program, it reached the program too (the profiler was killed by it before, and
    // the report lost). Sent to the profiler from outside, it was meant for the program, as
    // without the profiler: sent on to its first process. A signal on the signal board is held
    // for the wait to ask first (sent to the whole group, as Slurm's --signal does, the first
    // process had it, and a trainer's requeue-on-SIGUSR1 handler ran twice); the others at
    // once (real-time signals and sigqueue() queue: one sent on for each). From the kernel (a
    // file size or CPU limit of the profiler's own), it is the profiler's: ignored.
    const int saved = errno;
    const bool userSent = sentWithKill(info);
    const int boardIndex = signalBoardIndex(sig);
    if (sentByTheProgram(info)) {
        noteSignal(g_fromProgram, sig);
    } else if (userSent && g_programRoot > 0 && info->si_code == SI_USER && g_holdingSignals &&
               boardIndex >= kBoardStopSignalCount) {
        g_heldSender[boardIndex].store(info->si_pid);
        g_heldSince[boardIndex].store(nowNs());
        noteSignal(g_sentOn, sig);
    } else if (userSent && g_programRoot > 0) {
        kill(static_cast<pid_t>(g_programRoot), sig);
        noteSignal(g_sentOn, sig);
    } else {
        noteSignal(g_ignored, sig);
    }
    errno = saved;
    WakePipe::notify();
}

// Signals whose default does not end a process: SIGTSTP (Ctrl+Z), SIGWINCH (the terminal's
// size), SIGURG. From the terminal or the program, the program had them, as without the
// profiler; the profiler does not stop for SIGTSTP itself, but when the program does
// (JobControl.h): a program that ignores Ctrl+Z runs on, as a job that is not stopped. Sent to
// the profiler from outside (kill -TSTP <sightline>), they were meant for the program: sent on.
static std::vector<int> passedOnSignals() { return {SIGTSTP, SIGWINCH, SIGURG}; }
static void onPassedOnSignal(int sig, siginfo_t* info, void*) {
    const int saved = errno;
    const bool userSent = sentWithKill(info);
    if (userSent && g_programRoot > 0 && !sentByTheProgram(info)) {
        kill(static_cast<pid_t>(g_programRoot), sig);
        noteSignal(g_sentOn, sig);
    }
    errno = saved;
    WakePipe::notify();
}
// Continued (fg, bg, kill -CONT) after it stopped with the program, or sent SIGCONT alone: the
// wait continues the program if the SIGCONT did not reach it (continueIfStillStopped).
volatile sig_atomic_t g_continued = 0;
static void onContinued(int, siginfo_t* info, void*) {
    if (!sentByTheProgram(info)) g_continued = 1;
    WakePipe::notify();
}
// The signals of faults (SIGSEGV, SIGABRT, SIGSYS, ...). The profiler's own (a fault, abort())
// must end it as before, under the disposition it had (the default's core, a sanitizer's
// report): that disposition is put back and the signal comes again. Sent with kill() from
// outside (`timeout -s ABRT`, a CI job's hang killer asking for a core), they killed the
// profiler, the report lost and the program left running: they were meant for the program,
// and are sent on; the profiler then ends as the program did, with its report. Sent by the
// program to its group, the program had them: the capture goes on.
static std::vector<int> faultSignals() {
    return {SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS};
}
static struct sigaction g_faultPrevious[65];  // by signal number, filled once the handlers are in
static void onFaultSignal(int sig, siginfo_t* info, void*) {
    const int saved = errno;
    const bool sent = sentWithKill(info) &&
                      info->si_pid != getpid();
    if (sent && sentByTheProgram(info)) {
        noteSignal(g_fromProgram, sig);
    } else if (sent && g_programRoot > 0) {
        kill(static_cast<pid_t>(g_programRoot), sig);
        noteSignal(g_sentOn, sig);
    } else {
        sigaction(sig, &g_faultPrevious[sig], nullptr);
        // Blocked in this handler: it comes when the handler returns. A fault (si_code > 0)
        // comes again anyway, from the same instruction.
        if (!info || info->si_code <= 0) raise(sig);
    }
    errno = saved;
    WakePipe::notify();
}

// SIGUSR1: under -c nvtx, from a process of the program, a module saying its capture range
// ended (NvtxInjection.cpp). Otherwise it is a signal like SIGUSR2 (onOtherSignal): sent on
// when it comes from outside (`kill -USR1 <sightline>`: dd prints its progress, a Python
// handler runs); before, it was swallowed in every capture.
static volatile sig_atomic_t g_rangeSignals = 0;
static void onUser1(int sig, siginfo_t* info, void* context) {
    if (g_rangeSignals && sentByTheProgram(info)) {
        g_rangeEnded = 1;
        WakePipe::notify();
        return;
    }
    onOtherSignal(sig, info, context);
}
static void onChildEnded(int) {
    WakePipe::notify();
}

}  // namespace launcher_signals

using namespace launcher_signals;

std::string signalName(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
}
// Reports, once per signal, what the handlers did with the signals they did not act on.
void sayCaughtSignals(const std::function<void(const std::string&)>& say, uint64_t& said) {
    const auto report = [&](std::atomic<uint64_t>& bits, const char* what) {
        const uint64_t fresh = bits.exchange(0) & ~said;
        for (int sig = 1; sig < 64; ++sig) {
            if (!(fresh & (1ULL << sig))) continue;
            said |= 1ULL << sig;
            say("received " + signalName(sig) + what);
        }
    };
    report(g_fromProgram, " from the program (a signal to its process group, which it had too, "
                          "or to its parent, the shell's without the profiler): not sent on; "
                          "the capture goes on until the program ends");
    report(g_sentOn, ": sent on to the program");
    report(g_ignored, " from the kernel: ignored (the profiler's own)");
}

ProfilerSignals::ProfilerSignals(bool rangeSignals)
    : m_reset([rangeSignals] {
          g_stopSignal = 0;
          g_stopFromTerminal = 0;
          g_sessionLeader = getsid(0) == getpid();
          g_stopCount = 0;
          g_stopAtNs = 0;
          g_stopSender = 0;
          g_fromProgram = 0;
          g_sentOn = 0;
          g_ignored = 0;
          for (auto& since : g_heldSince) since = 0;
          for (auto& sender : g_heldSender) sender = 0;
          g_holdingSignals = 0;
          g_rangeEnded = 0;
          g_rangeSignals = rangeSignals;
          g_programRoot = 0;
          g_continued = 0;
          return true;
      }()),
      m_stops({SIGINT, SIGTERM, SIGHUP, SIGQUIT}, onStopSignal, SignalHandlers::KeepIgnored::Yes),
      m_rangeEnd({SIGUSR1}, onUser1,
                 rangeSignals ? SignalHandlers::KeepIgnored::No : SignalHandlers::KeepIgnored::Yes),
      m_others(otherFatalSignals(), onOtherSignal, SignalHandlers::KeepIgnored::Yes),
      m_passedOn(passedOnSignals(), onPassedOnSignal, SignalHandlers::KeepIgnored::Yes),
      m_continued({SIGCONT}, onContinued, SignalHandlers::KeepIgnored::Yes),
      m_faults(faultSignals(), onFaultSignal, SignalHandlers::KeepIgnored::Yes),
      // SA_RESTART: the launcher's other threads' reads and writes go on; their polls and timed
      // waits may return early (EINTR), which each of them handles. The wait wakes when a child
      // stops too (no SA_NOCLDSTOP): the program stopping is the profiler's cue to stop.
      m_childEnded({SIGCHLD}, onChildEnded, SA_RESTART) {
    for (const auto& [sig, action] : m_faults.previous()) g_faultPrevious[sig] = action;
}

std::vector<std::pair<int, struct sigaction>> ProfilerSignals::previous() const {
    std::vector<std::pair<int, struct sigaction>> all;
    for (const SignalHandlers* h :
         {&m_stops, &m_rangeEnd, &m_others, &m_passedOn, &m_continued, &m_faults, &m_childEnded})
        for (const auto& r : h->previous()) all.push_back(r);
    return all;
}

}  // namespace sl::capture
