#pragma once
// CPU time used so far by this process, all threads: on a machine shared with other jobs the
// wall time is inflated by waiting for a core, the CPU time shows the work itself.
#include <time.h>

namespace sl::bench {

inline double processCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline double processCpuMs() { return processCpuSeconds() * 1e3; }

}  // namespace sl::bench
