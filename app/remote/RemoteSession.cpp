#include "app/remote/RemoteSession.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <random>
#include <sstream>

namespace sl::remote {

std::string newSessionId() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char when[32];
    std::strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
    std::random_device rd;
    char tail[16];
    std::snprintf(tail, sizeof tail, "%06x", rd() & 0xffffffu);
    return std::string(when) + "-" + tail;
}

bool validSessionId(const std::string& id) {
    if (id.empty() || id.size() > 64 || id.front() == '-') return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
    });
}

std::string listScript(const std::string& id) {
    // One tagged line per fact; names inside the directory are ours, so plain globbing is safe.
    // Every test is an `if`, never `[ ] && ...`: a failed test as the loop's last command would
    // become the script's exit status (a session without a report yet is no error).
    return std::string("cd \"") + kSessionsDir + "\" 2>/dev/null || exit 0\n" +
           "for d in " + (id.empty() ? std::string("*/") : id + "/") + "; do d=${d%/}\n"
           "  [ -f \"$d/run.sh\" ] || continue\n"
           "  pid=$(cat \"$d/pid\" 2>/dev/null)\n"
           "  if [ -f \"$d/exit\" ]; then st=\"finished $(cat \"$d/exit\")\"\n"
           "  elif [ -n \"$pid\" ] && kill -0 \"$pid\" 2>/dev/null; then st='running -'\n"
           "  elif [ -z \"$pid\" ]; then st='starting -'\n"
           "  else st='lost -'; fi\n"
           "  echo \"sl-session:$d $st ${pid:-0} $(cat \"$d/started\" 2>/dev/null)\"\n"
           "  echo \"sl-command:$d $(head -n 1 \"$d/command\" 2>/dev/null)\"\n"
           // The traced program's pid (what %p names), from the remote profile's "started" line.
           "  pp=$(sed -n 's/.*\"event\":\"started\",\"pid\":\\([0-9][0-9]*\\).*/\\1/p' \"$d/progress.jsonl\" 2>/dev/null | head -n 1)\n"
           "  echo \"sl-program:$d ${pp:-0}\"\n"
           "  for f in \"$d\"/*.rep; do\n"
           "    if [ -f \"$f\" ]; then echo \"sl-report:$d $(wc -c < \"$f\") $PWD/$f\"; fi\n"
           "  done\n"
           "done\n"
           "exit 0\n";
}

namespace {

// report.rep first, then report.1.rep, report.2.rep, ... by number.
int reportOrder(const std::string& path) {
    const std::string name = path.substr(path.rfind('/') + 1);
    if (name == "report.rep") return 0;
    if (name.rfind("report.", 0) == 0) return 1 + std::atoi(name.c_str() + 7);
    return 1 << 30;
}

}  // namespace

std::vector<SessionInfo> parseList(const std::string& output) {
    std::vector<SessionInfo> out;
    auto find = [&](const std::string& id) -> SessionInfo& {
        for (auto& s : out)
            if (s.id == id) return s;
        out.push_back({});
        out.back().id = id;
        return out.back();
    };
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        const size_t colon = line.find(':');
        if (line.rfind("sl-", 0) != 0 || colon == std::string::npos) continue;
        const std::string tag = line.substr(3, colon - 3);
        std::istringstream words(line.substr(colon + 1));
        std::string id;
        words >> id;
        if (!validSessionId(id)) continue;
        SessionInfo& s = find(id);
        if (tag == "session") {
            std::string code;
            words >> s.state >> code >> s.pid;
            if (s.state == "finished") s.exitCode = std::atoi(code.c_str());
            std::getline(words >> std::ws, s.started);
        } else if (tag == "program") {
            words >> s.programPid;
        } else if (tag == "command") {
            std::getline(words >> std::ws, s.command);
        } else if (tag == "report") {
            RemoteReport r;
            words >> r.bytes;
            std::getline(words >> std::ws, r.path);
            s.reports.push_back(r);
        }
    }
    for (auto& s : out)
        std::stable_sort(s.reports.begin(), s.reports.end(), [](const auto& a, const auto& b) {
            return reportOrder(a.path) < reportOrder(b.path);
        });
    return out;
}

Status signalSession(SshSession& ssh, const std::string& id, int signal) {
    // One tagged answer: the session's state decides the message, never the shell's own words.
    const std::string d = std::string("\"") + kSessionsDir + "/" + id + "\"";
    auto r = ssh.run("d=" + d + "\n"
                     "if [ ! -f \"$d/run.sh\" ]; then echo sl-stop:none\n"
                     "elif [ -f \"$d/exit\" ]; then echo \"sl-stop:ended $(cat \"$d/exit\")\"\n"
                     "else pid=$(cat \"$d/pid\" 2>/dev/null)\n"
                     "  if [ -z \"$pid\" ]; then echo sl-stop:starting\n"
                     "  elif kill -" + std::to_string(signal) + " \"$pid\" 2>/dev/null; then echo sl-stop:sent\n"
                     "  else echo sl-stop:ended; fi\n"
                     "fi\n");
    const std::string host = ssh.target().display();
    if (!r) return makeError(r.error());
    if (r->code == SshSession::kSshError) return makeError("the connection to " + host + " was lost");
    const std::string said = r->out.substr(0, r->out.find('\n'));
    if (said == "sl-stop:sent") return {};
    const std::string capture = "the capture " + id + " on " + host;
    if (said == "sl-stop:none")
        return makeError("there is no capture " + id + " on " + host + " (see sightline remote list " +
                         ssh.target().commandOptions() + ")");
    if (said.rfind("sl-stop:ended", 0) == 0) {
        const std::string code = said.size() > 14 ? said.substr(14) : std::string();
        return makeError(capture + " has already ended" + (code.empty() ? "" : " (exit code " + code + ")") +
                         "; its report stays there: sightline remote fetch " + ssh.target().commandOptions() +
                         " " + id);
    }
    if (said == "sl-stop:starting")
        return makeError(capture + " is still starting (its sightline has no pid yet); try again in a moment");
    return makeError("stopping " + capture + " failed (" + failureReason(*r) + ")");
}

}  // namespace sl::remote
