#pragma once
// When each process of the program last had a signal delivered to a handler of its own: the
// launcher reads it before it sends on a signal that was sent to it from outside.
//
// Why: a signal sent to the whole process group from outside (`kill -TERM -- -PGID`, a
// supervisor's stop-as-group, a batch system stopping every process of a job) reaches the
// profiler and the program at once. The profiler cannot tell it from one sent to it alone,
// which it must send on, so the program's handler ran twice (a checkpoint-on-SIGTERM script
// saw a second SIGTERM in its clean-up). A process that already had the signal, at the time
// the profiler had it or later, does not get it again.
//
// How: a file in the arena directory (a tmpfs where there is one), made by the launcher,
// kSlots entries of 128 bytes, the entry of pid P at (P % kSlots). A process maps the page of
// its entry when the program first installs a handler for one of kBoardSignals, claims it
// (writes its pid), and the module's trampoline in front of the program's handler stores the
// delivery time. Two live processes whose pids share an entry: the later owns it, the earlier
// stops writing (the launcher then sends on to it, as without the board).
#include <signal.h>

#include <cstdint>

namespace sl::capture {

inline constexpr char kSignalBoardFile[] = "signals.board";
inline constexpr uint32_t kSignalBoardSlots = 65536;

// The signals a process notes on the board when a handler of its own runs for them: only these
// get the trampoline (an entry no launcher reads would cost the program for nothing).
// The first kBoardStopSignalCount are the stop signals, which the launcher sends on (to the
// first process, then to what is left of the tree when it ends) and a handler of the program
// may count (a second SIGTERM, SIGINT or SIGHUP is "stop now" to many programs). The rest are
// the signals sent on to the first process alone that a batch system or `timeout -s` sends to
// every process of a job (Slurm's --signal=USR1@60, a trainer's requeue-on-SIGUSR1 handler).
// Not the real-time signals: they queue, one sent on for each, as the sender's.
inline constexpr int kBoardSignals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM};
inline constexpr int kBoardSignalCount = sizeof(kBoardSignals) / sizeof(kBoardSignals[0]);
inline constexpr int kBoardStopSignalCount = 4;

struct SignalBoardEntry {
    int64_t pid;  // the owner, as the launcher sees it (its PID namespace); 0: none
    // By index in kBoardSignals: capture::nowNs() when a handler of the program last began
    // running for it, 0 if never; its two low bits say where that one came from (below).
    int64_t deliveredNs[kBoardSignalCount];
    // By index: who sent that one (si_pid, for a copy sent with kill()), written before its
    // time. A copy from the sender that signalled the profiler is the group's; one from a
    // process of the program (a child notifying its parent with SIGUSR1 every 20 ms) is not.
    int32_t senderPid[kBoardSignalCount];
};
// Where a delivery came from, in deliveredNs's two low bits (a time 3 ns off is no matter):
// only a copy sent with kill() by someone other than the launcher shows that a signal the
// launcher had from outside reached the process too. Its own copy sent on a moment before
// (kill -USR1 <sightline> twice within 50 ms: the second was taken as had), or one the kernel
// raised (an interval timer's SIGALRM: `kill -ALRM <sightline>` never arrived), does not.
inline constexpr int64_t kDeliveryFromLauncher = 1;  // sent on by the launcher
inline constexpr int64_t kDeliveryNotKill = 2;       // raised by the kernel (a timer, a terminal)
inline constexpr int64_t kDeliveryHow = 3;
static_assert(sizeof(SignalBoardEntry) <= 128);
inline constexpr uint64_t kSignalBoardEntryBytes = 128;
inline constexpr uint64_t kSignalBoardBytes = kSignalBoardSlots * kSignalBoardEntryBytes;

inline uint64_t signalBoardOffset(int64_t pid) {
    return static_cast<uint64_t>(pid) % kSignalBoardSlots * kSignalBoardEntryBytes;
}

// -1 for a signal not on the board.
inline int signalBoardIndex(int sig) {
    for (int i = 0; i < kBoardSignalCount; ++i)
        if (kBoardSignals[i] == sig) return i;
    return -1;
}

}  // namespace sl::capture
