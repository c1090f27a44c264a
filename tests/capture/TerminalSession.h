#pragma once
// A user's interactive shell for the end-to-end tests: bash on a terminal of its own (a pty),
// with job control, so that what a person sees (Ctrl+Z, "Stopped", fg, bg) is what the tests
// see. The tests type into it and wait for what it shows.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {

class TerminalSession {
public:
    // False from ok() where the machine has no pty or no bash.
    TerminalSession() {
        m_master = posix_openpt(O_RDWR | O_NOCTTY);
        if (m_master < 0 || grantpt(m_master) != 0 || unlockpt(m_master) != 0) return;
        const std::string slave = ptsname(m_master);
        m_shell = fork();
        if (m_shell == 0) {
            takeTerminal(slave, m_master);
            setenv("PS1", "PROMPT$ ", 1);
            setenv("TERM", "dumb", 1);
            execl("/bin/bash", "bash", "--norc", "--noprofile", "-i", static_cast<char*>(nullptr));
            _exit(121);
        }
        m_ok = m_shell > 0 && waitFor("PROMPT$ ");
    }
    ~TerminalSession() {
        // A job left behind (a test that failed) gets the terminal's hang-up with its shell.
        if (m_shell > 0) {
            type("exit\n");
            for (int i = 0; i < 100 && waitpid(m_shell, nullptr, WNOHANG) == 0; ++i) pump(20);
            kill(m_shell, SIGKILL);
            waitpid(m_shell, nullptr, 0);
        }
        if (m_master >= 0) close(m_master);
    }
    TerminalSession(const TerminalSession&) = delete;
    TerminalSession& operator=(const TerminalSession&) = delete;

    bool ok() const { return m_ok; }
    void type(const std::string& keys) {
        [[maybe_unused]] ssize_t n = write(m_master, keys.data(), keys.size());
    }
    // Waits until `text` shows after what the last wait matched; false after `timeoutMs`.
    bool waitFor(const std::string& text, int timeoutMs = 20000) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        while (true) {
            if (size_t at = m_shown.find(text, m_seen); at != std::string::npos) {
                m_seen = at + text.size();
                return true;
            }
            if (std::chrono::steady_clock::now() >= end) return false;
            pump(20);
        }
    }
    // Everything the terminal showed so far.
    const std::string& shown() {
        pump(0);
        return m_shown;
    }
    // What showed after the last match, after `ms` more.
    std::string since(int ms) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        while (std::chrono::steady_clock::now() < end) pump(20);
        return m_shown.substr(m_seen);
    }

private:
    void pump(int ms) {
        pollfd p{m_master, POLLIN, 0};
        if (poll(&p, 1, ms) <= 0) return;
        char buf[4096];
        const ssize_t n = read(m_master, buf, sizeof buf);
        if (n > 0) m_shown.append(buf, static_cast<size_t>(n));
    }
    int m_master = -1;
    pid_t m_shell = -1;
    bool m_ok = false;
    std::string m_shown;
    size_t m_seen = 0;
};

}  // namespace sl::test
