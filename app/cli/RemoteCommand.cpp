// `sightline remote list|fetch|stop|status|ls|version` and the remote half of `sightline profile
// --remote`: both through app/remote (one ssh master connection per command).
#include "app/cli/RemoteCommand.h"

#include <signal.h>

#include <cstdio>
#include <set>

#include "app/cli/Command.h"
#include "app/cli/CommandLine.h"
#include "app/remote/RemoteArgs.h"
#include "app/remote/RemoteCapture.h"
#include "app/remote/RemoteSession.h"
#include "app/remote/ReportCopy.h"
#include "app/remote/ShellQuote.h"

namespace sl::cli {

namespace {

using options::ParsedArgs;

// Options of `profile` that stay here: where the report goes locally, how to reach the remote
// machine, this side's progress descriptor, and what runs on the copies (--export, --stats).
const std::set<std::string, std::less<>> kLocalOnly = {
    "output", "output-dir", "force-overwrite", "progress-fd", "export", "stats", "list-options",
    "format", "remote", "remote-key", "remote-jump", "remote-sightline", "remote-ssh-config",
    "remote-accept-new-host-key", "remote-workdir"};

// The remote `profile`'s options: every option given here, in its canonical spelling.
std::vector<std::string> remoteProfileArgs(const ParsedArgs& a) {
    std::vector<std::string> out;
    for (const options::OptionDef* o : options::optionsOf("profile")) {
        const std::string name(o->name);
        if (kLocalOnly.count(name) || !a.given(name)) continue;
        if (o->kind == options::ValueKind::Flag) {
            out.push_back("--" + name);
            continue;
        }
        for (const auto& v : a.values(name)) out.push_back("--" + name + "=" + v);
    }
    return out;
}

Result<remote::SshTarget> needTarget(const ParsedArgs& a, const char* command) {
    if (!a.given("remote")) return makeError(std::string(command) + " needs --remote USER@HOST[:PORT]");
    return remote::targetFromArgs(a);
}

std::string jsonList(const std::vector<remote::SessionInfo>& sessions) {
    using remote::jsonString;
    std::string out = "[";
    for (size_t i = 0; i < sessions.size(); ++i) {
        const auto& s = sessions[i];
        out += std::string(i ? "," : "") + "\n  {\"id\":" + jsonString(s.id) + ",\"state\":" + jsonString(s.state) +
               ",\"exit_code\":" + std::to_string(s.exitCode) + ",\"started\":" + jsonString(s.started) +
               ",\"command\":" + jsonString(s.command) + ",\"reports\":[";
        for (size_t k = 0; k < s.reports.size(); ++k)
            out += std::string(k ? "," : "") + "{\"path\":" + jsonString(s.reports[k].path) +
                   ",\"bytes\":" + std::to_string(s.reports[k].bytes) + "}";
        out += "]}";
    }
    return out + (sessions.empty() ? "]" : "\n]");
}

int listSessions(remote::SshSession& ssh, const ParsedArgs& a) {
    auto r = ssh.run(remote::listScript());
    if (!r) return fail(r.error());
    if (r->code != 0)
        return fail("listing the captures on " + ssh.target().display() + " failed (" +
                    remote::failureReason(*r) + ")");
    const auto sessions = remote::parseList(r->out);
    if (a.value("format") == "json") {
        std::printf("%s\n", jsonList(sessions).c_str());
        return 0;
    }
    if (sessions.empty()) {
        std::printf("no captures on %s\n", ssh.target().display().c_str());
        return 0;
    }
    std::printf("%-23s %-9s %4s %-20s %7s  %s\n", "ID", "STATE", "EXIT", "STARTED (UTC)", "REPORTS", "COMMAND");
    for (const auto& s : sessions)
        std::printf("%-23s %-9s %4s %-20s %7zu  %s\n", s.id.c_str(), s.state.c_str(),
                    s.exitCode >= 0 ? std::to_string(s.exitCode).c_str() : "-", s.started.c_str(),
                    s.reports.size(), s.command.c_str());
    return 0;
}

Result<remote::SessionInfo> oneSession(remote::SshSession& ssh, const std::string& id) {
    if (!remote::validSessionId(id))
        return makeError("'" + id + "' is not a capture id (see sightline remote list)");
    auto r = ssh.run(remote::listScript(id));
    if (!r) return std::move(r).takeError();
    if (r->code != 0)
        return makeError("reading the capture " + id + " on " + ssh.target().display() + " failed (" +
                         remote::failureReason(*r) + ")");
    for (auto& s : remote::parseList(r->out))
        if (s.id == id) return s;
    return makeError("there is no capture " + id + " on " + ssh.target().display() +
                     " (see sightline remote list " + ssh.target().commandOptions() + ")");
}

int fetchSession(remote::SshSession& ssh, const ParsedArgs& a, const std::string& id) {
    const std::string pattern = a.value("output");
    if (Status s = remote::checkLocalOutput(pattern, a.isTrue("force-overwrite"), "nothing was fetched"); !s)
        return fail(s.error());
    auto s = oneSession(ssh, id);
    if (!s) return fail(s.error());
    const std::string host = ssh.target().display();
    if (s->state == "running" || s->state == "starting")
        return fail("the capture " + id + " on " + host + " is still running; fetch it when it has "
                    "ended, or stop it: sightline remote stop " + ssh.target().commandOptions() + " " + id);
    if (s->reports.empty())
        return fail("the capture " + id + " on " + host + " has no report (" + s->state +
                    (s->exitCode >= 0 ? ", exit code " + std::to_string(s->exitCode) : std::string()) +
                    "); its output is in ~/.cache/sightline/remote/" + id + " there");
    remote::installStopHandlers();
    remote::CopyOptions copy{a.isTrue("force-overwrite"), a.isTrue("quiet"), -1, &remote::stopSignal()};
    for (size_t i = 0; i < s->reports.size(); ++i) {
        auto local = remote::localReportName(pattern, ssh.target().host, s->reportPid(), static_cast<int>(i));
        if (!local) return fail(local.error());
        if (Status c = remote::copyReport(ssh, s->reports[i].path, s->reports[i].bytes, *local, copy); !c)
            return fail(c.error());
        std::printf("%s\n", local->c_str());
    }
    return 0;
}

int remoteStatus(remote::SshSession& ssh, const ParsedArgs& a) {
    auto found = remote::findSightline(ssh, a.value("remote-sightline"));
    if (!found) return fail(found.error());
    auto r = ssh.run(remote::shellJoin({found->path, "status", "--environment", "--format", a.value("format")}));
    if (!r) return fail(r.error());
    if (r->code == remote::SshSession::kSshError) return fail("the connection to " + ssh.target().display() + " was lost");
    std::fputs(r->out.c_str(), stdout);
    std::fputs(r->err.c_str(), stderr);
    return r->code;
}

int listDirectory(remote::SshSession& ssh, const ParsedArgs& a, const std::string& dir) {
    // -F marks directories '/', executables '*', links '@'; one name a line.
    auto r = ssh.run("cd " + (dir.empty() ? std::string("\"$HOME\"") : remote::shellQuote(dir)) +
                     " 2>/dev/null || { echo \"no such directory: \"" + remote::shellQuote(dir) +
                     " >&2; exit 1; }; echo \"$PWD\"; LC_ALL=C ls -1AF");
    if (!r) return fail(r.error());
    if (r->code != 0) return fail(ssh.target().display() + ": " + remote::failureReason(*r));
    const bool json = a.value("format") == "json";
    std::string out = r->out, line;
    std::string cwd = out.substr(0, out.find('\n'));
    if (!json) {
        std::fputs(out.c_str(), stdout);
        return 0;
    }
    std::string items;
    size_t pos = out.find('\n');
    while (pos != std::string::npos && pos + 1 < out.size()) {
        const size_t end = out.find('\n', pos + 1);
        line = out.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
        pos = end;
        if (line.empty()) continue;
        std::string type = "file";
        const char mark = line.back();
        if (mark == '/' || mark == '*' || mark == '@' || mark == '|' || mark == '=') {
            type = mark == '/' ? "dir" : mark == '*' ? "exec" : mark == '@' ? "link" : "other";
            line.pop_back();
        }
        items += std::string(items.empty() ? "" : ",") + "{\"name\":" + remote::jsonString(line) +
                 ",\"type\":\"" + type + "\"}";
    }
    std::printf("{\"dir\":%s,\"entries\":[%s]}\n", remote::jsonString(cwd).c_str(), items.c_str());
    return 0;
}

int runRemote(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("remote", argc, argv, &exitCode);
    if (!args) return exitCode;
    const auto& p = args->positionals;
    if (p.empty()) return usageError("remote", "say what to do: list, fetch ID, stop ID, status, ls [DIR] or version");
    const std::string& what = p[0];
    const size_t wants = what == "fetch" || what == "stop" ? 2 : what == "ls" ? (p.size() > 1 ? 2 : 1) : 1;
    if (what != "list" && what != "fetch" && what != "stop" && what != "status" && what != "ls" && what != "version")
        return usageError("remote", "unknown action '" + what + "' (list, fetch, stop, status, ls, version)");
    if (p.size() != wants)
        return usageError("remote", what + (wants == 2 && what != "ls" ? " needs one capture ID" : " takes no more arguments"));
    if (what == "version") {
        std::printf("%s\n", remote::selfVersionJson().c_str());
        return 0;
    }
    auto target = needTarget(*args, ("remote " + what).c_str());
    if (!target) return usageError("remote", target.error());
    remote::SshSession ssh(*target);
    if (Status s = ssh.connect(); !s) return fail(s.error());
    if (what == "list") return listSessions(ssh, *args);
    if (what == "fetch") return fetchSession(ssh, *args, p[1]);
    if (what == "status") return remoteStatus(ssh, *args);
    if (what == "ls") return listDirectory(ssh, *args, p.size() > 1 ? p[1] : std::string());
    if (!remote::validSessionId(p[1])) return fail("'" + p[1] + "' is not a capture id (see sightline remote list)");
    if (Status s = remote::signalSession(ssh, p[1], SIGINT); !s) return fail(s.error());
    std::fprintf(stderr, "sightline: stopping %s on %s; its report is kept there (sightline remote fetch)\n",
                 p[1].c_str(), target->display().c_str());
    return 0;
}

const Registrar kRemote({"remote", "captures on a remote machine over SSH: list, fetch, stop, status",
                         runRemote, false, 15});

}  // namespace

Result<RemoteProfileOutcome> profileRemotely(const ParsedArgs& a) {
    auto target = remote::targetFromArgs(a);
    if (!target) return std::move(target).takeError();
    // -o as a local capture has it (with --output-dir), checked before anything runs there.
    std::string pattern = a.given("output") ? a.value("output") : std::string();
    if (const std::string dir = a.value("output-dir"); !dir.empty())
        pattern = (pattern.empty() ? dir + "/report%n" : pattern.front() == '/' ? pattern : dir + "/" + pattern);
    if (Status s = remote::checkLocalOutput(pattern, a.isTrue("force-overwrite")); !s) return makeError(s.error());
    remote::installStopHandlers();
    remote::SshSession ssh(*target);
    if (Status s = ssh.connect(); !s) return makeError(s.error());
    auto found = remote::findSightline(ssh, a.value("remote-sightline"));
    if (!found) return std::move(found).takeError();
    remote::RemoteProfileRequest r;
    r.sightline = *found;
    r.givenSightline = a.value("remote-sightline");
    r.workdir = a.value("remote-workdir");
    r.profileArgs = remoteProfileArgs(a);
    r.command = a.positionals;
    r.outputPattern = pattern;
    r.forceOverwrite = a.isTrue("force-overwrite");
    r.quiet = a.isTrue("quiet");
    if (a.given("progress-fd")) r.progressFd = std::stoi(a.value("progress-fd"));
    auto done = remote::runRemoteProfile(ssh, r);
    if (!done) return std::move(done).takeError();
    return RemoteProfileOutcome{done->exitCode, done->reports};
}

}  // namespace sl::cli
