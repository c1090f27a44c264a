#pragma once
// The process's address-space limit (RLIMIT_AS, `ulimit -v`), and the share of it the capture's
// buffers may take. Every mapping counts against it, a sparse shared file's whole length too:
// the module's default buffer arena (512 MiB of address space, next to nothing of memory) left
// a program under `ulimit -v 65536` no room (pthread_create failed with EAGAIN, malloc with
// ENOMEM), and one that lowered its own limit after start the same.
#include <cstdint>

#include "capture/common/SoftLimit.h"

namespace sl::capture {

// The soft limit in bytes, UINT64_MAX when there is none.
inline uint64_t addressSpaceLimit() {
    constexpr int kAs = 9;  // RLIMIT_AS
    return softLimit(kAs);
}

// What the buffers may take of a limit: a thirty-second (64 MiB: 2 MiB, eight buffers of the
// default size), so that the program keeps almost all of its room.
inline uint64_t bufferShareOf(uint64_t addressSpaceLimit) {
    return addressSpaceLimit == UINT64_MAX ? UINT64_MAX : addressSpaceLimit / 32;
}

}  // namespace sl::capture
