#include "capture/common/HeldFile.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "capture/common/SoftLimit.h"

namespace sl::capture {
namespace {

// The highest number the program took from us (dup2 onto it, or a file it opened there), and
// 31 more: ours go above it from then on, away from the numbers the program uses. Shared by the module's
// files; raw atomics (signal handlers, forked children).
std::atomic<int> g_takenUpTo{0};

void noteTaken(int fd) {
    fd += 31;  // and a margin: programs take numbers in runs (1000..1010)
    int seen = g_takenUpTo.load(std::memory_order_relaxed);
    while (fd > seen && !g_takenUpTo.compare_exchange_weak(seen, fd))
        ;
}

// `fd` moved to the lowest free number at lowestHeldNumber() or above (close-on-exec), or kept
// where it is.
void noteHeld(long fd) {
    int seen = g_lowestHeldEver.load(std::memory_order_relaxed);
    while (fd >= 0 && fd < seen &&
           !g_lowestHeldEver.compare_exchange_weak(seen, static_cast<int>(fd)))
        ;
}

// `fd` duplicated at the lowest free number at `lowest` or above, above the numbers the program
// took from us when the limit allows (close-on-exec); -1 when neither is possible.
long dupHigh(long fd, int lowest) {
    const int above = g_takenUpTo.load(std::memory_order_relaxed) + 1;
    if (above > lowest)
        if (long high = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, above); high >= 0) return high;
    return syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, lowest);
}

long toHighNumber(long fd) {
    const int lowest = lowestHeldNumber();
    if (fd < lowest || fd <= g_takenUpTo.load(std::memory_order_relaxed)) {
        if (long high = dupHigh(fd, lowest); high >= 0) {
            syscall(SYS_close, fd);
            fd = high;
        }
    }
    noteHeld(fd);
    return fd;
}

}  // namespace

int lowestHeldNumber() {
    const uint64_t limit = softLimit(RLIMIT_NOFILE);
    if (limit >= 1008) return 1000;
    // Under a small limit: just below it; under a very small one (a sandbox's `ulimit -n 16`)
    // its top two numbers, so that the program's own files still get 3, 4, ... as without us
    // (ours took 3 before, and every number the program got was one higher).
    if (limit >= 24) return static_cast<int>(limit) - 8;
    return limit > 5 ? static_cast<int>(limit) - 2 : 3;
}

int HeldFile::adopt(long fd, const char* path, int reopenFlags) {
    m_path = path;
    m_flags = reopenFlags;
    m_fd = static_cast<int>(toHighNumber(fd));
    m_made = true;
    struct stat st {};
    if (syscall(SYS_fstat, m_fd, &st) == 0) {
        m_dev = static_cast<uint64_t>(st.st_dev);
        m_ino = static_cast<uint64_t>(st.st_ino);
    }
    return m_fd;
}

bool HeldFile::stillOurs(int fd) const {
    struct stat st {};
    return syscall(SYS_fstat, fd, &st) == 0 && names(st);
}

bool HeldFile::names(const struct stat& st) const {
    return static_cast<uint64_t>(st.st_dev) == m_dev && static_cast<uint64_t>(st.st_ino) == m_ino;
}

int HeldFile::use() {
    if (!m_made) {
        errno = EBADF;
        return -1;
    }
    if (m_fd >= 0) {
        struct stat st {};
        if (syscall(SYS_fstat, m_fd, &st) == 0) {
            if (names(st)) return m_fd;
            noteTaken(m_fd);  // another file there now: the program's number
        }
    }
    // The old number is the program's now (or closed): left alone. Opened again by its path; a
    // program taking numbers as fast as it can may take the new one before it is checked, so a
    // few tries.
    m_fd = -1;
    for (int attempt = 0; attempt < 4; ++attempt) {
        long fd = syscall(SYS_openat, AT_FDCWD, m_path, m_flags | O_CLOEXEC);
        if (fd < 0) return -1;
        if (!stillOurs(static_cast<int>(fd))) {
            // Another file at our path (replaced since): never ours to write.
            syscall(SYS_close, fd);
            errno = ESTALE;
            return -1;
        }
        fd = toHighNumber(fd);
        if (stillOurs(static_cast<int>(fd))) {
            m_fd = static_cast<int>(fd);
            return m_fd;
        }
        // Taken under us at the new number: the program's now, left open; again, higher.
    }
    errno = ESTALE;
    return -1;
}

bool HeldFile::owns(int fd) const {
    return fd >= 0 && fd == m_fd && stillOurs(fd);
}

void HeldFile::moveAsideFrom(int fd) {
    if (!owns(fd)) return;
    noteTaken(fd);
    long moved = dupHigh(fd, lowestHeldNumber());
    noteHeld(moved);
    // No number left: the program's dup2 replaces ours, and the next use opens it again.
    m_fd = moved >= 0 ? static_cast<int>(moved) : -1;
}

void HeldFile::releaseDescriptor() {
    if (m_fd >= 0 && stillOurs(m_fd)) syscall(SYS_close, m_fd);
    m_fd = -1;
}

void HeldFile::close() {
    releaseDescriptor();
    m_made = false;
}

}  // namespace sl::capture
