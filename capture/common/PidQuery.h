#pragma once
// How a traced process learns its pid as the launcher sees it when its /proc cannot say: a
// process in another PID namespace whose /proc is that namespace's own (`unshare --pid --fork
// --mount-proc`, a container runtime's child) sees only its namespace pid in /proc/self/status,
// so three programs would all be "pid 1". It connects to the launcher's socket in the session
// directory; the kernel translates the peer's pid into the reader's namespace (SO_PEERCRED), so
// the launcher answers with the pid and parent pid it sees. Only processes whose /proc is not
// the launcher's ask (env::kProcDevice); the rest pay one lstat (2 us). Raw system calls only:
// called in forked children.
#include <cstdint>

namespace sl::capture {

// <session dir>/<kPidSocketName>, a Unix stream socket (capture/launcher/PidService.h).
inline constexpr const char* kPidSocketName = "pids.sock";

// The launcher's answer: 16 bytes.
struct PidAnswer {
    int64_t pid = 0;        // the caller's pid in the launcher's namespace
    int64_t parentPid = 0;  // its parent's, 0 when the launcher cannot see it
};

// Asks the launcher (waits at most `timeoutMs`); false when there is no answer (no socket, the
// launcher gone, a path too long for a socket address).
bool askLauncherForPids(const char* sessionDir, PidAnswer& out, int timeoutMs = 500);

}  // namespace sl::capture
