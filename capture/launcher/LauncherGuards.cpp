#include "capture/launcher/LauncherGuards.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
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

RaisedDescriptorLimit::RaisedDescriptorLimit() {
    if (getrlimit(RLIMIT_NOFILE, &m_old) != 0 || m_old.rlim_cur >= 1024) return;
    struct rlimit raised = m_old;
    raised.rlim_cur = m_old.rlim_max == RLIM_INFINITY ? 1024 : std::min<rlim_t>(1024, m_old.rlim_max);
    m_raised = raised.rlim_cur > m_old.rlim_cur && setrlimit(RLIMIT_NOFILE, &raised) == 0;
}

RaisedDescriptorLimit::~RaisedDescriptorLimit() {
    if (m_raised) setrlimit(RLIMIT_NOFILE, &m_old);
}

SignalHandlers::SignalHandlers(const std::vector<int>& signals, void (*handler)(int),
                               int flags) {
    struct sigaction sa {};
    sa.sa_handler = handler;
    sa.sa_flags = flags;
    install(signals, sa, false);
}

SignalHandlers::SignalHandlers(const std::vector<int>& signals,
                               void (*action)(int, siginfo_t*, void*), KeepIgnored keep) {
    struct sigaction sa {};
    sa.sa_sigaction = action;
    sa.sa_flags = SA_SIGINFO;
    install(signals, sa, keep == KeepIgnored::Yes);
}

namespace {
std::atomic<uint64_t> g_ignoredAtStart{0};  // a bit per signal (KeepIgnored::Yes)
static_assert(std::atomic<uint64_t>::is_always_lock_free, "read in signal handlers");
uint64_t bitOf(int sig) {
    return sig > 0 && sig < 64 ? 1ULL << sig : 0;
}
}  // namespace

bool SignalHandlers::ignoredAtStart(int sig) {
    return g_ignoredAtStart.load() & bitOf(sig);
}

void SignalHandlers::install(const std::vector<int>& signals, struct sigaction sa,
                             bool keepIgnored) {
    sigemptyset(&sa.sa_mask);
    for (int sig : signals) {
        struct sigaction old {};
        if (sigaction(sig, nullptr, &old) != 0) continue;
        if (keepIgnored && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN)
            g_ignoredAtStart.fetch_or(bitOf(sig));
        sigaction(sig, &sa, &old);
        m_old.emplace_back(sig, old);
    }
}

SignalHandlers::~SignalHandlers() {
    for (const auto& [sig, old] : m_old) {
        sigaction(sig, &old, nullptr);
        g_ignoredAtStart.fetch_and(~bitOf(sig));
    }
}

namespace {
volatile sig_atomic_t g_wakeFd = -1;
}  // namespace

WakePipe::WakePipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return;
    m_fds.read = UniqueFd(fds[0]);
    m_fds.write = UniqueFd(fds[1]);
    g_wakeFd = fds[1];
}

WakePipe::~WakePipe() {
    g_wakeFd = -1;
}

void WakePipe::notify() {
    const int fd = g_wakeFd;
    if (fd < 0) return;
    const int saved = errno;
    const char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(fd, &byte, 1);  // a full pipe already wakes the wait
    errno = saved;
}

void WakePipe::wait(int64_t timeoutNs) {
    const int ms = static_cast<int>(std::clamp<int64_t>((timeoutNs + 999'999) / 1'000'000, 0, INT32_MAX));
    if (!ok()) {  // no pipe (descriptors ran out): poll as before
        usleep(static_cast<useconds_t>(std::min(ms, 5) * 1000));
        return;
    }
    pollfd p{m_fds.read.get(), POLLIN, 0};
    if (::poll(&p, 1, ms) > 0) {
        char buf[256];
        while (::read(m_fds.read.get(), buf, sizeof buf) > 0) {
        }
    }
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
