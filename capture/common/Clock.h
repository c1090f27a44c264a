#pragma once
// The one clock of a capture: CLOCK_MONOTONIC nanoseconds (vDSO, no syscall). Every module,
// the launcher and CUPTI (via cuptiActivityRegisterTimestampCallback) use it.
#include <cstdint>
#include <ctime>

namespace sl::capture {

inline int64_t nowNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline int64_t utcNowNs() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace sl::capture
