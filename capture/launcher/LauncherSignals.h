#pragma once
// The signals `sightline profile` takes while the program runs. The handlers act at once only
// where nothing can wait (a signal from outside meant for the program is sent on to its first
// process; the profiler's own fault ends it under its old disposition) and otherwise note what
// came, for the wait for the tree (TreeWaiter.h) to act on, and wake it (WakePipe).
// The notes are async-signal-safe: sig_atomic_t and lock-free atomics.
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "capture/common/SignalBoard.h"
#include "capture/launcher/LauncherGuards.h"

namespace sl::capture {

namespace launcher_signals {
// The latest stop signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) acted on as a stop, and how many came.
extern volatile sig_atomic_t g_stopSignal;
extern volatile sig_atomic_t g_stopCount;
// It was the terminal's (SI_KERNEL): the foreground group, the program included, had it too.
extern volatile sig_atomic_t g_stopFromTerminal;
// When the latest stop signal came (nowNs()), for the signal board (SignalBoardReader.h), and
// who sent it (si_pid of a kill(), 0 unknown).
extern std::atomic<int64_t> g_stopAtNs;
extern std::atomic<int64_t> g_stopSender;
// The program's first process once started (signals from outside are sent on to it); 0 once
// it was reaped (its pid may be another process's then).
extern volatile sig_atomic_t g_programRoot;
// SIGUSR1 from the program under a capture range: a module saying its range ended.
extern volatile sig_atomic_t g_rangeEnded;
// SIGCONT after the profiler stopped with the program: the wait continues the program.
extern volatile sig_atomic_t g_continued;
// SIGUSR1, SIGUSR2 and SIGALRM from outside, by board index, held while g_holdingSignals for
// the wait to send on to the first process unless it had them (SignalBoard.h): when the
// profiler had each (nowNs(), 0 for none) and who sent it.
extern std::atomic<int64_t> g_heldSince[kBoardSignalCount];
extern std::atomic<int64_t> g_heldSender[kBoardSignalCount];
extern volatile sig_atomic_t g_holdingSignals;
}  // namespace launcher_signals

// "SIGTERM", or "signal 70" for one without a name.
std::string signalName(int sig);

// Says, once per signal, what the handlers did with the signals they did not act on as stops
// (from the program: not sent on; sent on; the kernel's: ignored). `said` holds those said.
void sayCaughtSignals(const std::function<void(const std::string&)>& say, uint64_t& said);

// Every handler of the profiler while the program runs, installed together (the notes above
// reset first) and put back together when the guard ends, on every path out of Launcher::run.
// A WakePipe must exist before: the handlers write to it.
class ProfilerSignals {
public:
    // rangeSignals: a capture range is set, so SIGUSR1 from the program is a module's "range
    // ended" (installed over SIG_IGN), not a signal to send on.
    explicit ProfilerSignals(bool rangeSignals);
    ProfilerSignals(const ProfilerSignals&) = delete;
    ProfilerSignals& operator=(const ProfilerSignals&) = delete;
    // The dispositions the program gets back in the forked child before its exec.
    std::vector<std::pair<int, struct sigaction>> previous() const;

private:
    bool m_reset;  // first: the notes are cleared before any handler is in
    SignalHandlers m_stops, m_rangeEnd, m_others, m_passedOn, m_continued, m_faults, m_childEnded;
};

}  // namespace sl::capture
