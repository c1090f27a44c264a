#pragma once
// `sightline profile`'s wait for the program's whole process tree (the launcher is its child
// subreaper): reaps each process as it ends, and meanwhile applies --duration and --kill, the
// stop signals sent to the profiler (StopRelay.h: sent on as the program would have had them; a
// second Ctrl+C kills), a capture range's stop-shutdown, the shell's job control (the profiler
// stops and continues with the program, JobControl.h), and shows how far the capture is
// (LiveProgress.h). It sleeps until a child ends, a signal comes or a deadline passes.
#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "capture/launcher/LiveProgress.h"
#include "capture/launcher/ProfileOptions.h"
#include "capture/launcher/ProgressChannel.h"
#include "capture/launcher/StopRelay.h"

namespace sl::capture {

class WakePipe;
class SignalBoardReader;

// How the wait ended.
struct TreeWait {
    std::map<int64_t, std::pair<int64_t, int>> exits;  // pid -> (time, wait status)
    int rootStatus = 0;
    bool rootDone = false, detached = false;
    bool killedByUs = false;      // the profiler ended the tree (duration, range end, SIGKILL)
    bool rootKilledByUs = false;  // ... before the program's own process ended
    int64_t captureEnd = INT64_MAX;  // when the capture stopped early (duration, Ctrl+C)
    // A terminal's stop signal for a program that left the terminal's session: left
    // running, and the profiler ends by that signal, as the program's parent would have.
    int detachedBySignal = 0;
    // A stop signal came from outside (not the terminal's): whoever sent it may kill the
    // profiler next (mpirun, timeout -k), so the report is made out of its reach.
    bool stoppedFromOutside = false;
};

class TreeWaiter {
public:
    struct Setup {
        const ProfileOptions& options;
        ProgressChannel& progress;
        pid_t child;  // the program's first process
        int64_t startMono;
        std::string sessionDir, arenaDir;
        WakePipe& wake;
        const SignalBoardReader& board;
        bool shutdownAtRangeEnd;  // --capture-range-end stop-shutdown or repeat-shutdown:N
        // Whether the capture range's end should end the program now (stop-shutdown: the
        // first end; repeat-shutdown:N: the N-th).
        std::function<bool()> rangesDone;
        std::function<void(const std::string&)> say;
    };
    explicit TreeWaiter(Setup setup);
    TreeWaiter(const TreeWaiter&) = delete;
    TreeWaiter& operator=(const TreeWaiter&) = delete;
    // Until no process of the tree is left (or the capture ends with the program running on:
    // --kill=none, --wait=primary, the terminal's stop for a program that left its session).
    TreeWait wait();

private:
    // Each step of one turn of the wait; true: the wait ends here.
    bool actOnStopSignals(int64_t now);
    void actOnRangeEnd(int64_t now);
    bool actOnDuration(int64_t now);
    void actOnKillDeadline(int64_t now);
    bool reaped(pid_t pid, int status);
    // The program's first process ended.
    bool firstProcessEnded(int status);

    const ProfileOptions& m_o;
    const pid_t m_child;
    WakePipe& m_wake;
    const SignalBoardReader& m_board;
    const bool m_shutdownAtRangeEnd;
    const std::function<bool()> m_rangesDone;
    const std::function<void(const std::string&)> m_say;
    const int64_t m_durationEnd;  // INT64_MAX without --duration
    LiveProgress m_progress;
    StopRelay m_relay;
    TreeWait m_w;
    bool m_stopped = false;          // a stop, the duration or a range's end ended the capture
    bool m_stopBySignal = false;     // by a stop signal (not --duration, not a range's end)
    bool m_durationReached = false;
    bool m_treeGone = false;         // -x false: every process has ended, the recording goes on
    sig_atomic_t m_handledStops = 0;  // stop signals acted on (a second one kills)
    uint64_t m_caughtSignalsSaid = 0;  // sayCaughtSignals's, by number
    int64_t m_killDeadline = INT64_MAX;
    int64_t m_firstStopAt = 0;  // when the latest stop signal was acted on
    int64_t m_lastStopAt = 0;   // when the profiler had it (g_stopAtNs)
    // The processes sent a stop have 5 s to end once the first process has; those that had it
    // or were told to stop by it are waited for as the first process is (a worker's save takes
    // what it takes: a review found one SIGKILLed mid-save).
    bool m_stragglerDeadline = false;  // a stop sent on: 5 s for the rest once the root ends
    bool m_deadlineForSent = false;    // the deadline kills those sent the stop, not the tree
};

}  // namespace sl::capture
