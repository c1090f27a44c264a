#include "app/remote/Subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sl::remote {

namespace {

bool makePipe(int fds[2]) { return pipe2(fds, O_CLOEXEC) == 0; }

void closeBoth(int fds[2]) {
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
}

}  // namespace

Result<Child> spawn(const std::vector<std::string>& argv, const SpawnOptions& o) {
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if ((o.pipeIn && !makePipe(in)) || (o.pipeOut && !makePipe(out)) ||
        (o.pipeErr && !makePipe(err))) {
        const std::string why = std::strerror(errno);
        closeBoth(in), closeBoth(out), closeBoth(err);
        return makeError("cannot create a pipe for " + argv[0] + ": " + why);
    }
    // Everything the child needs is prepared before fork: only async-signal-safe calls after.
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int devNull = open("/dev/null", O_RDWR | O_CLOEXEC);
    const pid_t pid = fork();
    if (pid < 0) {
        const std::string why = std::strerror(errno);
        closeBoth(in), closeBoth(out), closeBoth(err);
        if (devNull >= 0) close(devNull);
        return makeError("cannot start " + argv[0] + ": " + why);
    }
    if (pid == 0) {
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        dup2(o.pipeIn ? in[0] : devNull, 0);
        if (o.pipeOut) dup2(out[1], 1);
        else dup2(devNull, 1);
        if (o.pipeErr) dup2(err[1], 2);
        else if (o.errFd >= 0) dup2(o.errFd, 2);
        // Nothing else of ours reaches ssh: a progress descriptor the GUI gave us must close
        // when we end, not when an ssh channel does.
        for (int fd = 3; fd < 1024; ++fd) close(fd);
        execvp(args[0], args.data());
        const char msg[] = "sightline: cannot run the ssh client (is openssh-client installed?)\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(127);
    }
    if (devNull >= 0) close(devNull);
    Child c;
    c.pid = pid;
    if (o.pipeIn) close(in[0]), c.in = in[1];
    if (o.pipeOut) close(out[1]), c.out = out[0];
    if (o.pipeErr) close(err[1]), c.err = err[0];
    return c;
}

int waitChild(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return 255;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 255;
}

Result<Ran> runProgram(const std::vector<std::string>& argv, const std::string& input) {
    SpawnOptions o;
    o.pipeIn = !input.empty();
    auto child = spawn(argv, o);
    if (!child) return std::move(child).takeError();
    if (child->in >= 0) {
        // A remote script of a few kilobytes: the pipe takes it whole, or the reader drains it.
        signal(SIGPIPE, SIG_IGN);
        size_t done = 0;
        while (done < input.size()) {
            const ssize_t n = write(child->in, input.data() + done, input.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
        close(child->in);
    }
    Ran r;
    pollfd fds[2] = {{child->out, POLLIN, 0}, {child->err, POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open = 2;
    char buf[8192];
    while (open > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            } else {
                sinks[i]->append(buf, static_cast<size_t>(n));
            }
        }
    }
    r.code = waitChild(child->pid);
    return r;
}

}  // namespace sl::remote
