#pragma once
// The session-wide capture switch of `--capture-range=nvtx`: a small file in the session
// directory that the launcher creates (GateFile) and every traced process maps shared
// (CaptureGate). Layout only; no code, so the launcher and the injection modules agree on it
// without sharing a library. All fields that change after creation are lock-free atomics, so
// the mapping is valid across processes (fork inherits it, exec maps it again at load).
#include <atomic>
#include <cstdint>

namespace sl::capture {

constexpr const char* kGateFileName = "capture.gate";
constexpr uint32_t kGateMagic = 0x54474c53;  // "SLGT"
constexpr uint32_t kGateVersion = 2;
// Window times kept in the file; more windows (repeat without a count) still switch the
// capture on and off, only their times are not stored (the merge then finds them itself).
constexpr uint32_t kGateMaxWindows = 256;

// control: bit 0 on (a window is open), bit 1 over (no window will open again), bits 8-31 the
// processes holding the open window (CaptureGate::join: 0 for a window NVTX opened), bits 32-63
// the number of windows opened so far. One word so that open and close are single CASes and
// the hot path is one relaxed load and a bit test.
constexpr uint64_t kGateOn = 1;
constexpr uint64_t kGateOver = 2;
constexpr int kGateHolderShift = 8;
constexpr uint64_t kGateHolderMask = 0xffffff;
constexpr int kGateCountShift = 32;

struct GateWindow {
    std::atomic<int64_t> start;  // CLOCK_MONOTONIC ns when the window opened
    std::atomic<int64_t> end;    // when it closed; 0 while open
    std::atomic<int64_t> pid;    // the process whose range opened it
    int64_t reserved;
};

struct GateState {
    uint32_t magic;
    uint32_t version;
    uint32_t maxWindows;     // 1: stop / stop-shutdown, N: repeat:N, 0: repeat without a count
    uint32_t shutdownAtEnd;  // 1: signal the launcher (SIGUSR1) when the window closes
    std::atomic<uint64_t> control;
    int64_t reserved[6];
    GateWindow windows[kGateMaxWindows];
};
static_assert(std::atomic<uint64_t>::is_always_lock_free &&
                  std::atomic<int64_t>::is_always_lock_free,
              "the gate is shared between processes: its atomics must be lock-free");

}  // namespace sl::capture
