#include "capture/common/PidQuery.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

namespace sl::capture {

namespace {

// One connection to `addr` (`len` bytes of it) and its answer; false when none came.
bool ask(const sockaddr_un& addr, socklen_t len, int64_t request, PidAnswer& out, int timeoutMs) {
    const long fd = syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    timeval tv{timeoutMs / 1000, (timeoutMs % 1000) * 1000};
    syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    bool ok = false;
    if (syscall(SYS_connect, fd, &addr, len) == 0 &&
        syscall(SYS_sendto, fd, &request, sizeof request, MSG_NOSIGNAL, nullptr, 0) ==
            static_cast<long>(sizeof request)) {
        PidAnswer a;
        char* p = reinterpret_cast<char*>(&a);
        long got = 0, n;
        while (got < static_cast<long>(sizeof a) &&
               (n = syscall(SYS_read, fd, p + got, sizeof a - static_cast<size_t>(got))) > 0)
            got += n;
        if (got == static_cast<long>(sizeof a)) {  // an answer, which may be "no such child"
            out = a;
            ok = true;
        }
    }
    syscall(SYS_close, fd);
    return ok;
}

// Asks at the session directory's socket, then at the abstract address.
bool askEither(const char* sessionDir, int64_t request, PidAnswer& out, int timeoutMs) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const size_t dirLen = std::strlen(sessionDir), nameLen = std::strlen(kPidSocketName);
    if (dirLen + 1 + nameLen + 1 <= sizeof addr.sun_path) {
        std::memcpy(addr.sun_path, sessionDir, dirLen);
        addr.sun_path[dirLen] = '/';
        std::memcpy(addr.sun_path + dirLen + 1, kPidSocketName, nameLen + 1);
        if (ask(addr, sizeof addr, request, out, timeoutMs)) return true;
    }
    const socklen_t len = pidAbstractAddress(sessionDir, addr);
    return len && ask(addr, len, request, out, timeoutMs);
}

}  // namespace

bool askLauncherForPids(const char* sessionDir, PidAnswer& out, int timeoutMs) {
    PidAnswer a;
    if (!askEither(sessionDir, 0, a, timeoutMs) || a.pid <= 0) return false;
    out = a;
    return true;
}

int64_t askLauncherForChild(const char* sessionDir, int64_t namespacePid, int timeoutMs) {
    PidAnswer a;
    return namespacePid > 0 && askEither(sessionDir, namespacePid, a, timeoutMs) ? a.pid : 0;
}

int64_t askLauncherForThread(const char* sessionDir, int64_t namespaceTid, int timeoutMs) {
    PidAnswer a;
    return namespaceTid > 0 && askEither(sessionDir, -namespaceTid, a, timeoutMs) ? a.pid : 0;
}

}  // namespace sl::capture
