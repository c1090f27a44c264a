#pragma once
// The launcher's side of the signal board (capture/common/SignalBoard.h): it makes the file
// before the program starts, removes it when the capture ends, and, before sending on a signal
// that came from outside, asks which processes had it already.
#include <cstdint>
#include <string>
#include <vector>

namespace sl::capture {

class SignalBoardReader {
public:
    // Makes <dir>/signals.board (sparse: 8 MiB of address, no memory until a process claims
    // its entry). Without it (ok() false) every process is sent the signal, as before.
    explicit SignalBoardReader(const std::string& dir);
    ~SignalBoardReader();
    SignalBoardReader(const SignalBoardReader&) = delete;
    SignalBoardReader& operator=(const SignalBoardReader&) = delete;
    bool ok() const { return m_fd >= 0; }
    // Whether a handler of `pid`'s program began running for `sig` at `sinceNs` or later
    // (capture::nowNs()); false for a process that never claimed its entry. From::AnotherSender:
    // only a copy sent with kill() by another process than the launcher (SignalBoard.h).
    // From::TheSender: only a copy that `sender` sent with kill().
    enum class From { Anyone, AnotherSender, TheSender };
    bool deliveredSince(int64_t pid, int sig, int64_t sinceNs, From from, int64_t sender = 0) const;

private:
    std::string m_path;
    int m_fd = -1;
};

// The signals waiting to be delivered to `pid`, one bit per signal (bit sig-1; 0 for a process
// that is gone): /proc/<pid>/status's ShdPnd, the process's queue, which kill() uses.
uint64_t pendingSignals(int64_t pid);

// Sends `sig`, which the profiler had from outside, on to each of `pids` (processes of the
// traced tree) that did not have it already: a signal sent to the whole group (`kill -- -PGID`,
// a batch system stopping or signalling every process of a job) reached them together with the
// profiler, and a second copy ran their handlers twice. `receivedNs` (capture::nowNs()): when
// the profiler had it; the processes are asked no sooner than kSettleNs after it, so that a
// copy sent to the group right after the one sent to the profiler (`timeout` signals its
// child, then its group) has arrived: the program then has that one, not a second one some
// milliseconds later (mpirun took two as "quit now" and left its shared memory behind). A
// process that had it since shortly before `receivedNs` (a supervisor passed it on to its
// workers before it ended) is spared as well.
struct SignalSendOn {
    std::vector<int64_t> sentTo;
    int spared = 0;  // had it already
};
// `toldCounts`: a process that had any signal of the board sent to it since `receivedNs` is
// spared too (the first process, ending, told its workers to stop in a way of its own: a
// SIGUSR1 to save and exit; a SIGTERM of ours then cut the save short).
// `sender`: who sent it to the profiler (si_pid; 0 unknown): only a copy from the same sender is
// the group's (a process of the program signalling the first process with the same signal made
// an outside copy look had).
SignalSendOn sendOnSignal(const SignalBoardReader& board, int sig, int64_t receivedNs, int64_t sender,
                          const std::vector<int64_t>& pids, bool toldCounts = false);

// Whether `pid`'s handler ran for `sig` (from anyone) since the profiler had it at
// `receivedNs` (with the margin above): it handled that stop.
bool handledStop(const SignalBoardReader& board, int64_t pid, int sig, int64_t receivedNs);

// Whether some process of the traced tree had a handler of its own run for a stop signal since
// the profiler had the last one (`receivedNs`, with the same margin as above): the program
// handled that stop and runs on, so the next one is its own too, not a second Ctrl+C.
bool programHandledAStop(const SignalBoardReader& board, int64_t receivedNs);

}  // namespace sl::capture
