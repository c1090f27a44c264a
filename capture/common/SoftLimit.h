#pragma once
// A resource limit of this process as the kernel holds it (prlimit64 on itself), read at each
// use: the program may change it with setrlimit. Raw system call: used in signal handlers and
// while a sanitizer runtime starts.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace sl::capture {

// The soft limit of `resource` (RLIMIT_*), UINT64_MAX when there is none (RLIM64_INFINITY is
// UINT64_MAX) or it cannot be read.
inline uint64_t softLimit(int resource) {
    struct {
        uint64_t cur, max;
    } limit{};
    if (syscall(SYS_prlimit64, 0, resource, nullptr, &limit) != 0) return UINT64_MAX;
    return limit.cur;
}

}  // namespace sl::capture
