#include "capture/common/CaptureGate.h"

#include "capture/common/Clock.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>

namespace sl::capture {
namespace {

std::atomic<uint64_t> g_alwaysOn{kGateOn};
GateState* g_state = nullptr;

}  // namespace

namespace detail {
std::atomic<uint64_t>* g_gateControl = &g_alwaysOn;
}

bool CaptureGate::attach(const char* sessionDir) {
    if (g_state) return true;  // inherited through fork: the mapping is shared already
    if (!sessionDir || !*sessionDir) return false;
    char path[1200];
    std::snprintf(path, sizeof path, "%s/%s", sessionDir, kGateFileName);
    // Raw syscalls: the program's open/close are interposed by the injection module.
    int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC));
    if (fd < 0) return false;
    struct stat st {};
    if (syscall(SYS_fstat, fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(GateState))) {
        syscall(SYS_close, fd);
        return false;
    }
    void* p = mmap(nullptr, sizeof(GateState), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    syscall(SYS_close, fd);
    if (p == MAP_FAILED) return false;
    auto* s = static_cast<GateState*>(p);
    if (s->magic != kGateMagic || s->version != kGateVersion) {
        munmap(p, sizeof(GateState));
        return false;
    }
    g_state = s;
    detail::g_gateControl = &s->control;
    return true;
}

void CaptureGate::shutOff() {
    static std::atomic<uint64_t> off{0};
    g_state = nullptr;  // its mapping stays (a window another thread is closing still reads it)
    detail::g_gateControl = &off;
}

bool CaptureGate::present() {
    return g_state != nullptr;
}

namespace {
// Window `index` (0-based) just opened by `pid`: its start time, read after the switch is on.
uint32_t startWindow(uint64_t index, int64_t pid, int64_t* time) {
    *time = nowNs();
    if (index < kGateMaxWindows) {
        GateWindow& w = g_state->windows[index];
        w.end.store(0);
        w.pid.store(pid);
        w.start.store(*time);
    }
    return static_cast<uint32_t>(index + 1);
}
}  // namespace

uint32_t CaptureGate::tryOpen(int64_t pid, int64_t* time) {
    if (!g_state) return 0;
    uint64_t c = g_state->control.load();
    while (true) {
        if (c & (kGateOn | kGateOver)) return 0;
        uint64_t count = c >> kGateCountShift;
        if (g_state->maxWindows && count >= g_state->maxWindows) return 0;
        uint64_t next = ((count + 1) << kGateCountShift) | kGateOn;
        if (g_state->control.compare_exchange_weak(c, next))
            return startWindow(count, pid, time);
    }
}

bool CaptureGate::close(uint32_t number, int64_t time) {
    if (!g_state || number == 0) return false;
    uint64_t open = (static_cast<uint64_t>(number) << kGateCountShift) | kGateOn;
    bool last = g_state->maxWindows && number >= g_state->maxWindows;
    uint64_t closed = (static_cast<uint64_t>(number) << kGateCountShift) | (last ? kGateOver : 0);
    // The end time first: a reader that sees the window closed also sees when.
    if (number <= kGateMaxWindows) {
        int64_t none = 0;
        if (g_state->control.load() == open)
            g_state->windows[number - 1].end.compare_exchange_strong(none, time);
    }
    return g_state->control.compare_exchange_strong(open, closed);
}

uint32_t CaptureGate::join(int64_t pid, int64_t* time) {
    if (!g_state) return 0;
    constexpr uint64_t one = uint64_t{1} << kGateHolderShift;
    uint64_t c = g_state->control.load();
    while (true) {
        if (c & kGateOver) return 0;
        const uint64_t count = c >> kGateCountShift;
        if (c & kGateOn) {  // held by another process: one more holder
            if (((c >> kGateHolderShift) & kGateHolderMask) == kGateHolderMask) return 0;
            if (g_state->control.compare_exchange_weak(c, c + one)) {
                *time = nowNs();
                return static_cast<uint32_t>(count);
            }
            continue;
        }
        if (g_state->maxWindows && count >= g_state->maxWindows) return 0;
        const uint64_t next = ((count + 1) << kGateCountShift) | one | kGateOn;
        if (g_state->control.compare_exchange_weak(c, next))
            return startWindow(count, pid, time);
    }
}

bool CaptureGate::leave(uint32_t number, int64_t time) {
    if (!g_state || number == 0) return false;
    constexpr uint64_t one = uint64_t{1} << kGateHolderShift;
    uint64_t c = g_state->control.load();
    while (true) {
        if (!(c & kGateOn) || (c >> kGateCountShift) != number) return false;
        const uint64_t holders = (c >> kGateHolderShift) & kGateHolderMask;
        if (holders > 1) {
            if (g_state->control.compare_exchange_weak(c, c - one)) return false;
            continue;
        }
        const bool last = g_state->maxWindows && number >= g_state->maxWindows;
        const uint64_t closed =
            (static_cast<uint64_t>(number) << kGateCountShift) | (last ? kGateOver : 0);
        // The end time first, as close() does; taken back if another process joined meanwhile.
        int64_t none = 0;
        const bool timed = number <= kGateMaxWindows &&
                           g_state->windows[number - 1].end.compare_exchange_strong(none, time);
        if (g_state->control.compare_exchange_strong(c, closed)) return true;
        if (timed) g_state->windows[number - 1].end.store(0);
    }
}

bool CaptureGate::shutdownAtEnd() {
    return g_state && g_state->shutdownAtEnd;
}

bool CaptureGate::covers(int64_t time) {
    if (!g_state) return true;
    uint64_t c = g_state->control.load(std::memory_order_acquire);
    const uint64_t count = c >> kGateCountShift;
    // Past kGateMaxWindows the times are not kept: keep everything, the merge cuts exactly.
    if (count > kGateMaxWindows) return true;
    // Newest first: a record usually belongs to the latest window.
    for (uint64_t i = count; i-- > 0;) {
        const GateWindow& w = g_state->windows[i];
        int64_t s = w.start.load(), e = w.end.load();
        if (time >= s && (e == 0 || time <= e)) return true;
    }
    return false;
}

}  // namespace sl::capture
