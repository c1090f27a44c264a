// The module's own descriptors (its stream and buffer arena, HeldFile.h, at 1000 and up) are
// hidden from the program, which sees those numbers as free, as it would without us:
// - fcntl, dup, and dup2/dup3 from them fail with EBADF. bash takes a number in use with
//   close-on-exec set, at 10 or above, for one of its own saved descriptors: `exec 1000>log`
//   saved ours, put log at 1000, then put ours back and closed log, so the script's writes to
//   1000 went into our arena.
// - dup2/dup3 onto one of them move ours to another number first, so the program gets the
//   number it asked for.
// close is in OsrtInterpose.cpp (it is also timed): closing ours returns 0 and keeps it open.
// Our own code uses raw system calls, never these.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>

#include "capture/inject/InjectCommon.h"

namespace {

using sl::capture::ProcessWriter;

// One of ours, asked about by the program (not by a library call of our own).
bool hiddenFromProgram(int fd) {
    return __builtin_expect(fd >= 1000, 0) && ProcessWriter::ownsFd(fd) &&
           !ProcessWriter::inTool();
}

int badDescriptor() {
    errno = EBADF;
    return -1;
}

}  // namespace

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

SL_EXPORT int dup2(int oldfd, int newfd) {
    SL_REAL(dup2);
    if (hiddenFromProgram(oldfd)) return badDescriptor();
    if (newfd >= 1000) ProcessWriter::moveAsideFrom(newfd);
    return real_dup2.get()(oldfd, newfd);
}

SL_EXPORT int dup3(int oldfd, int newfd, int flags) {
    SL_REAL(dup3);
    if (hiddenFromProgram(oldfd)) return badDescriptor();
    if (newfd >= 1000) ProcessWriter::moveAsideFrom(newfd);
    return real_dup3.get()(oldfd, newfd, flags);
}
