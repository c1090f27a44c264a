#include "capture/launcher/TreeWaiter.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "capture/common/Clock.h"
#include "capture/launcher/JobControl.h"
#include "capture/launcher/LauncherGuards.h"
#include "capture/launcher/LauncherSignals.h"
#include "capture/launcher/ProcTree.h"
#include "capture/launcher/SignalBoardReader.h"

namespace sl::capture {
namespace {
// The longest the wait sleeps without a wake-up (a child's end, a signal, a deadline): what a
// lost one could cost, not a polling interval.
constexpr int64_t kLongestWaitNs = 250'000'000;
// A stop signal this soon after the first is the same stop sent twice (by `timeout`: to us,
// then to its group), not a user's second Ctrl+C, which comes later than a person can type.
constexpr int64_t kSameStopNs = 200'000'000;
// What the processes still running after a stop, a duration's signal or a range's end have
// before SIGKILL, once the first process has ended.
constexpr int64_t kGraceNs = 5'000'000'000;
}  // namespace

using namespace launcher_signals;

TreeWaiter::TreeWaiter(Setup s)
    : m_o(s.options),
      m_child(s.child),
      m_wake(s.wake),
      m_board(s.board),
      m_shutdownAtRangeEnd(s.shutdownAtRangeEnd),
      m_rangesDone(std::move(s.rangesDone)),
      m_say(std::move(s.say)),
      m_durationEnd(m_o.durationNs > 0 ? s.startMono + m_o.delayNs + m_o.durationNs : INT64_MAX),
      m_progress(m_o, s.progress, s.startMono, s.sessionDir, s.arenaDir),
      m_relay(s.child, s.board, m_say) {}

TreeWait TreeWaiter::wait() {
    g_holdingSignals = 1;
    while (true) {
        const int64_t now = nowNs();
        m_progress.update(now);
        sayCaughtSignals(m_say, m_caughtSignalsSaid);
        m_relay.sendOnHeldSignals();
        if (actOnStopSignals(now)) break;
        actOnRangeEnd(now);
        if (actOnDuration(now)) break;
        actOnKillDeadline(now);
        if (g_continued) {
            g_continued = 0;
            if (!m_w.rootDone) continueIfStillStopped(m_child);
        }
        int st = 0;
        const pid_t r = waitpid(-1, &st, WNOHANG | __WALL | WUNTRACED);
        if (r > 0) {
            if (reaped(r, st)) break;
            continue;
        }
        // -x false: the tree has ended but the recording goes on until --duration.
        const bool recordOn = r < 0 && errno == ECHILD && !m_o.stopOnExit && !m_stopped &&
                              m_durationEnd != INT64_MAX && !g_stopSignal;
        if (r < 0 && errno == ECHILD && !recordOn) break;
        m_treeGone = m_treeGone || recordOn;
        // Asleep until a child ends, a signal comes or the next deadline; the cap only bounds
        // what a lost wake-up could cost.
        int64_t until = std::min(now + kLongestWaitNs, m_progress.nextUpdate());
        if (!m_durationReached) until = std::min(until, m_durationEnd);
        until = std::min(until, m_killDeadline);
        m_wake.wait(until - nowNs());
    }
    g_holdingSignals = 0;  // from here on sent at once: nothing would send a held one on
    m_relay.sendOnHeldSignals();  // the capture ended with the program running on (--kill=none, a new session)
    m_progress.finish(m_w.exits);
    return std::move(m_w);
}

bool TreeWaiter::actOnStopSignals(int64_t now) {
    if (g_stopSignal && !m_stopped) {
        m_stopped = true;
        m_stopBySignal = true;
        m_handledStops = g_stopCount;
        const int sig = g_stopSignal;
        const pid_t session = getsid(m_child);
        if (g_stopFromTerminal && session >= 0 && session != getsid(0)) {
            // The program left the terminal's session (setsid(1), which under the profiler
            // is no group leader and so does not fork first): the terminal's signal would
            // not reach it without the profiler either, but the job it was meant for, the
            // program's parent, would end by it. The capture ends there, the program runs
            // on (as --kill=none), and the profiler ends by the signal. It was sent on, and
            // killed the program that had left the terminal.
            m_say("received " + signalName(sig) + " from the terminal, which the program left (a new "
                  "session): ending the capture; the program keeps running");
            m_w.captureEnd = now;
            m_w.detached = true;
            m_w.detachedBySignal = sig;
            return true;
        }
        // The capture goes on while the program winds down (its clean-up, a shutdown hook
        // are recorded): the session ends when the tree does, not here.
        if (m_relay.passOn(sig, "stopping the capture when the program ends (again to kill it, "
                                "unless it handles this one)", m_w.rootDone))
            m_w.stoppedFromOutside = true;
        // No deadline while the program's first process lives: one that saves its work on
        // Ctrl+C or SIGTERM (a training script's checkpoint, a job in its grace period)
        // takes as long as it takes, as without the profiler. What it leaves running that
        // ignores the signal (a script's background job) gets 5 s after it, then SIGKILL, so
        // that the capture ends.
        m_stragglerDeadline = true;
        if (m_w.rootDone && !m_relay.sentTo().empty()) {
            m_killDeadline = now + kGraceNs;
            m_deadlineForSent = true;
        }
        m_firstStopAt = now;
        m_lastStopAt = g_stopAtNs.load();
    } else if (m_stopped && g_stopCount > m_handledStops && m_stopBySignal &&
               programHandledAStop(m_board, m_lastStopAt)) {
        // The program handled the last stop signal and runs on (a JVM's thread dump on
        // SIGQUIT, a server's reload on SIGHUP, a REPL's KeyboardInterrupt, "press Ctrl+C
        // again"): this one is its own as well, as without the profiler. It was taken as
        // the user's second Ctrl+C and killed the program, shutdown hooks and all.
        m_handledStops = g_stopCount;
        if (m_relay.passOn(g_stopSignal, "the program handled the last one and runs on", m_w.rootDone))
            m_w.stoppedFromOutside = true;
        m_firstStopAt = now;
        m_lastStopAt = g_stopAtNs.load();
    } else if (m_stopped && g_stopCount > m_handledStops && now - m_firstStopAt < kSameStopNs) {
        // The same stop, delivered twice: `timeout` signals its child (us), then its process
        // group (us again, and the program). Killing the program for it lost its clean-up.
        // (A program that handles it is sent it again above: the board spares a process
        // that had the group's copy, and two close stops reached a REPL as two.)
        m_handledStops = g_stopCount;
    } else if (m_stopped && g_stopCount > m_handledStops) {
        // A second Ctrl+C: the user does not want to wait for the program to wind down.
        m_handledStops = g_stopCount;
        m_say("received a second stop signal: killing the program (SIGKILL)");
        m_w.killedByUs = true;
        killTree(SIGKILL);
        m_killDeadline = INT64_MAX;
    }
    return false;
}

void TreeWaiter::actOnRangeEnd(int64_t now) {
    if (m_stopped || !g_rangeEnded || !m_shutdownAtRangeEnd) return;
    g_rangeEnded = 0;
    if (!m_rangesDone()) return;
    m_stopped = true;
    m_say((m_o.captureRange == CaptureRange::Nvtx
               ? "the NVTX capture range '" + m_o.nvtxRange + "' ended"
               : std::string("the cudaProfilerStart/Stop capture range ended")) +
          ": ending the program (" +
          (m_o.rangeEnd == CaptureRangeEnd::RepeatShutdown ? "repeat-shutdown" : "stop-shutdown") +
          ")");
    m_w.killedByUs = true;
    killTree(killSignalOf(m_o) ? killSignalOf(m_o) : SIGTERM);
    m_killDeadline = now + kGraceNs;
    m_deadlineForSent = false;
}

// --duration applies after a stop signal too: the capture goes on while the program winds down
// or runs on after handling it, and ends at the duration all the same.
bool TreeWaiter::actOnDuration(int64_t now) {
    if ((m_stopped && !m_stopBySignal) || m_durationReached || now < m_durationEnd) return false;
    m_stopped = true;
    m_durationReached = true;
    m_w.captureEnd = now;
    if (m_treeGone) return true;  // -x false: the recording ran on after the tree to here
    if (m_o.kill == KillMode::None) {
        m_say("duration reached: the program keeps running (--kill=none)");
        m_w.detached = true;
        return true;
    }
    m_say("duration reached: sending " + signalName(killSignalOf(m_o)));
    m_w.killedByUs = true;
    killTree(killSignalOf(m_o));
    m_killDeadline = now + kGraceNs;
    m_deadlineForSent = false;
    return false;
}

void TreeWaiter::actOnKillDeadline(int64_t now) {
    if (now < m_killDeadline) return;
    m_w.killedByUs = true;
    if (m_deadlineForSent)
        m_relay.killThoseSentIt();  // what had the stop or was told is waited for
    else
        killTree(SIGKILL);
    m_killDeadline = INT64_MAX;
    m_deadlineForSent = false;
}

bool TreeWaiter::reaped(pid_t pid, int status) {
    if (WIFSTOPPED(status)) {
        // The shell sees the profiler: it stops with the program (JobControl.h). Other
        // processes of the tree stopping are theirs: the shell does not see them either. A
        // stop that is over was the group's, ours included (SIGTTIN from the terminal,
        // which the profiler does not catch), and the shell's fg has ended it already.
        // SIGTTOU of the program's own write under tostop went to the group: the profiler,
        // which blocks it for its own lines, stops as it did before (the shell says
        // "Stopped (tty output)" and fg continues both), in the background too.
        if (pid == m_child && isStopped(m_child) &&
            (inTerminalForeground() || (WSTOPSIG(status) == SIGTTOU && tookGroupOutputStop())))
            stopAsTheProgramDid(WSTOPSIG(status));
        return false;
    }
    m_w.exits[pid] = {nowNs(), status};
    return pid == m_child && firstProcessEnded(status);
}

bool TreeWaiter::firstProcessEnded(int status) {
    g_programRoot = 0;  // reaped: its pid may be another process's now
    m_w.rootStatus = status;
    m_w.rootDone = true;
    m_w.rootKilledByUs = m_w.killedByUs;
    if (m_relay.firstProcessEnded(status)) m_stragglerDeadline = false;
    if (m_stragglerDeadline && m_killDeadline == INT64_MAX && !m_relay.sentTo().empty()) {
        m_killDeadline = nowNs() + kGraceNs;
        m_deadlineForSent = true;
    }
    // --wait=primary: the program's end is the capture's; re-parented descendants run on
    // untraced.
    if (!m_o.waitAll && !m_stopped) {
        m_w.captureEnd = nowNs();
        m_w.detached = !descendantsOf(getpid()).empty();
        return true;
    }
    return false;
}

}  // namespace sl::capture
