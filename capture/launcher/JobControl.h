#pragma once
// Job control through the profiler. The shell that started `sightline profile` waits for the
// profiler, not for the program: when the program stops (Ctrl+Z, `kill -STOP $$`, `less` or
// `vim` giving the terminal back with SIGTSTP), the profiler stops with it, by the same signal,
// so that the shell takes the terminal back and says "Stopped" as without the profiler. When the
// profiler is continued (fg, bg, kill -CONT), so is the program, unless the shell's SIGCONT to
// the job's process group has done it already.
#include <sys/types.h>

namespace sl::capture {

// Whether the calling process is the foreground job of its controlling terminal (a shell's job
// that the shell shows as "Stopped" and continues with fg). Only then does it stop with the
// program: stopped otherwise (a background job, no terminal), nothing would continue it when
// the program is continued directly (`kill -STOP` then `kill -CONT` of the program).
bool inTerminalForeground();

// Stops the calling process by `sig` (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) as its default action
// would, the profiler's own handler for it set aside meanwhile; returns once continued.
void stopAsTheProgramDid(int sig);

// The profiler's own lines reach the terminal from a background job under `stty tostop`: the
// kernel would stop the writer's whole process group with SIGTTOU, the program with it (a job
// that never writes to the terminal stopped on "capture running"). Blocked SIGTTOU lets the
// write through (POSIX). blockTerminalOutputStops() blocks it in the calling thread;
// restoreTerminalOutputStops() puts the mask back as it was, in the program's child before its
// exec (the program's own writes stop it as without the profiler).
void blockTerminalOutputStops();
void restoreTerminalOutputStops();
// Whether the terminal sent SIGTTOU to the job's whole process group, the profiler included
// (the program wrote to it in the background under tostop): the pending, blocked signal is
// taken, for the profiler to stop as its default action would have stopped it.
bool tookGroupOutputStop();

// After the profiler was continued: continues `root` if it is still stopped once a SIGCONT to
// its process group (the shell's fg or bg) has had the time to reach it. True when it sent one.
bool continueIfStillStopped(pid_t root);

}  // namespace sl::capture
