#pragma once
// The process's file-size limit (RLIMIT_FSIZE, `ulimit -f`). A write or a size change that goes
// past it sends the process SIGXFSZ, whose default ends it (a traced `true` under `ulimit -f
// 100` died at start: its buffer arena is a sparse file of 520 MiB). The module never makes
// one: arenas are sized under the limit, and a block that would cross it is not written but
// counted as lost (EFBIG), as a full disk is. Raw system calls: used in signal handlers.
#include <cstdint>

#include "capture/common/SoftLimit.h"

namespace sl::capture {

// The soft limit in bytes, UINT64_MAX when there is none.
inline uint64_t fileSizeLimit() {
    constexpr int kFsize = 1;  // RLIMIT_FSIZE
    return softLimit(kFsize);
}

}  // namespace sl::capture
