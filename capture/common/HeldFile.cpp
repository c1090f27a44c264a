#include "capture/common/HeldFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace sl::capture {
namespace {

constexpr long kLowestHeldFd = 1000;

// `fd` moved to the lowest free number at 1000 or above (close-on-exec), or kept where it is.
long toHighNumber(long fd) {
    long high = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, kLowestHeldFd);
    if (high < 0) return fd;
    syscall(SYS_close, fd);
    return high;
}

}  // namespace

int HeldFile::adopt(long fd, const char* path, int reopenFlags) {
    m_path = path;
    m_flags = reopenFlags;
    m_fd = static_cast<int>(toHighNumber(fd));
    struct stat st {};
    if (syscall(SYS_fstat, m_fd, &st) == 0) {
        m_dev = static_cast<uint64_t>(st.st_dev);
        m_ino = static_cast<uint64_t>(st.st_ino);
    }
    return m_fd;
}

bool HeldFile::stillOurs(int fd) const {
    struct stat st {};
    return syscall(SYS_fstat, fd, &st) == 0 && static_cast<uint64_t>(st.st_dev) == m_dev &&
           static_cast<uint64_t>(st.st_ino) == m_ino;
}

int HeldFile::use() {
    if (m_fd >= 0 && stillOurs(m_fd)) return m_fd;
    if (!m_path || !m_path[0]) {
        errno = EBADF;
        return -1;
    }
    // The old number is the program's now (or closed): left alone.
    m_fd = -1;
    long fd = syscall(SYS_openat, AT_FDCWD, m_path, m_flags | O_CLOEXEC);
    if (fd < 0) return -1;
    fd = toHighNumber(fd);
    if (!stillOurs(static_cast<int>(fd))) {  // another file at our path: not ours to write
        syscall(SYS_close, fd);
        errno = ESTALE;
        return -1;
    }
    m_fd = static_cast<int>(fd);
    return m_fd;
}

bool HeldFile::owns(int fd) const {
    return fd >= 0 && fd == m_fd && stillOurs(fd);
}

void HeldFile::moveAsideFrom(int fd) {
    if (!owns(fd)) return;
    long moved = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, kLowestHeldFd);
    // No number left: the program's dup2 replaces ours, and the next use opens it again.
    m_fd = moved >= 0 ? static_cast<int>(moved) : -1;
}

void HeldFile::close() {
    if (m_fd >= 0 && stillOurs(m_fd)) syscall(SYS_close, m_fd);
    m_fd = -1;
}

}  // namespace sl::capture
