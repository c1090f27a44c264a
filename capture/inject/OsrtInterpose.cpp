// OS runtime interposers: each blocking call is timed with two clock reads and recorded only
// when it took at least --osrt-threshold. Below the threshold the cost is the two reads and a
// compare (see docs/capture.md); outside a --capture-range window it is one load and a test.
// errno is preserved across our bookkeeping.
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include <cerrno>
#include <cstdarg>
#include <type_traits>

#include "capture/inject/InjectCommon.h"
#include "capture/inject/OpenCalls.h"

namespace sl::inject {
namespace {

// Results: pthread-style calls return the error number; the others return -1 and set errno.
enum class ErrStyle { Errno, ReturnCode, Pointer };

template <ErrStyle S, class R, class F, class... A>
inline R timed(capture::CachedString& name, const char* text, F real, A... args) {
    // Off (no OS runtime trace, or outside a --capture-range window): the real call and
    // nothing else. A call that began in a window is recorded even when it ends after it.
    if (!g_osrtOn.load(std::memory_order_relaxed) || !capture::CaptureGate::isOn() ||
        ProcessWriter::inTool())
        return real(args...);
    int64_t t0 = capture::nowNs();
    const OpenCall open = openCallBegin(name, text, t0);  // recorded at the end if never back
    R r = real(args...);
    openCallEnd(open);
    int64_t t1 = capture::nowNs();
    if (__builtin_expect(t1 - t0 >= g_config.osrtThresholdNs, 0)) {
        int e = errno;
        int64_t result;
        int err = 0;
        if constexpr (S == ErrStyle::Pointer) {
            result = static_cast<int64_t>(reinterpret_cast<intptr_t>(r));
            err = r ? 0 : 1;
        } else {
            result = static_cast<int64_t>(r);
            if constexpr (S == ErrStyle::ReturnCode)
                err = static_cast<int>(r);
            else
                err = result < 0 ? e : 0;
        }
        recordOsrt(name, text, t0, t1, result, err);
        errno = e;
    }
    return r;
}

}  // namespace
}  // namespace sl::inject

using sl::inject::ErrStyle;
using sl::inject::timed;

// One interposer: NAME, return type, error style, (params), (args).
#define SL_OSRT(RET, NAME, STYLE, PARAMS, ARGS)                                              \
    SL_EXPORT RET NAME PARAMS {                                                              \
        SL_REAL(NAME);                                                                       \
        static sl::capture::CachedString name_;                                              \
        return timed<ErrStyle::STYLE, RET>(name_, #NAME, real_##NAME.get(), SL_UNPACK ARGS); \
    }
#define SL_UNPACK(...) __VA_ARGS__
// The same for a call whose first argument is a descriptor: EBADF for the module's own
// (InjectCommon.h, hiddenFromProgram), as for a number not open.
#define SL_OSRT_FD(RET, NAME, STYLE, PARAMS, ARGS)                                           \
    SL_EXPORT RET NAME PARAMS {                                                              \
        SL_REAL(NAME);                                                                       \
        static sl::capture::CachedString name_;                                              \
        if (sl::inject::hiddenFromProgram(fd)) return sl::inject::badDescriptor();           \
        return timed<ErrStyle::STYLE, RET>(name_, #NAME, real_##NAME.get(), SL_UNPACK ARGS); \
    }

// Synchronization.
SL_OSRT(int, pthread_mutex_lock, ReturnCode, (pthread_mutex_t * m), (m))
SL_OSRT(int, pthread_mutex_timedlock, ReturnCode, (pthread_mutex_t * m, const struct timespec* t),
        (m, t))
SL_OSRT(int, pthread_rwlock_rdlock, ReturnCode, (pthread_rwlock_t * l), (l))
SL_OSRT(int, pthread_rwlock_wrlock, ReturnCode, (pthread_rwlock_t * l), (l))
SL_OSRT(int, pthread_rwlock_timedrdlock, ReturnCode,
        (pthread_rwlock_t * l, const struct timespec* t), (l, t))
SL_OSRT(int, pthread_rwlock_timedwrlock, ReturnCode,
        (pthread_rwlock_t * l, const struct timespec* t), (l, t))
SL_OSRT(int, pthread_cond_wait, ReturnCode, (pthread_cond_t * c, pthread_mutex_t* m), (c, m))
SL_OSRT(int, pthread_cond_timedwait, ReturnCode,
        (pthread_cond_t * c, pthread_mutex_t* m, const struct timespec* t), (c, m, t))
SL_OSRT(int, pthread_cond_clockwait, ReturnCode,
        (pthread_cond_t * c, pthread_mutex_t* m, clockid_t k, const struct timespec* t),
        (c, m, k, t))
SL_OSRT(int, pthread_join, ReturnCode, (pthread_t th, void** ret), (th, ret))
SL_OSRT(int, sem_wait, Errno, (sem_t * s), (s))
SL_OSRT(int, sem_timedwait, Errno, (sem_t * s, const struct timespec* t), (s, t))
SL_OSRT(int, sem_clockwait, Errno, (sem_t * s, clockid_t k, const struct timespec* t), (s, k, t))

// Sleeping.
SL_OSRT(unsigned, sleep, Errno, (unsigned s), (s))
SL_OSRT(int, usleep, Errno, (useconds_t us), (us))
SL_OSRT(int, nanosleep, Errno, (const struct timespec* req, struct timespec* rem), (req, rem))
SL_OSRT(int, clock_nanosleep, ReturnCode,
        (clockid_t c, int f, const struct timespec* req, struct timespec* rem), (c, f, req, rem))

// File and socket I/O.
SL_OSRT_FD(ssize_t, read, Errno, (int fd, void* b, size_t n), (fd, b, n))
SL_OSRT_FD(ssize_t, write, Errno, (int fd, const void* b, size_t n), (fd, b, n))
SL_OSRT_FD(ssize_t, pread, Errno, (int fd, void* b, size_t n, off_t o), (fd, b, n, o))
SL_OSRT_FD(ssize_t, pwrite, Errno, (int fd, const void* b, size_t n, off_t o), (fd, b, n, o))
SL_OSRT_FD(ssize_t, pread64, Errno, (int fd, void* b, size_t n, off64_t o), (fd, b, n, o))
SL_OSRT_FD(ssize_t, pwrite64, Errno, (int fd, const void* b, size_t n, off64_t o), (fd, b, n, o))
SL_OSRT_FD(ssize_t, readv, Errno, (int fd, const struct iovec* v, int n), (fd, v, n))
SL_OSRT_FD(ssize_t, writev, Errno, (int fd, const struct iovec* v, int n), (fd, v, n))
SL_OSRT_FD(int, fsync, Errno, (int fd), (fd))
SL_OSRT_FD(int, fdatasync, Errno, (int fd), (fd))
SL_OSRT(int, poll, Errno, (struct pollfd * f, nfds_t n, int t), (f, n, t))
SL_OSRT(int, ppoll, Errno,
        (struct pollfd * f, nfds_t n, const struct timespec* t, const sigset_t* m), (f, n, t, m))
SL_OSRT(int, select, Errno, (int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* t),
        (n, r, w, e, t))
SL_OSRT(int, pselect, Errno,
        (int n, fd_set* r, fd_set* w, fd_set* e, const struct timespec* t, const sigset_t* m),
        (n, r, w, e, t, m))
SL_OSRT(int, epoll_wait, Errno, (int ep, struct epoll_event* ev, int n, int t), (ep, ev, n, t))
SL_OSRT(int, epoll_pwait, Errno, (int ep, struct epoll_event* ev, int n, int t, const sigset_t* m),
        (ep, ev, n, t, m))
SL_OSRT_FD(ssize_t, recv, Errno, (int fd, void* b, size_t n, int f), (fd, b, n, f))
SL_OSRT_FD(ssize_t, recvfrom, Errno,
        (int fd, void* b, size_t n, int f, struct sockaddr* a, socklen_t* l), (fd, b, n, f, a, l))
SL_OSRT_FD(ssize_t, recvmsg, Errno, (int fd, struct msghdr* m, int f), (fd, m, f))
SL_OSRT_FD(ssize_t, send, Errno, (int fd, const void* b, size_t n, int f), (fd, b, n, f))
SL_OSRT_FD(ssize_t, sendto, Errno,
        (int fd, const void* b, size_t n, int f, const struct sockaddr* a, socklen_t l),
        (fd, b, n, f, a, l))
SL_OSRT_FD(ssize_t, sendmsg, Errno, (int fd, const struct msghdr* m, int f), (fd, m, f))
SL_OSRT_FD(int, accept, Errno, (int fd, struct sockaddr* a, socklen_t* l), (fd, a, l))
SL_OSRT_FD(int, accept4, Errno, (int fd, struct sockaddr* a, socklen_t* l, int f), (fd, a, l, f))
SL_OSRT_FD(int, connect, Errno, (int fd, const struct sockaddr* a, socklen_t l), (fd, a, l))
SL_OSRT(void*, dlopen, Pointer, (const char* file, int mode), (file, mode))

// close: our stream file is not the program's to close (programs that close every descriptor
// would otherwise cut the capture, and a reused number would receive our blocks).
SL_EXPORT int close(int fd) {
    SL_REAL(close);
    static sl::capture::CachedString name;
    using sl::capture::ProcessWriter;
    if (sl::inject::hiddenFromProgram(fd)) return 0;  // kept open, as if closed
    return timed<ErrStyle::Errno, int>(name, "close", real_close.get(), fd);
}

// Variadic ones: the mode (open) or the argument (ioctl) is passed through as is.
// The mode is there only with O_CREAT or O_TMPFILE, as glibc reads it.
#define SL_OPEN_MODE(FLAGS)                 \
    mode_t mode = 0;                        \
    if ((FLAGS) & (O_CREAT | O_TMPFILE)) {  \
        va_list ap;                         \
        va_start(ap, FLAGS);                \
        mode = va_arg(ap, mode_t);          \
        va_end(ap);                         \
    }
#define SL_OSRT_OPEN(NAME)                                                                    \
    SL_EXPORT int NAME(const char* path, int flags, ...) {                                    \
        SL_REAL(NAME);                                                                        \
        static sl::capture::CachedString name;                                                \
        SL_OPEN_MODE(flags)                                                                   \
        return timed<ErrStyle::Errno, int>(name, #NAME, real_##NAME.get(), path, flags, mode); \
    }
// openat64: what programs built with _FILE_OFFSET_BITS=64 call. One of ours as the directory
// with a relative path answers EBADF (InjectCommon.h, hiddenDirectory).
#define SL_OSRT_OPENAT(NAME)                                                                \
    SL_EXPORT int NAME(int dir, const char* path, int flags, ...) {                         \
        SL_REAL(NAME);                                                                      \
        if (sl::inject::hiddenDirectory(dir, path)) return sl::inject::badDescriptor();     \
        static sl::capture::CachedString name;                                              \
        SL_OPEN_MODE(flags)                                                                 \
        return timed<ErrStyle::Errno, int>(name, #NAME, real_##NAME.get(), dir, path, flags, \
                                           mode);                                           \
    }
SL_OSRT_OPEN(open)
SL_OSRT_OPEN(open64)
SL_OSRT_OPENAT(openat)
SL_OSRT_OPENAT(openat64)
#undef SL_OSRT_OPENAT
#undef SL_OSRT_OPEN
#undef SL_OPEN_MODE
SL_EXPORT int ioctl(int fd, unsigned long request, ...) {
    SL_REAL(ioctl);
    // FIONCLEX on ours would leak it to children.
    if (sl::inject::hiddenFromProgram(fd)) return sl::inject::badDescriptor();
    static sl::capture::CachedString name;
    va_list ap;
    va_start(ap, request);
    void* arg = va_arg(ap, void*);
    va_end(ap);
    return timed<ErrStyle::Errno, int>(name, "ioctl", real_ioctl.get(), fd, request, arg);
}
