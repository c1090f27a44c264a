#pragma once
// --python-backtrace=cuda,osrt,nvtx: the Python call stack of the calling thread at the moment
// of a recorded call, as a PythonBacktrace record ({tid, time, count} {frame ids}) that the merge
// attaches to the thread's event starting at `time`.
//
// The stack is read the way out-of-process profilers read it, from the interpreter's own
// structures (PythonLayout.h), not through the C API: most calls worth a backtrace (a read, a
// sleep, a lock) are made with the GIL released, when the API may not be used, and taking the
// GIL there could deadlock the program. The thread reads its own frames, which nobody else
// changes while it is inside the call; nothing is allocated, no reference count touched. The
// start-up hook enables it only after reading its own stack both ways (enable()); processes that
// are not CPython 3.11-3.13 record no backtraces, and say why.
#include <cstdint>

#include "model/core/Schema.h"

namespace sl::inject::pybt {

// Whether backtraces are on in this process (the layout check passed).
bool ready();
// Records the calling thread's Python stack for its event of `kind` starting at `time`:
// nothing when the thread runs no Python (or backtraces are off).
void recordFor(int64_t time, EventKind kind);

}  // namespace sl::inject::pybt
