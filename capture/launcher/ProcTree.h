#pragma once
// The processes below a pid, from the children files of /proc/<pid>/task/<tid>/ (or, on kernels
// without them, the ppid fields of every /proc/<pid>/stat). The launcher is the child subreaper
// of the traced tree, so "below the launcher" is the whole tree, orphans included.
#include <cstdint>
#include <vector>

namespace sl::capture {

std::vector<int64_t> descendantsOf(int64_t pid);
// The children of every thread of `pid`, zombies included.
std::vector<int64_t> childrenOf(int64_t pid);
// The parent of `pid` in our namespace; 0 when it is gone or its parent is outside it.
int64_t parentOf(int64_t pid);
// Whether `pid` is below `root` (a child, a grandchild, ...), from the ppid fields of
// /proc/<pid>/stat. Async-signal-safe: a signal handler tells with it whether its sender is
// part of the traced tree. A process that has been reaped is below nothing.
bool isDescendantOf(int64_t pid, int64_t root);
// Whether `pid` is stopped by a signal (state T: SIGSTOP, SIGTSTP, ...; not a debugger's stop).
bool isStopped(int64_t pid);
// Whether `pid` still runs and is the process that started at `startMono` (CLOCK_MONOTONIC ns;
// <= 0: not checked): not gone, not a zombie, not another process that took its pid since
// (its start in /proc/<pid>/stat must match within 2 s).
bool runsSince(int64_t pid, int64_t startMono);
// Sends `sig` to every process below the calling one (the launcher: the whole traced tree).
void killTree(int sig);

}  // namespace sl::capture
