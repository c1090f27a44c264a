#include "app/remote/RemoteCapture.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "app/remote/RemoteSession.h"
#include "app/remote/ReportCopy.h"
#include "app/remote/ShellQuote.h"

namespace sl::remote {

std::atomic<int>& stopSignal() {
    static std::atomic<int> sig{0};
    return sig;
}

namespace {

void onStop(int sig) { stopSignal().store(sig); }

// Less free space than this in the session directory refuses the capture before it starts.
constexpr long kMinFreeKiB = 64 * 1024;

std::string sessionDir(const std::string& id) { return std::string("\"") + kSessionsDir + "/" + id + "\""; }

// Starts run.sh detached and waits until its sightline has written its pid.
std::string startScript(const std::string& id) {
    const std::string d = sessionDir(id);
    return "d=" + d + "\n"
           "mkdir -p \"$d\" || exit 3\n"
           "cat > \"$d/run.sh\" || exit 3\n"
           "free=$(df -Pk \"$d\" | awk 'NR==2 {print $4}')\n"
           "if [ -n \"$free\" ] && [ \"$free\" -lt " + std::to_string(kMinFreeKiB) + " ]; then "
           "echo \"sl-start:diskfull $free $d\"; rm -rf \"$d\"; exit 0; fi\n"
           "date -u +%Y-%m-%dT%H:%M:%SZ > \"$d/started\"\n"
           // setsid -f: its own session, no terminal, not a child of this shell, and not an
           // asynchronous list (those start with SIGINT ignored, which the program would inherit).
           "setsid -f sh \"$d/run.sh\" </dev/null >/dev/null 2>&1 || exit 4\n"
           "i=0; while [ ! -s \"$d/pid\" ] && [ ! -f \"$d/exit\" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i+1)); done\n"
           "echo \"sl-start:dir $(cd \"$d\" && pwd)\"\n"
           "echo \"sl-start:pid $(cat \"$d/pid\" 2>/dev/null)\"\n"
           "echo \"sl-start:host $(hostname)\"\n";
}

// Whether the program's directory is usable there, before a session exists: one tagged line.
std::string workdirScript(const std::string& workdir) {
    // A relative DIR is under the remote home (sshd's login directory may be another).
    return "cd \"$HOME\" 2>/dev/null; w=" + shellQuote(workdir) + "\n"
           "if [ ! -e \"$w\" ]; then echo sl-wd:missing\n"
           "elif [ ! -d \"$w\" ]; then echo sl-wd:notdir\n"
           "elif ! cd \"$w\" 2>/dev/null; then echo sl-wd:denied\n"
           "else echo \"sl-wd:ok $PWD\"; fi\n";
}

// The directory's absolute path there, or why it cannot be used.
Result<std::string> checkWorkdir(SshSession& ssh, const std::string& workdir) {
    const std::string host = ssh.target().display();
    auto r = ssh.run(workdirScript(workdir));
    if (!r) return makeError(r.error());
    if (r->code == SshSession::kSshError) return makeError("the connection to " + host + " was lost before the capture started");
    const std::string said = r->out.substr(0, r->out.find('\n'));
    const std::string where = "the remote working directory " + workdir;
    const std::string tail = " (--remote-workdir); nothing was started there";
    if (said == "sl-wd:missing") return makeError(where + " does not exist on " + host + tail);
    if (said == "sl-wd:notdir") return makeError(where + " is not a directory on " + host + tail);
    if (said == "sl-wd:denied") return makeError("cannot enter " + where + " on " + host + ": permission denied" + tail);
    if (said.rfind("sl-wd:ok ", 0) != 0)
        return makeError("cannot check " + where + " on " + host + " (" + failureReason(*r) + ")");
    return said.substr(9);
}

// After the output streams ended: the exit code (run.sh writes it just after sightline ends).
std::string endScript(const std::string& id) {
    return "d=" + sessionDir(id) + "\n"
           "i=0; while [ ! -f \"$d/exit\" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\n" +
           listScript(id);
}

std::string field(const std::string& out, const std::string& tag) {
    std::istringstream in(out);
    const std::string key = "sl-start:" + tag + " ";
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key, 0) == 0) return line.substr(key.size());
    return {};
}

// The progress lines of the remote profile, passed on to ours; its "report" (remote paths) and
// "finished" lines are ours to write once the reports are here.
struct ProgressRelay {
    int fd = -1;
    std::string partial;
    void feed(const char* data, size_t n) {
        partial.append(data, n);
        for (size_t nl; (nl = partial.find('\n')) != std::string::npos;) {
            const std::string line = partial.substr(0, nl);
            partial.erase(0, nl + 1);
            if (line.find("\"event\":\"report\"") != std::string::npos ||
                line.find("\"event\":\"finished\"") != std::string::npos)
                continue;
            emitProgressLine(fd, line);
        }
    }
};

bool writeAll(int fd, const char* data, size_t n) {
    while (n > 0) {
        const ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        data += w, n -= static_cast<size_t>(w);
    }
    return true;
}

// `sightline remote fetch ...` with every option that reaches the host, ready to paste.
std::string fetchCommand(const SshSession& ssh, const RemoteProfileRequest& r, const std::string& id) {
    std::string c = "sightline remote fetch " + ssh.target().commandOptions();
    if (!r.givenSightline.empty()) c += " --remote-sightline " + shellQuote(r.givenSightline);
    return c + " " + id;
}

std::string lostMessage(const SshSession& ssh, const RemoteProfileRequest& r, const std::string& id) {
    return "the connection to " + ssh.target().display() +
           " was lost; the capture goes on there (session " + id +
           "). Get its report later: " + fetchCommand(ssh, r, id);
}

}  // namespace

void installStopHandlers() {
    struct sigaction sa {};
    sa.sa_handler = onStop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

std::string runScript(const RemoteProfileRequest& r) {
    std::vector<std::string> profile = {r.sightline.path, "profile", "--progress-fd=3"};
    profile.insert(profile.end(), r.profileArgs.begin(), r.profileArgs.end());
    std::string s = "#!/bin/sh\n"
                    "# A capture started by `sightline profile --remote`; it runs detached from the\n"
                    "# ssh connection. `sightline remote list|fetch|stop` read this directory.\n"
                    "d=$(cd \"$(dirname \"$0\")\" && pwd) || exit 1\n";
    if (!r.workdir.empty())
        s += "cd " + shellQuote(r.workdir) + " || { echo \"sightline: error: cannot enter " +
             shellQuote(r.workdir) + " on $(hostname)\" > \"$d/stderr.log\"; echo 1 > \"$d/exit\"; exit 1; }\n";
    // The inner sh writes its own pid and becomes sightline (exec): that pid is what Stop signals.
    s += "sh -c 'echo $$ > \"$0/pid.tmp\" && mv \"$0/pid.tmp\" \"$0/pid\" && exec \"$@\"' \"$d\" " +
         shellJoin(profile) + " -o \"$d/report\" -- " + shellJoin(r.command) +
         " 3>\"$d/progress.jsonl\" >\"$d/stdout.log\" 2>\"$d/stderr.log\" </dev/null\n"
         "echo $? > \"$d/exit.tmp\" && mv \"$d/exit.tmp\" \"$d/exit\"\n";
    return s;
}

Result<RemoteProfileResult> runRemoteProfile(SshSession& ssh, const RemoteProfileRequest& r) {
    RemoteProfileResult result;
    const std::string id = newSessionId();
    result.sessionId = id;
    const std::string host = ssh.target().display();
    // A stop while connecting and checking: nothing has started there yet, so nothing starts.
    if (const int sig = stopSignal().load(); sig != 0)
        return makeError(std::string("stopped (SIG") + sigabbrev_np(sig) + ") before the capture started on " + host);
    // Step 0: the program's directory, checked here so that its error is ours, not a session's.
    RemoteProfileRequest checked = r;
    if (!r.workdir.empty()) {
        auto dir = checkWorkdir(ssh, r.workdir);
        if (!dir) return std::move(dir).takeError();
        checked.workdir = *dir;
    }
    // Step 1: start it detached, with run.sh on stdin and the command recorded for `remote list`.
    std::string script = runScript(checked);
    auto started = ssh.run(startScript(id) + "printf '%s\\n' " + shellQuote(shellJoin(r.command)) +
                               " > \"$d/command\"\n",
                           script);
    if (!started) return std::move(started).takeError();
    if (started->code == SshSession::kSshError) return makeError("the connection to " + host + " was lost before the capture started");
    if (const std::string full = field(started->out, "diskfull"); !full.empty())
        return makeError("the disk is full on " + host + ": " + std::to_string(std::atol(full.c_str()) / 1024) +
                         " MiB free for " + std::string(kSessionsDir) +
                         " (at least " + std::to_string(kMinFreeKiB / 1024) + " MiB are needed). Free space there (old captures: sightline remote list " + ssh.target().commandOptions() + ")");
    if (started->code != 0)
        return makeError("cannot start the capture on " + host + " (exit " + std::to_string(started->code) +
                         "): " + failureReason(*started));
    const std::string dir = field(started->out, "dir");
    const std::string pid = field(started->out, "pid");
    const std::string remoteHost = field(started->out, "host");
    if (dir.empty()) return makeError("the capture's start on " + host + " said nothing: " + started->out + started->err);
    if (!r.quiet)
        std::fprintf(stderr, "sightline: capturing on %s (session %s, in %s)\n", host.c_str(), id.c_str(), dir.c_str());
    // Step 2: follow its output and progress, each file on its own channel, until it ends.
    std::vector<Child> tails;
    if (!pid.empty()) {
        for (const char* file : {"stdout.log", "stderr.log", "progress.jsonl"}) {
            auto t = ssh.start("exec tail -c +1 -s 0.2 -F --pid=" + pid + " " + shellQuote(dir + "/" + file) +
                                   " 2>/dev/null",
                               SpawnOptions{false, true, false, -1});
            if (!t) return std::move(t).takeError();
            tails.push_back(*t);
        }
    }
    ProgressRelay relay{r.progressFd, {}};
    std::vector<pollfd> fds;
    for (const auto& t : tails) fds.push_back({t.out, POLLIN, 0});
    size_t open = fds.size();
    char buf[1 << 16];
    while (open > 0) {
        if (const int sig = stopSignal().exchange(0); sig != 0) {
            if (!r.quiet)
                std::fprintf(stderr, "sightline: stopping the capture on %s (SIG%s to its sightline); "
                             "the report is kept and copied here\n", host.c_str(), sigabbrev_np(sig));
            if (Status s = signalSession(ssh, id, sig); !s && !r.quiet)
                std::fprintf(stderr, "sightline: warning: %s\n", s.error().c_str());
        }
        if (poll(fds.data(), fds.size(), 200) < 0 && errno != EINTR) break;
        for (size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                close(fds[i].fd), fds[i].fd = -1, --open;
                continue;
            }
            if (i == 2) relay.feed(buf, static_cast<size_t>(n));
            else (void)writeAll(i == 0 ? 1 : 2, buf, static_cast<size_t>(n));
        }
    }
    bool lost = false;
    for (const auto& t : tails) lost |= waitChild(t.pid) == SshSession::kSshError;
    // It ended before its sightline wrote a pid (run.sh failed at once): no stream followed its
    // output, so show what it wrote now; the reason is in its stderr.log.
    if (tails.empty() && !lost) {
        auto logs = ssh.run("cat " + shellQuote(dir + "/stdout.log") + " 2>/dev/null; cat " +
                            shellQuote(dir + "/stderr.log") + " >&2 2>/dev/null; true");
        if (!logs || logs->code == SshSession::kSshError) lost = true;
        else {
            (void)writeAll(1, logs->out.data(), logs->out.size());
            (void)writeAll(2, logs->err.data(), logs->err.size());
        }
    }
    // Step 3: how it ended, and its reports.
    std::vector<SessionInfo> info;
    if (!lost) {
        auto end = ssh.run(endScript(id));
        if (!end || end->code == SshSession::kSshError) lost = true;
        else info = parseList(end->out);
    }
    if (lost) {
        result.connectionLost = true;
        return makeError(lostMessage(ssh, r, id));
    }
    if (info.empty() || info[0].state != "finished")
        return makeError("the capture on " + host + " ended without an exit code (session " + id +
                         ", state " + (info.empty() ? "gone" : info[0].state) + "); its output is in " + dir);
    result.exitCode = info[0].exitCode;
    // Step 4: the reports, copied under the local names.
    CopyOptions copy{r.forceOverwrite, r.quiet, r.progressFd, &stopSignal()};
    for (size_t i = 0; i < info[0].reports.size(); ++i) {
        const auto& rep = info[0].reports[i];
        auto local = localReportName(r.outputPattern, remoteHost.empty() ? ssh.target().host : remoteHost,
                                     info[0].reportPid(), static_cast<int>(i));
        if (!local) return std::move(local).takeError();
        if (Status s = copyReport(ssh, rep.path, rep.bytes, *local, copy); !s)
            return makeError(s.error() + ". Fetch it later: " + fetchCommand(ssh, r, id));
        emitProgressLine(r.progressFd, "{\"event\":\"report\",\"path\":" + jsonString(*local) +
                                           ",\"bytes\":" + std::to_string(rep.bytes) + "}");
        result.reports.push_back(*local);
    }
    return result;
}

}  // namespace sl::remote
