#pragma once
// A stop signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) sent to `sightline` from outside (kill -TERM
// <sightline>, timeout, mpirun, a batch system) was meant for the program, and is sent on as
// it would have reached it without the profiler (decision 76): to its first process, and, when
// that one has ended, to the processes of the tree it left running (a shell script's background
// jobs, which would otherwise keep the capture open), except those that had it already (sent to
// the whole group, or passed on by their parent) or were told to stop by it with another signal
// of the board, and their descendants. It went to every process at once before, which pre-empted
// a supervisor's own orderly stop of its workers (mpirun, a Perl or Python supervisor passing
// SIGTERM on: each worker had it twice). The terminal's stop reached the program's group itself
// (unless the program left the profiler's group: then it is sent on to each of its processes,
// as the terminal's would have reached them).
// SIGUSR1, SIGUSR2 and SIGALRM from outside, held by the handlers (LauncherSignals.h), go to
// the first process unless it had them. Used by the wait for the tree, on its thread.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sl::capture {

class SignalBoardReader;

class StopRelay {
public:
    StopRelay(pid_t child, const SignalBoardReader& board,
              std::function<void(const std::string&)> say);

    // A stop signal acted on; `what` says what the capture does next. Returns false for the
    // terminal's, which the program had in its group (nothing sent), true when it was sent on
    // (to the first process while it lives, else to the whole tree).
    bool passOn(int sig, const std::string& what, bool rootDone);
    // The first process ended (its wait status): what it left running has the stop sent on to
    // its first process, unless it had it or was told. Returns true when the first process
    // handled that stop and ended normally: the stop was its own to act on, nothing is sent
    // and nothing is killed later.
    bool firstProcessEnded(int rootStatus);
    // The held SIGUSR1, SIGUSR2 and SIGALRM from outside, to the first process (SignalBoard.h).
    void sendOnHeldSignals();
    // The processes a stop was sent to (which get 5 s, then SIGKILL, once the first has ended).
    const std::vector<int64_t>& sentTo() const { return m_sentTo; }
    // SIGKILL to those of sentTo() still running, and their descendants (said with a count);
    // what had the stop already or was told is left to end as it does.
    void killThoseSentIt();

private:
    const pid_t m_child;
    const SignalBoardReader& m_board;
    const std::function<void(const std::string&)> m_say;
    int m_restSignal = 0;       // sent on to the first process; the rest get it when it ends
    int64_t m_restSinceNs = 0;  // when the profiler had that one
    int64_t m_restSender = 0;   // and from whom
    std::vector<int64_t> m_sentTo;
};

}  // namespace sl::capture
