#pragma once
// OS runtime calls still blocked when their thread or process ends (issue #15). A call is
// recorded when it returns, so one that never did (its thread cancelled inside it; the process
// exiting, exec'ing or killed by a signal while it blocked) left no trace: a worker blocked in
// read() for the whole run showed as idle. Each thread marks the call it is in (its start and
// name) in a slot of a table other threads can read; the end of the thread, or of the process,
// records the calls still open then, ending at that moment (osrt.calls_unfinished counts them).
#include <cstdint>

#include "capture/common/ModuleEventApi.h"
#include "capture/common/ProcessWriter.h"

namespace sl::inject {

// Marks the calling thread as in the call `name` since `start` (timed calls only, when they
// are recorded at all) until openCallEnd; nests (a handler's call inside an interrupted one).
// Not an object with a destructor on purpose: a thread cancelled inside the call is unwound
// by the system's unwinder, which cannot run a cleanup of this module (its own static copy of
// libgcc's unwinder: the program aborted); the mark then stays, for the thread's end to record.
// Async-signal-safe; a thread past the table's 4,096 live slots is not marked.
struct OpenCall {
    int slot;
    int64_t prevStart;
    capture::CachedString* prevName;
    const char* prevText;
};
OpenCall openCallBegin(capture::CachedString& name, const char* text, int64_t start);
void openCallEnd(const OpenCall& call);

// Another module's call (ModuleEventApi.h, version 3: an MPI call), marked apart from the OS
// runtime calls it makes inside (an MPI_Recv polls): both are recorded when the thread is cut
// short. Recorded by kind.finish, whatever its length.
struct ModuleOpenCall {
    int slot;
    int64_t prevStart;
    const capture::ModuleOpenCallKind* prevKind;
    void* prevContext;
};
ModuleOpenCall openModuleCallBegin(const capture::ModuleOpenCallKind& kind, void* context, int64_t start);
void openModuleCallEnd(const ModuleOpenCall& call);

// Records the calls still open (OS runtime calls over the threshold, other modules' calls all)
// ending at `now`, with a count:
// every thread's when the process ends or execs (`everyThread`), else the calling thread's (its
// cancellation). Async-signal-safe.
void recordOpenCalls(int64_t now, bool everyThread);
// The ending thread's slot goes back to the table.
void releaseOpenCallSlot();
// In a forked child: only the forking thread exists; its slot names the child's tid.
void openCallsAfterFork();

}  // namespace sl::inject
