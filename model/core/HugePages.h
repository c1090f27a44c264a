#pragma once
// Asks the kernel to back a large, freshly reserved buffer with transparent huge pages, where
// the system leaves that to the program (THP "madvise" mode, Debian's default). Loading a big
// track touches every page of its columns once; with 4 KiB pages the page faults cost about as
// much as decoding (issue #23's profile of stats). A no-op for small buffers and elsewhere.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace sl {

inline void adviseHugePages(const void* data, size_t bytes) {
#ifdef MADV_HUGEPAGE
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    if (bytes < 2 * kHuge) return;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

// adviseHugePages over a vector's reserved capacity.
template <class Vector>
void adviseHugePages(const Vector& v) {
    adviseHugePages(v.data(), v.capacity() * sizeof(typename Vector::value_type));
}

}  // namespace sl
