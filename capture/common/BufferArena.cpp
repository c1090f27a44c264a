#include "capture/common/BufferArena.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "capture/common/Clock.h"
#include "capture/common/FileSizeLimit.h"
#include "capture/common/RawFormat.h"

namespace sl::capture {

bool BufferArena::open(const char* dir, const char* stem, uint32_t bufferBytes,
                       int64_t budgetBytes, int64_t pid) {
    m_keep = false;  // a new file (after a fork, or a failed exec): nothing of it is kept yet
    std::snprintf(m_path, sizeof m_path, "%s/%s.slbuf", dir, stem);
    const uint64_t page = 4096;
    m_slotBytes = static_cast<uint32_t>((sizeof(ArenaSlotHeader) + bufferBytes + page - 1) /
                                        page * page);
    uint64_t count = static_cast<uint64_t>(budgetBytes) / bufferBytes;
    if (count < 1) count = 1;
    if (count > sizeof m_cold / sizeof m_cold[0]) count = sizeof m_cold / sizeof m_cold[0];
    // Under a file-size limit (`ulimit -f`) the file must not be sized past it (SIGXFSZ):
    // fewer slots, or no arena at all (the heap holds the buffers).
    if (const uint64_t limit = fileSizeLimit(); limit != UINT64_MAX) {
        const uint64_t fit = limit > kArenaHeaderBytes ? (limit - kArenaHeaderBytes) / m_slotBytes : 0;
        if (fit == 0) {
            errno = EFBIG;
            return false;
        }
        if (count > fit) count = fit;
    }
    m_slotCount = static_cast<uint32_t>(count);
    m_mapBytes = kArenaHeaderBytes + static_cast<uint64_t>(m_slotBytes) * m_slotCount;
    long opened = syscall(SYS_openat, AT_FDCWD, m_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (opened < 0) return false;
    const int fd = m_file.adopt(opened, m_path, O_RDWR);
    auto fail = [&] {
        int e = errno;
        m_file.close();
        syscall(SYS_unlinkat, AT_FDCWD, m_path, 0);
        errno = e;
        return false;
    };
    // Sparse: only the header is backed now, each slot when first taken.
    if (syscall(SYS_ftruncate, fd, m_mapBytes) != 0) return fail();
    if (syscall(SYS_fallocate, fd, 0, 0, kArenaHeaderBytes) != 0) return fail();
    long p = syscall(SYS_mmap, nullptr, m_mapBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == -1) return fail();
    m_base = reinterpret_cast<uint8_t*>(p);
    auto* h = reinterpret_cast<ArenaHeader*>(m_base);
    h->version = 1;
    h->slotBytes = m_slotBytes;
    h->slotCount = m_slotCount;
    h->pid = pid;
    h->startMonotonicNs = nowNs();
    h->startUtcNs = utcNowNs();
    std::memcpy(h->magic, kArenaMagic, 8);
    m_linked = true;
    m_nextFresh = 0;
    m_coldCount = 0;
    return true;
}

bool BufferArena::reserve(uint32_t* index) {
    if (!m_base) return false;
    if (m_coldCount > 0)
        *index = m_cold[--m_coldCount];
    else if (m_nextFresh < m_slotCount)
        *index = m_nextFresh++;
    else
        return false;
    return true;
}

void* BufferArena::back(uint32_t index, uint32_t bytes) {
    if (bytes == 0 || bytes > m_slotBytes) bytes = m_slotBytes;
    // No room in the arena's file system: the caller uses the heap for this buffer.
    if (!grow(index, 0, bytes)) return nullptr;
    return m_base + kArenaHeaderBytes + static_cast<uint64_t>(m_slotBytes) * index;
}

bool BufferArena::grow(uint32_t index, uint32_t from, uint32_t to) {
    if (!m_base || index >= m_slotCount || from >= to || to > m_slotBytes) return false;
    const uint64_t off = kArenaHeaderBytes + static_cast<uint64_t>(m_slotBytes) * index;
    const int fd = m_file.use();  // not a file the program put at our number
    return fd >= 0 && syscall(SYS_fallocate, fd, 0, off + from, to - from) == 0;
}

uint64_t BufferArena::shrinkTo(uint64_t maxMapBytes) {
    if (!m_base || m_mapBytes <= maxMapBytes) return 0;
    const uint64_t fit =
        maxMapBytes > kArenaHeaderBytes ? (maxMapBytes - kArenaHeaderBytes) / m_slotBytes : 0;
    const uint32_t keep = static_cast<uint32_t>(fit > m_nextFresh ? fit : m_nextFresh);
    if (keep >= m_slotCount) return 0;
    const uint64_t keepBytes = kArenaHeaderBytes + static_cast<uint64_t>(m_slotBytes) * keep;
    const uint64_t freed = m_mapBytes - keepBytes;
    if (syscall(SYS_munmap, m_base + keepBytes, freed) != 0) return 0;
    m_slotCount = keep;
    m_mapBytes = keepBytes;
    // The launcher reads no slot past the header's count: none past it was ever taken.
    reinterpret_cast<ArenaHeader*>(m_base)->slotCount = keep;
    return freed;
}

void BufferArena::unreserve(uint32_t index) {
    m_cold[m_coldCount++] = index;
}

void BufferArena::release(uint32_t slot) {
    if (!m_base || slot == 0 || slot > m_slotCount) return;
    uint32_t index = slot - 1;
    uint64_t off = kArenaHeaderBytes + static_cast<uint64_t>(m_slotBytes) * index;
    if (const int fd = m_file.use(); fd >= 0)
        syscall(SYS_fallocate, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, m_slotBytes);
    m_cold[m_coldCount++] = index;
}

void BufferArena::noteWriteFailure(int err, uint64_t bytes) {
    if (!m_base) return;
    auto* h = reinterpret_cast<ArenaHeader*>(m_base);
    if (h->writeErrno == 0) h->writeErrno = err;
    __atomic_fetch_add(&h->failedBlocks, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&h->failedBytes, bytes, __ATOMIC_RELAXED);
}

void BufferArena::finished() {
    if (!m_linked || m_keep) return;
    if (m_base && reinterpret_cast<const ArenaHeader*>(m_base)->failedBlocks != 0) return;
    m_linked = false;
    syscall(SYS_unlinkat, AT_FDCWD, m_path, 0);
}

void BufferArena::forget(bool closeFd, bool keepAddresses) {
    if (m_base && keepAddresses)
        syscall(SYS_mmap, m_base, m_mapBytes, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    else if (m_base)
        syscall(SYS_munmap, m_base, m_mapBytes);
    if (closeFd)
        m_file.close();  // unless the program took its number over
    else
        m_file.forget();
    m_base = nullptr;
    m_linked = false;
    m_keep = false;
}

}  // namespace sl::capture
