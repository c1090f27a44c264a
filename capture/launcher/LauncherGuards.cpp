#include "capture/launcher/LauncherGuards.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "capture/launcher/ProcTree.h"

namespace sl::capture {

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
        reset();
        m_fd = std::exchange(o.m_fd, -1);
    }
    return *this;
}

void UniqueFd::reset() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
}

bool Pipe::open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read = UniqueFd(fds[0]);
    write = UniqueFd(fds[1]);
    return true;
}

TempDir& TempDir::operator=(TempDir&& o) noexcept {
    if (this != &o) {
        remove();
        m_path = std::exchange(o.m_path, {});
        m_keep = o.m_keep;
    }
    return *this;
}

void TempDir::remove() {
    if (!m_path.empty() && !m_keep) {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    m_path.clear();
}

SignalHandlers::SignalHandlers(std::initializer_list<int> signals, void (*handler)(int)) {
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (int sig : signals) {
        struct sigaction old {};
        sigaction(sig, &sa, &old);
        m_old.emplace_back(sig, old);
    }
}

SignalHandlers::~SignalHandlers() {
    for (const auto& [sig, old] : m_old) sigaction(sig, &old, nullptr);
}

ProgramTree::~ProgramTree() {
    if (m_pid <= 0) return;
    // Kill the tree (the root is in it: our child) and reap it. A process forked after the
    // kill reached its parent is adopted by us, alive: kill again until none is left.
    int st;
    for (;;) {
        killTree(SIGKILL);
        const pid_t r = waitpid(-1, &st, __WALL);
        if (r < 0 && errno == ECHILD) break;
    }
}

}  // namespace sl::capture
