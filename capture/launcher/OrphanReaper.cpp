#include "capture/launcher/OrphanReaper.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace sl::capture {

pid_t orphanReaper() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return 0;
    const pid_t child = fork();
    if (child < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (child == 0) {
        close(fds[0]);
        const pid_t self = getpid();
        if (fork() == 0) {
            // Reparented when the child exits, before the launcher can reap it.
            for (int i = 0; i < 100000 && getppid() == self; ++i) sched_yield();
            const pid_t reaper = getppid();
            [[maybe_unused]] ssize_t w = write(fds[1], &reaper, sizeof reaper);
            _exit(0);
        }
        _exit(0);
    }
    close(fds[1]);
    int st;
    while (waitpid(child, &st, 0) < 0 && errno == EINTR) {
    }
    pid_t reaper = 0;
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, 100) == 1 && read(fds[0], &reaper, sizeof reaper) != sizeof reaper) reaper = 0;
    close(fds[0]);
    return reaper > 0 && reaper != child ? reaper : 0;
}

}  // namespace sl::capture
