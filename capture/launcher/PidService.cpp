#include "capture/launcher/PidService.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "capture/common/PidQuery.h"
#include "capture/launcher/ProcTree.h"

namespace sl::capture {
namespace {

// The innermost pid (or tid) of the /proc status file `path`: the last of its NSpid; 0 when it
// is gone.
int64_t innermostIn(const std::string& path) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("NSpid:", 0) != 0) continue;
        const auto last = line.find_last_of(" \t");
        return last == std::string::npos ? 0 : std::atoll(line.c_str() + last + 1);
    }
    return 0;
}

// The child of `parent` (any of its threads' children, zombies included) whose innermost pid is
// `namespacePid`; 0 when none is.
int64_t childWithNamespacePid(int64_t parent, int64_t namespacePid) {
    for (int64_t c : childrenOf(parent))
        if (innermostIn("/proc/" + std::to_string(c) + "/status") == namespacePid) return c;
    return 0;
}

// The thread of `pid` whose innermost tid is `namespaceTid`; 0 when none is.
int64_t threadWithNamespaceTid(int64_t pid, int64_t namespaceTid) {
    std::error_code ec;
    for (const auto& t : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
        if (innermostIn(t.path() / "status") == namespaceTid) return std::atoll(t.path().filename().c_str());
    }
    return 0;
}

// A listening socket bound to `addr`, or -1.
int listenOn(const sockaddr_un& addr, socklen_t len) {
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), len) != 0 || listen(fd, 128) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

PidService::PidService(const std::string& sessionDir) : m_path(sessionDir + "/" + kPidSocketName) {
    struct stat procSelf;
    if (lstat("/proc/self", &procSelf) != 0) {
        m_problem = std::string("cannot stat /proc/self: ") + std::strerror(errno);
        return;
    }
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (m_path.size() + 1 <= sizeof addr.sun_path) {
        std::memcpy(addr.sun_path, m_path.c_str(), m_path.size() + 1);
        m_listen = listenOn(addr, sizeof addr);
    }
    // The abstract address reaches processes whose /tmp is their own (a container's), in our
    // network namespace; the path reaches those in another network namespace on our files.
    if (const socklen_t len = pidAbstractAddress(sessionDir.c_str(), addr)) m_listenAbstract = listenOn(addr, len);
    if ((m_listen < 0 && m_listenAbstract < 0) || pipe2(m_stop, O_CLOEXEC) != 0) {
        m_problem = "cannot listen on " + m_path + ": " + std::strerror(errno);
        return;
    }
    m_procDevice = std::to_string(static_cast<uint64_t>(procSelf.st_dev));
    // Signals stay with the launcher's main thread (its stop handlers and its waits).
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    m_thread = std::thread([this] { serve(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

PidService::~PidService() {
    if (m_thread.joinable()) {
        [[maybe_unused]] ssize_t w = write(m_stop[1], "x", 1);
        m_thread.join();
    }
    for (int fd : {m_listen, m_listenAbstract, m_stop[0], m_stop[1]})
        if (fd >= 0) close(fd);
    if (m_listen >= 0) unlink(m_path.c_str());
}

void PidService::serve() {
    for (;;) {
        pollfd fds[3] = {{m_stop[0], POLLIN, 0}, {m_listen, POLLIN, 0}, {m_listenAbstract, POLLIN, 0}};
        if (poll(fds, 3, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        if (fds[0].revents) return;
        for (int k = 1; k < 3; ++k) {
            if (!(fds[k].revents & POLLIN)) continue;
            const int fd = accept4(fds[k].fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) continue;
            answer(fd);
            close(fd);
        }
    }
}

void PidService::answer(int fd) {
    ucred peer{};
    socklen_t len = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.pid <= 0) return;
    // A client that does not send its request in time gets no answer: the thread moves on.
    timeval tv{0, 200 * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int64_t request = INT64_MIN;
    if (recv(fd, &request, sizeof request, MSG_WAITALL) != static_cast<ssize_t>(sizeof request) ||
        request == INT64_MIN)
        return;
    PidAnswer a;
    if (request == 0) {
        a.pid = peer.pid;
        a.parentPid = parentOf(peer.pid);
    } else if (request > 0) {
        a.pid = childWithNamespacePid(peer.pid, request);
        a.parentPid = a.pid ? peer.pid : 0;
    } else {
        a.pid = threadWithNamespaceTid(peer.pid, -request);
        a.parentPid = a.pid ? peer.pid : 0;
    }
    // Counted before the send: the asker may read the count as soon as it has the answer.
    ++m_answered;
    if (send(fd, &a, sizeof a, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof a)) --m_answered;
}

}  // namespace sl::capture
