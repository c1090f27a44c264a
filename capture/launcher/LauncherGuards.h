#pragma once
// The resources `sightline profile` holds while the program runs, each owned by one object that
// gives it back on every path out of Launcher::run (errors included): a descriptor, a temporary
// directory, the stop-signal handlers, the started program.
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace sl::capture {

class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : m_fd(fd) {}
    UniqueFd(UniqueFd&& o) noexcept : m_fd(std::exchange(o.m_fd, -1)) {}
    UniqueFd& operator=(UniqueFd&& o) noexcept;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }
    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }
    void reset();

private:
    int m_fd = -1;
};

struct Pipe {
    UniqueFd read, write;
    // pipe2(O_CLOEXEC); false with errno set.
    bool open();
};

// A directory removed with its contents when the guard ends, unless keep() was called.
class TempDir {
public:
    TempDir() = default;
    explicit TempDir(std::string path) : m_path(std::move(path)) {}
    TempDir(TempDir&& o) noexcept : m_path(std::exchange(o.m_path, {})), m_keep(o.m_keep) {}
    TempDir& operator=(TempDir&& o) noexcept;
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() { remove(); }
    const std::string& path() const { return m_path; }
    void keep() { m_keep = true; }
    void remove();

private:
    std::string m_path;
    bool m_keep = false;
};

// The profiler's own descriptor limit raised (to 1024, within the hard limit) while it runs:
// under `ulimit -Sn 13` it could not make its pipes and the program never ran. The program
// gets the limit it was started with (the forked child sets previous() before its exec).
class RaisedDescriptorLimit {
public:
    RaisedDescriptorLimit();
    ~RaisedDescriptorLimit();
    RaisedDescriptorLimit(const RaisedDescriptorLimit&) = delete;
    RaisedDescriptorLimit& operator=(const RaisedDescriptorLimit&) = delete;
    // The soft and hard limits as they were; raised() false when nothing changed.
    const struct rlimit& previous() const { return m_old; }
    bool raised() const { return m_raised; }

private:
    struct rlimit m_old {};
    bool m_raised = false;
};

// Handlers installed for a set of signals; the previous ones come back when the guard ends.
class SignalHandlers {
public:
    SignalHandlers(const std::vector<int>& signals, void (*handler)(int), int flags = 0);
    // With the sender's siginfo (SA_SIGINFO). Yes: a signal the profiler was started with
    // ignored (nohup: SIGHUP; a script's background job: SIGINT and SIGQUIT) stays ignored for
    // the profiler and for the program, which inherits SIG_IGN (previous()), but the handler is
    // installed and ignoredAtStart() says so: one sent to the profiler from outside (`kill -INT
    // $!` in a script) was meant for the program, which may have installed its own handler,
    // and is passed on. Before, nothing was installed and such a signal was lost.
    // No: installed over SIG_IGN and acted on (SIGUSR1 under -c nvtx, which the modules send).
    enum class KeepIgnored { Yes, No };
    SignalHandlers(const std::vector<int>& signals, void (*action)(int, siginfo_t*, void*),
                   KeepIgnored);
    ~SignalHandlers();
    SignalHandlers(const SignalHandlers&) = delete;
    SignalHandlers& operator=(const SignalHandlers&) = delete;
    // What the program must get back in the forked child before exec.
    const std::vector<std::pair<int, struct sigaction>>& previous() const { return m_old; }
    // Whether `sig` was ignored when a KeepIgnored::Yes guard installed its handler.
    // Async-signal-safe.
    static bool ignoredAtStart(int sig);

private:
    void install(const std::vector<int>& signals, struct sigaction sa, bool keepIgnored);
    std::vector<std::pair<int, struct sigaction>> m_old;
};

// What wakes the launcher while it waits for the program's tree: a child ended (SIGCHLD) or a
// stop signal arrived. The handlers write a byte into a pipe the wait polls, so the launcher
// sleeps until something happens instead of polling (each poll took a CPU from the program),
// whichever of its threads the kernel gives the signal to. One at a time.
class WakePipe {
public:
    WakePipe();
    ~WakePipe();
    WakePipe(const WakePipe&) = delete;
    WakePipe& operator=(const WakePipe&) = delete;
    bool ok() const { return m_fds.read.get() >= 0; }
    // Until a wake-up came (those that came since the last wait included) or timeoutNs passed.
    void wait(int64_t timeoutNs);
    // Async-signal-safe; does nothing without a live WakePipe.
    static void notify();

private:
    Pipe m_fds;
};

// The started program and its tree: killed (SIGKILL) and reaped when the guard ends before the
// tree was waited for, so no error path leaves a program running or a zombie behind.
class ProgramTree {
public:
    ProgramTree() = default;
    ~ProgramTree();
    ProgramTree(const ProgramTree&) = delete;
    ProgramTree& operator=(const ProgramTree&) = delete;
    void started(pid_t pid) { m_pid = pid; }
    pid_t pid() const { return m_pid; }
    // The tree was waited for (or deliberately left running with --kill=none).
    void done() { m_pid = -1; }

private:
    pid_t m_pid = -1;
};

}  // namespace sl::capture
