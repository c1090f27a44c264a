#pragma once
// This process's entry on the signal board (capture/common/SignalBoard.h): when a handler of the
// program last began running for each of the board's signals, for the launcher to read.
#include <signal.h>

namespace sl::inject {

// Maps and claims this process's entry, once (the program installs a handler for a board
// signal). No-op outside a capture, or without the board. Raw system calls only.
void claimSignalBoardEntry();
// In a forked child: the parent's entry is not its own; a child of a parent that had one
// claims its own.
void signalBoardAfterFork();
// A handler of the program is about to run for `sig` (`info`: the kernel's, where it came
// from). Async-signal-safe; keeps errno.
void noteSignalDelivered(int sig, const siginfo_t* info);

}  // namespace sl::inject
