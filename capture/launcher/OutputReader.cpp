#include "capture/launcher/OutputReader.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "capture/common/Clock.h"

namespace sl::capture {

void OutputReader::start(int outFd, int errFd, bool echo) {
    m_echo = echo;
    m_fds[0] = outFd;
    m_fds[1] = errFd;
    m_thread = std::thread([this] { run(); });
}

void OutputReader::stop() {
    m_stop.store(true);
    if (m_thread.joinable()) m_thread.join();
}

void OutputReader::run() {
    pollfd p[2] = {{m_fds[0], POLLIN, 0}, {m_fds[1], POLLIN, 0}};
    int open = 2;
    char buf[65536];
    while (open > 0) {
        int r = poll(p, 2, 50);
        if (r == 0 && m_stop.load()) break;
        if (r < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP))) continue;
            ssize_t n = read(p[i].fd, buf, sizeof buf);
            if (n <= 0) {
                close(p[i].fd);
                p[i].fd = -1;
                --open;
                continue;
            }
            if (m_echo) [[maybe_unused]] ssize_t w = write(i == 0 ? 1 : 2, buf, static_cast<size_t>(n));
            ProgramOutput o;
            o.stream = i + 1;
            o.time = nowNs();
            o.text.assign(buf, static_cast<size_t>(n));
            m_out.push_back(std::move(o));
        }
    }
    for (auto& x : p)
        if (x.fd >= 0) close(x.fd);
}

}  // namespace sl::capture
