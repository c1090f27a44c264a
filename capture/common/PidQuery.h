#pragma once
// How a traced process learns its pid as the launcher sees it when its /proc cannot say: a
// process in another PID namespace whose /proc is that namespace's own (`unshare --pid --fork
// --mount-proc`, a container runtime's child) sees only its namespace pid in /proc/self/status,
// so three programs would all be "pid 1". It connects to the launcher's socket in the session
// directory; the kernel translates the peer's pid into the reader's namespace (SO_PEERCRED), so
// the launcher answers with the pid and parent pid it sees. Only processes whose /proc is not
// the launcher's ask (env::kProcDevice); the rest pay one lstat (2 us). Raw system calls only:
// called in forked children.
#include <sys/socket.h>
#include <sys/un.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sl::capture {

// <session dir>/<kPidSocketName>, a Unix stream socket (capture/launcher/PidService.h), and the
// same service at the abstract address <kPidAbstractPrefix><the session directory's name>, for
// processes with a /tmp of their own (as containers mount) in the launcher's network namespace.
inline constexpr const char* kPidSocketName = "pids.sock";
inline constexpr const char* kPidAbstractPrefix = "sightline-pids-";

// The request (8 bytes, after connecting): 0 asks for the caller's own pid and its parent's;
// a pid asks which of the caller's children that namespace pid (what fork, posix_spawn and wait
// return there) is; a negated tid, which of the caller's threads. The answer (16 bytes) follows.
struct PidAnswer {
    int64_t pid = 0;        // the caller's pid in the launcher's namespace
    int64_t parentPid = 0;  // its parent's, 0 when the launcher cannot see it
};

// Asks the launcher (waits at most `timeoutMs`); false when there is no answer (neither socket
// reachable, the launcher gone).
bool askLauncherForPids(const char* sessionDir, PidAnswer& out, int timeoutMs = 500);

// The pid the launcher sees of the caller's child `namespacePid`; 0 when there is no answer or
// no such child.
int64_t askLauncherForChild(const char* sessionDir, int64_t namespacePid, int timeoutMs = 500);

// The tid the launcher sees of the caller's thread `namespaceTid`; 0 when there is no answer.
int64_t askLauncherForThread(const char* sessionDir, int64_t namespaceTid, int timeoutMs = 500);

// The abstract address for `sessionDir` into `addr`; its length, 0 when it does not fit. Inline:
// the launcher, which does not link the injected code, binds it.
inline socklen_t pidAbstractAddress(const char* sessionDir, sockaddr_un& addr) {
    addr = sockaddr_un{};
    addr.sun_family = AF_UNIX;
    const char* base = std::strrchr(sessionDir, '/');
    base = base ? base + 1 : sessionDir;
    const size_t prefixLen = std::strlen(kPidAbstractPrefix), baseLen = std::strlen(base);
    if (1 + prefixLen + baseLen > sizeof addr.sun_path) return 0;
    std::memcpy(addr.sun_path + 1, kPidAbstractPrefix, prefixLen);  // sun_path[0] = 0: abstract
    std::memcpy(addr.sun_path + 1 + prefixLen, base, baseLen);
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + prefixLen + baseLen);
}

}  // namespace sl::capture
