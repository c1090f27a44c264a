#pragma once
// The traced process's view of the capture switch (GateState.h). Without --capture-range=nvtx
// the switch is a process-local word that is always on. With it, ProcessWriter::start maps
// <session>/capture.gate shared, and the hot paths (NVTX, OS runtime) test isOn() first: one
// relaxed load and a bit test, nothing recorded while it is off. The NVTX module opens a window
// when the watched range begins and closes it when that range ends (tryOpen/close); the CUDA
// module, whose records arrive late, keeps a record when covers() its start time.
// Any thread; async-signal-safe except attach().
#include <atomic>
#include <cstdint>

#include "capture/common/GateState.h"

namespace sl::capture {

namespace detail {
extern std::atomic<uint64_t>* g_gateControl;  // never null
}

class CaptureGate {
public:
    // Maps <sessionDir>/capture.gate when it exists. Returns false when there is none (the
    // switch stays always on) or it cannot be mapped.
    static bool attach(const char* sessionDir);
    // Off for good in this process (ProcessWriter::seal): the hot paths then read no clock (a
    // strict seccomp mode makes the time-stamp counter fault) and open no window.
    static void shutOff();
    // True when the session has a capture range (a gate file was mapped).
    static bool present();
    static inline bool isOn() {
        return detail::g_gateControl->load(std::memory_order_relaxed) & kGateOn;
    }
    // Opens a window unless one is open or no more may open. Returns the window's number
    // (1-based) or 0 when nothing was opened. `*time` gets the opening time, read after the
    // switch is on, so every event other threads start from then on sees it on.
    static uint32_t tryOpen(int64_t pid, int64_t* time);
    // Closes window `number` at `time` (nothing when it is not the open one: idempotent, so a
    // forked copy of the owner cannot close a later window). Returns true when it closed it.
    static bool close(uint32_t number, int64_t time);
    // For a range several processes may hold at once (cudaProfilerStart in each MPI rank): joins
    // the open window, or opens one. The window stays open until its last holder leaves (the
    // first rank's stop ended it before, and the other ranks' work after was dropped). Returns
    // the window's number, 0 when none may open.
    static uint32_t join(int64_t pid, int64_t* time);
    // Leaves window `number`; closes it at `time` when this was its last holder. True when it
    // closed it.
    static bool leave(uint32_t number, int64_t time);
    // Whether the launcher wants SIGUSR1 when a window closes (stop-shutdown).
    static bool shutdownAtEnd();
    // Whether an event starting at `time` is inside a window (always true without a gate).
    static bool covers(int64_t time);
};

}  // namespace sl::capture
