#pragma once
// --osrt-backtrace-threshold (and, through NativeBacktraceHook.h, --cudabacktrace): the native
// call stack of the calling thread at a recorded call, as a NativeBacktrace record whose frames
// are (module id, file offset) pairs; NativeModule records name the modules. The launcher
// symbolizes them after the process is gone (FrameSymbolizer), as it does CPU samples.
//
// Only what is cheap and safe is done here: the return addresses come from glibc's backtrace()
// (DWARF CFI through libgcc's unwinder, so code built without frame pointers unwinds), and
// each is placed in its module with a table of the loaded modules built by dl_iterate_phdr
// (rebuilt when the loader's add/remove counters change). Nothing is allocated once a module is
// known. The cost is paid only by calls above the threshold (docs/capture.md).
#include <cstdint>

#include "model/core/Schema.h"

namespace sl::inject::nbt {

// Loads the unwinder (glibc's backtrace() dlopens libgcc_s on first use: done here, at start,
// not inside a traced call) and notes this module's own address range, whose frames are left
// out of every stack. Once per process; later calls return at once.
void init();
// In a forked child: another thread of the parent may have held the table's lock at the fork,
// so the child starts with a free lock and an empty table (its stream names modules anew).
void afterForkChild();
// Records the calling thread's native stack, at most `depth` frames below the traced call, for
// its event of `kind` starting at `time` (a CUDA API call: its correlation id).
void recordFor(int64_t time, EventKind kind, uint32_t depth);

}  // namespace sl::inject::nbt
