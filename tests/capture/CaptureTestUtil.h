#pragma once
// Helpers for the end-to-end capture tests: run `sightline profile` on a test client, load the
// report, and query it (events of a kind by name, processes by exit code, ...).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "model/core/Report.h"
#include "model/rep/RepReader.h"

namespace sl::test {

// Removes a capture the profiler kept (`session`, a /tmp/sightline-session-* directory) and the
// buffers of it in /dev/shm that its session.facts names.
inline void removeKeptCapture(const std::filesystem::path& session) {
    std::error_code ec;
    std::ifstream facts(session / "session.facts");
    std::string line;
    while (std::getline(facts, line))
        if (line.rfind("arenas ", 0) == 0 && line.find(' ', 7) != std::string::npos) {
            const std::string arenas = line.substr(line.find(' ', 7) + 1);
            if (arenas.rfind("/dev/shm/sightline-", 0) == 0) std::filesystem::remove_all(arenas, ec);
        }
    std::filesystem::remove_all(session, ec);
}

class CaptureDir {
public:
    CaptureDir() {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "sightline-capture-test-XXXXXX").string();
        m_path = ::mkdtemp(tmpl.data());
    }
    ~CaptureDir() {
        std::error_code ec;
        removeKeptCaptures();
        std::filesystem::remove_all(m_path, ec);
    }
    std::string file(const std::string& name) const { return m_path + "/" + name; }
    const std::string& path() const { return m_path; }

private:
    // Captures whose raw data the profiler kept (a report it could not write, a profiler
    // killed on purpose, blocks it could not add) with their buffers in /dev/shm: those whose
    // options name this directory are this test's. Left behind, a test run leaked about a
    // hundred of them into /dev/shm and /tmp.
    void removeKeptCaptures() const {
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(
                 std::filesystem::temp_directory_path(), ec)) {
            if (e.path().filename().string().rfind("sightline-session-", 0) != 0) continue;
            std::ifstream facts(e.path() / "session.facts");
            std::string line;
            bool ours = false;
            while (std::getline(facts, line))
                if (line.rfind("options ", 0) == 0 && line.find(m_path) != std::string::npos)
                    ours = true;
            if (ours) removeKeptCapture(e.path());
        }
    }
    std::string m_path;
};

// A signal sent to a process `afterMs` milliseconds after the previous one (or its start).
struct TimedSignal {
    int afterMs;
    int signal;
};

// Runs argv (argv[0] a path) in `cwd`, sending `signals` in turn; returns the raw wait status.
// `secondsAfterLast` gets how long the process took to end after the last signal.
inline int runSignalled(const std::vector<std::string>& args,
                        const std::vector<TimedSignal>& signals,
                        double* secondsAfterLast = nullptr, const std::string& cwd = {}) {
    pid_t pid = fork();
    if (pid == 0) {
        if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(120);
        std::vector<char*> argv;
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(121);
    }
    auto last = std::chrono::steady_clock::now();
    for (const TimedSignal& s : signals) {
        usleep(static_cast<useconds_t>(s.afterMs) * 1000);
        last = std::chrono::steady_clock::now();
        kill(pid, s.signal);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (secondsAfterLast)
        *secondsAfterLast =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - last).count();
    return st;
}

// Runs argv in `cwd`; with `sigintAfterMs` > 0 the process gets SIGINT after that long.
inline int runProcess(const std::vector<std::string>& args, const std::string& cwd = {},
                      int sigintAfterMs = 0) {
    return runSignalled(args,
                        sigintAfterMs > 0 ? std::vector<TimedSignal>{{sigintAfterMs, SIGINT}}
                                          : std::vector<TimedSignal>{},
                        nullptr, cwd);
}

// Runs argv as the foreground job of a new terminal (a pseudo-terminal it controls) and types
// `key` on it after `afterMs` (Ctrl+C: "\x03", Ctrl+\\: "\x1c"): the terminal then signals the
// whole foreground process group, as a user's keyboard does. A null `key` hangs the terminal up
// instead (an ssh connection lost): argv leads its session, which has the SIGHUP alone. Returns
// the wait status; what the job printed goes to *output.
// In a forked child: a session of its own whose controlling terminal is the pty `slave`, on
// its standard input, output and error; exits 122 when it cannot have it.
inline void takeTerminal(const std::string& slave, int master) {
    setsid();
    const int fd = open(slave.c_str(), O_RDWR);
    if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) != 0) _exit(122);
    dup2(fd, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    close(master);
}

inline int runOnTerminal(const std::vector<std::string>& args, int afterMs, const char* key,
                         std::string* output = nullptr) {
    const int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return -1;
    const std::string slave = ptsname(master);
    const pid_t pid = fork();
    if (pid == 0) {
        takeTerminal(slave, master);
        std::vector<char*> argv;
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(121);
    }
    std::string out;
    const auto start = std::chrono::steady_clock::now();
    bool typed = false;
    int st = 0;
    for (;;) {
        const double ms = std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start).count();
        if (!typed && ms >= afterMs && !key) {  // the terminal goes away (ssh's connection)
            close(master);
            waitpid(pid, &st, 0);
            if (output) *output = out;
            return st;
        }
        if (!typed && ms >= afterMs) {
            if (write(master, key, std::strlen(key)) > 0) typed = true;
        }
        pollfd p{master, POLLIN, 0};
        if (poll(&p, 1, 20) > 0) {
            char buf[4096];
            const ssize_t n = read(master, buf, sizeof buf);
            if (n > 0) out.append(buf, static_cast<size_t>(n));
        }
        if (waitpid(pid, &st, WNOHANG) == pid) break;
    }
    for (char buf[4096];;) {  // what is left in the terminal
        pollfd p{master, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0) break;
        const ssize_t n = read(master, buf, sizeof buf);
        if (n <= 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    close(master);
    if (output) *output = out;
    return st;
}

inline int exitCodeOf(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// `sightline profile -q true -f true -o <out> <extra...> <program...>`; returns the exit code.
inline int profile(const std::string& out, const std::vector<std::string>& extra,
                   const std::vector<std::string>& program, const std::string& cwd = {}) {
    std::vector<std::string> args = {SIGHTLINE_CLI, "profile", "-q", "true",
                                     "-f",          "true",    "-o", out};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), program.begin(), program.end());
    return exitCodeOf(runProcess(args, cwd));
}

// Runs argv through the shell; returns stdout and stderr together, the exit code in *code.
inline std::string runCapturingStdout(const std::vector<std::string>& args, int* code) {
    std::string cmd;
    for (const auto& a : args) cmd += "'" + a + "' ";
    FILE* f = popen((cmd + "2>&1").c_str(), "r");
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    *code = exitCodeOf(pclose(f));
    return out;
}

inline std::string client(const std::string& name) {
    return std::string(SIGHTLINE_CLIENTS) + "/" + name;
}

// `sightline profile -t nvtx -s none --cpuctxsw none [OPTIONS] -f true -o OUT` of a test client
// and its arguments: NVTX alone, so what a test counts is the program's. Returns the output
// (stdout and stderr together), the exit code in *code.
inline std::string profileNvtxOnly(const std::string& out, const std::string& clientName,
                                   const std::vector<std::string>& args, int* code,
                                   const std::vector<std::string>& options = {}) {
    std::vector<std::string> argv = {SIGHTLINE_CLI, "profile", "-t", "nvtx", "-s", "none",
                                     "--cpuctxsw", "none"};
    argv.insert(argv.end(), options.begin(), options.end());
    for (const char* a : {"-f", "true", "-o"}) argv.push_back(a);
    argv.push_back(out);
    argv.push_back(client(clientName));
    argv.insert(argv.end(), args.begin(), args.end());
    return runCapturingStdout(argv, code);
}

inline std::shared_ptr<Report> load(const std::string& path) {
    auto r = readReport(path);
    if (!r) return nullptr;
    return *r;
}

struct Ev {
    int64_t pid, tid, start, end;
    uint32_t domain;
    std::string name;
    const Track* track;
    size_t index;
};

// Every event of `kind` (optionally only those named `name`), across tracks.
inline std::vector<Ev> events(const Report& r, EventKind kind, const std::string& name = {}) {
    std::vector<Ev> out;
    for (const Track& t : r.tracks) {
        if (t.key.kind != kind) continue;
        for (size_t i = 0; i < t.size(); ++i) {
            std::string n(r.str(t.nameAt(i)));
            if (!name.empty() && n != name) continue;
            out.push_back({t.key.pid, t.key.tid, t.start[i], t.endAt(i), t.key.domain, n, &t, i});
        }
    }
    return out;
}

inline const Process* processWithExit(const Report& r, int code) {
    for (const auto& p : r.processes)
        if (p.exitSignal == 0 && p.end != kUnknownTime && p.exitCode == code) return &p;
    return nullptr;
}

inline int64_t diagnostic(const Report& r, const std::string& name, int64_t pid = -1) {
    int64_t n = 0;
    for (const auto& d : r.diagnostics)
        if (d.name == name && (pid < 0 || d.pid == pid)) n += d.count;
    return n;
}

// The reason text of the processes_untraced diagnostic ("" when there is none).
inline std::string untracedReason(const Report& r) {
    for (const auto& d : r.diagnostics)
        if (d.name == "capture.processes_untraced") return d.reason;
    return {};
}

inline uint32_t domainId(const Report& r, int64_t pid, const std::string& name) {
    for (const auto& d : r.nvtxDomains)
        if (d.pid == pid && d.name == name) return d.domainId;
    return UINT32_MAX;
}

}  // namespace sl::test
