// The module's own descriptors (its stream and buffer arena, HeldFile.h, at 1000 and up) are
// hidden from the program, which sees those numbers as free, as it would without us:
// - fcntl, dup, dup2/dup3 from them, and the calls below that read or change a file through a
//   descriptor, fail with EBADF (the OS runtime interposers do the same for read, write, ioctl
//   and the others they time). bash takes a number in use with
//   close-on-exec set, at 10 or above, for one of its own saved descriptors: `exec 1000>log`
//   saved ours, put log at 1000, then put ours back and closed log, so the script's writes to
//   1000 went into our arena.
// - dup2/dup3 onto one of them move ours to another number first, so the program gets the
//   number it asked for.
// - close_range and closefrom close around them.
// - so do the *at calls (openat, fstatat, statx) given one of them as the directory with a
//   relative or empty path.
// close is in OsrtInterpose.cpp (it is also timed): closing ours returns 0 and keeps it open.
// mmap is not interposed: it stands in front of every allocator and memory tool loaded after
// us, and dlsym inside it can reenter them; a program mapping a number it never opened is a
// case left, as are poll/select on ours (POLLNVAL would need the whole array rewritten) and
// raw system calls (docs/capture.md).
// Our own code uses raw system calls, never these.
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>

#include "capture/inject/InjectCommon.h"

namespace {

using sl::capture::ProcessWriter;
using sl::inject::badDescriptor;
using sl::inject::hiddenDirectory;
using sl::inject::hiddenFromProgram;

// close_range over [first, last] that leaves the module's descriptors open (the close
// interposer's rule for the bulk closes of Python, systemd and friends): the range is closed
// in the pieces between them. Before, each round of close_range(3, ~0U) closed ours, and the
// next write opened it again at the lowest free number for a moment: the program's next open()
// got 4 instead of 3.
int closeRangeAroundOurs(unsigned first, unsigned last, int flags) {
    int held[2];
    const int n = ProcessWriter::inTool() ? 0 : ProcessWriter::heldNumbers(held);
    unsigned from = first;
    for (int i = 0; i < n; ++i) {
        const auto h = static_cast<unsigned>(held[i]);
        if (h < from || h > last) continue;
        if (h > from)
            if (long r = syscall(SYS_close_range, from, h - 1, flags); r != 0) return -1;
        from = h + 1;
    }
    if (from > last) return 0;  // from is at most INT_MAX + 1: no wrap
    return static_cast<int>(syscall(SYS_close_range, from, last, flags));
}

}  // namespace

SL_EXPORT int close_range(unsigned first, unsigned last, int flags) {
    if (first > last) {
        errno = EINVAL;
        return -1;
    }
    return closeRangeAroundOurs(first, last, flags);
}

// glibc's closefrom goes to close_range without the PLT (and, without it, to close on each
// entry of /proc/self/fd, which the close interposer would not see either).
SL_EXPORT void closefrom(int lowfd) {
    SL_REAL(closefrom);
    if (lowfd < 0) lowfd = 0;
    // close_range refused (an old kernel, a seccomp profile answering EPERM): glibc's own way.
    if (closeRangeAroundOurs(static_cast<unsigned>(lowfd), ~0U, 0) != 0)
        real_closefrom.get()(lowfd);
}

// One interposer: when HIDDEN (a condition on the arguments: one of ours is named) it answers
// FAIL without calling the real one, as for a descriptor not open.
#define SL_GUARD(RET, NAME, HIDDEN, FAIL, PARAMS, ARGS) \
    SL_EXPORT RET NAME PARAMS {                         \
        SL_REAL(NAME);                                  \
        if (HIDDEN) return FAIL;                        \
        return real_##NAME.get() ARGS;                  \
    }
// Calls on a descriptor that change or read the file behind it: EBADF for ours, as for a free
// number (a program that truncated "its" descriptor 1000 died of SIGBUS in our buffers).
#define SL_FD_GUARD(RET, NAME, PARAMS, ARGS) \
    SL_GUARD(RET, NAME, hiddenFromProgram(fd), badDescriptor(), PARAMS, ARGS)
SL_FD_GUARD(int, ftruncate, (int fd, off_t len), (fd, len))
SL_FD_GUARD(int, ftruncate64, (int fd, off64_t len), (fd, len))
SL_FD_GUARD(off_t, lseek, (int fd, off_t off, int whence), (fd, off, whence))
SL_FD_GUARD(off64_t, lseek64, (int fd, off64_t off, int whence), (fd, off, whence))
SL_FD_GUARD(int, fallocate, (int fd, int mode, off_t off, off_t len), (fd, mode, off, len))
SL_FD_GUARD(int, fallocate64, (int fd, int mode, off64_t off, off64_t len), (fd, mode, off, len))
SL_FD_GUARD(int, fstat, (int fd, struct stat* st), (fd, st))
SL_FD_GUARD(int, fstat64, (int fd, struct stat64* st), (fd, st))
SL_FD_GUARD(int, fchmod, (int fd, mode_t mode), (fd, mode))
SL_FD_GUARD(int, fchown, (int fd, uid_t u, gid_t g), (fd, u, g))
SL_FD_GUARD(int, fstatfs, (int fd, struct statfs* st), (fd, st))
SL_FD_GUARD(int, fstatfs64, (int fd, struct statfs64* st), (fd, st))
SL_FD_GUARD(int, fstatvfs, (int fd, struct statvfs* st), (fd, st))  // glibc's calls fstatfs inside
SL_FD_GUARD(int, fstatvfs64, (int fd, struct statvfs64* st), (fd, st))
SL_FD_GUARD(int, flock, (int fd, int op), (fd, op))
SL_FD_GUARD(int, fchdir, (int fd), (fd))
SL_FD_GUARD(int, syncfs, (int fd), (fd))
SL_FD_GUARD(int, futimens, (int fd, const struct timespec* t), (fd, t))
SL_FD_GUARD(ssize_t, fgetxattr, (int fd, const char* n, void* v, size_t s), (fd, n, v, s))
SL_FD_GUARD(int, fsetxattr, (int fd, const char* n, const void* v, size_t s, int f), (fd, n, v, s, f))
SL_FD_GUARD(ssize_t, flistxattr, (int fd, char* l, size_t s), (fd, l, s))
SL_FD_GUARD(int, fremovexattr, (int fd, const char* n), (fd, n))
SL_FD_GUARD(ssize_t, readahead, (int fd, off64_t o, size_t c), (fd, o, c))
SL_FD_GUARD(int, sync_file_range, (int fd, off64_t o, off64_t n, unsigned f), (fd, o, n, f))
SL_FD_GUARD(int, lockf, (int fd, int cmd, off_t len), (fd, cmd, len))
SL_FD_GUARD(int, lockf64, (int fd, int cmd, off64_t len), (fd, cmd, len))
// Binaries built against glibc before 2.33 call these for fstat and fstatat.
SL_FD_GUARD(int, __fxstat, (int ver, int fd, struct stat* st), (ver, fd, st))
SL_FD_GUARD(int, __fxstat64, (int ver, int fd, struct stat64* st), (ver, fd, st))
#undef SL_FD_GUARD

// These return the error instead of setting errno.
SL_GUARD(int, posix_fallocate, hiddenFromProgram(fd), EBADF, (int fd, off_t off, off_t len),
         (fd, off, len))
SL_GUARD(int, posix_fallocate64, hiddenFromProgram(fd), EBADF,
         (int fd, off64_t off, off64_t len), (fd, off, len))
SL_GUARD(int, posix_fadvise, hiddenFromProgram(fd), EBADF,
         (int fd, off_t off, off_t len, int advice), (fd, off, len, advice))
SL_GUARD(int, posix_fadvise64, hiddenFromProgram(fd), EBADF,
         (int fd, off64_t off, off64_t len, int advice), (fd, off, len, advice))

// Two descriptors (copies, epoll_ctl's watched one): EBADF when either is ours. sendfile and
// splice read our stream from its write offset before.
#define SL_FD_PAIR_GUARD(RET, NAME, A, B, PARAMS, ARGS) \
    SL_GUARD(RET, NAME, hiddenFromProgram(A) || hiddenFromProgram(B), badDescriptor(), PARAMS, ARGS)
SL_FD_PAIR_GUARD(ssize_t, sendfile, out, in, (int out, int in, off_t* off, size_t n),
                 (out, in, off, n))
SL_FD_PAIR_GUARD(ssize_t, sendfile64, out, in, (int out, int in, off64_t* off, size_t n),
                 (out, in, off, n))
SL_FD_PAIR_GUARD(ssize_t, copy_file_range, in, out,
                 (int in, off64_t* inOff, int out, off64_t* outOff, size_t n, unsigned flags),
                 (in, inOff, out, outOff, n, flags))
SL_FD_PAIR_GUARD(ssize_t, splice, in, out,
                 (int in, off64_t* inOff, int out, off64_t* outOff, size_t n, unsigned flags),
                 (in, inOff, out, outOff, n, flags))
SL_FD_PAIR_GUARD(ssize_t, tee, in, out, (int in, int out, size_t n, unsigned flags),
                 (in, out, n, flags))
SL_FD_PAIR_GUARD(int, epoll_ctl, ep, fd, (int ep, int op, int fd, struct epoll_event* ev),
                 (ep, op, fd, ev))
#undef SL_FD_PAIR_GUARD

// The *at calls with one of ours as the directory and a relative or empty path (fchownat with
// AT_EMPTY_PATH changed our arena's owner; the others answered ENOTDIR, not EBADF).
#define SL_AT_GUARD(RET, NAME, PARAMS, ARGS) \
    SL_GUARD(RET, NAME, hiddenDirectory(dir, path), badDescriptor(), PARAMS, ARGS)
SL_AT_GUARD(int, fstatat, (int dir, const char* path, struct stat* st, int flags),
            (dir, path, st, flags))
SL_AT_GUARD(int, fstatat64, (int dir, const char* path, struct stat64* st, int flags),
            (dir, path, st, flags))
SL_AT_GUARD(int, statx,
            (int dir, const char* path, int flags, unsigned mask, struct statx* st),
            (dir, path, flags, mask, st))
SL_AT_GUARD(int, __fxstatat, (int ver, int dir, const char* path, struct stat* st, int flags),
            (ver, dir, path, st, flags))
SL_AT_GUARD(int, __fxstatat64,
            (int ver, int dir, const char* path, struct stat64* st, int flags),
            (ver, dir, path, st, flags))
SL_AT_GUARD(int, fchownat, (int dir, const char* path, uid_t u, gid_t g, int flags),
            (dir, path, u, g, flags))
SL_AT_GUARD(int, faccessat, (int dir, const char* path, int mode, int flags),
            (dir, path, mode, flags))
SL_AT_GUARD(int, fchmodat, (int dir, const char* path, mode_t mode, int flags),
            (dir, path, mode, flags))
SL_AT_GUARD(int, unlinkat, (int dir, const char* path, int flags), (dir, path, flags))
SL_AT_GUARD(int, mkdirat, (int dir, const char* path, mode_t mode), (dir, path, mode))
SL_AT_GUARD(int, mknodat, (int dir, const char* path, mode_t mode, dev_t dev),
            (dir, path, mode, dev))
SL_AT_GUARD(ssize_t, readlinkat, (int dir, const char* path, char* buf, size_t size),
            (dir, path, buf, size))
SL_AT_GUARD(int, utimensat, (int dir, const char* path, const struct timespec* t, int flags),
            (dir, path, t, flags))
SL_AT_GUARD(int, name_to_handle_at,
            (int dir, const char* path, struct file_handle* h, int* mount, int flags),
            (dir, path, h, mount, flags))
SL_GUARD(int, symlinkat, hiddenDirectory(dir, path), badDescriptor(),
         (const char* target, int dir, const char* path), (target, dir, path))
#undef SL_AT_GUARD
// Two directories (linkat with AT_EMPTY_PATH made a second name for our arena).
#define SL_AT_PAIR_GUARD(RET, NAME, PARAMS, ARGS)                                             \
    SL_GUARD(RET, NAME, hiddenDirectory(oldDir, oldPath) || hiddenDirectory(newDir, newPath), \
             badDescriptor(), PARAMS, ARGS)
SL_AT_PAIR_GUARD(int, linkat,
                 (int oldDir, const char* oldPath, int newDir, const char* newPath, int flags),
                 (oldDir, oldPath, newDir, newPath, flags))
SL_AT_PAIR_GUARD(int, renameat, (int oldDir, const char* oldPath, int newDir, const char* newPath),
                 (oldDir, oldPath, newDir, newPath))
SL_AT_PAIR_GUARD(int, renameat2,
                 (int oldDir, const char* oldPath, int newDir, const char* newPath, unsigned flags),
                 (oldDir, oldPath, newDir, newPath, flags))
#undef SL_AT_PAIR_GUARD
#undef SL_GUARD

// fcntl's third argument is read as glibc does: one pointer-sized word, passed on as is.
SL_EXPORT int fcntl(int fd, int cmd, ...) {
    SL_REAL(fcntl);
    va_list ap;
    va_start(ap, cmd);
    void* arg = va_arg(ap, void*);
    va_end(ap);
    if (hiddenFromProgram(fd)) return badDescriptor();
    return real_fcntl.get()(fd, cmd, arg);
}
// What programs built with _FILE_OFFSET_BITS=64 call (the same function in glibc on 64-bit).
SL_EXPORT int fcntl64(int fd, int cmd, ...) {
    SL_REAL(fcntl64);
    va_list ap;
    va_start(ap, cmd);
    void* arg = va_arg(ap, void*);
    va_end(ap);
    if (hiddenFromProgram(fd)) return badDescriptor();
    return real_fcntl64.get()(fd, cmd, arg);
}

SL_EXPORT int dup(int oldfd) {
    SL_REAL(dup);
    if (hiddenFromProgram(oldfd)) return badDescriptor();
    return real_dup.get()(oldfd);
}

// Ours moves aside only for a call that will replace it: a dup2 that fails (a bad oldfd)
// must leave no untracked copy of our file at the program's number.
bool willReplace(int oldfd, int newfd) {
    return oldfd != newfd &&
           newfd >= sl::capture::g_lowestHeldEver.load(std::memory_order_relaxed) &&
           syscall(SYS_fcntl, oldfd, F_GETFD) >= 0;
}

SL_EXPORT int dup2(int oldfd, int newfd) {
    SL_REAL(dup2);
    if (hiddenFromProgram(oldfd)) return badDescriptor();
    if (willReplace(oldfd, newfd)) ProcessWriter::moveAsideFrom(newfd);
    return real_dup2.get()(oldfd, newfd);
}

SL_EXPORT int dup3(int oldfd, int newfd, int flags) {
    SL_REAL(dup3);
    if (hiddenFromProgram(oldfd)) return badDescriptor();
    if ((flags & ~O_CLOEXEC) == 0 && willReplace(oldfd, newfd))
        ProcessWriter::moveAsideFrom(newfd);
    return real_dup3.get()(oldfd, newfd, flags);
}
