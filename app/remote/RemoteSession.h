#pragma once
// A remote capture's session directory, ~/.cache/sightline/remote/<id> on the remote machine:
//   run.sh          the capture, started detached (setsid), so a lost connection does not end it
//   command         the program and its arguments, for `remote list`
//   started         when it started (UTC)
//   pid             the remote sightline's pid, once it runs (signalled by Stop)
//   stdout.log, stderr.log, progress.jsonl   what it printed (followed live with tail -F); the
//                   "started" progress line has the traced program's pid, which %p names
//   exit            its exit code, once it ended
//   report*.rep     the reports
#include <cstdint>
#include <string>
#include <vector>

#include "app/remote/SshSession.h"

namespace sl::remote {

// Where the sessions live, for the remote shell (relative to $HOME).
inline constexpr const char* kSessionsDir = "$HOME/.cache/sightline/remote";

struct RemoteReport {
    std::string path;  // absolute, on the remote machine
    uint64_t bytes = 0;
};

struct SessionInfo {
    std::string id;
    std::string state;  // running, finished, lost (ended without an exit code: the host rebooted)
    int exitCode = -1;  // finished only
    std::string started;
    std::string command;
    int64_t pid = 0;         // the remote sightline's (what a Stop signals)
    int64_t programPid = 0;  // the traced program's, once it started (what -o's %p names); 0: unknown
    // The pid -o's %p stands for: the program's, else (it never started) the sightline's.
    int64_t reportPid() const { return programPid ? programPid : pid; }
    std::vector<RemoteReport> reports;  // report.rep, report.1.rep, ... in that order
};

// A new session id: UTC time and random hex ("20261127-031500-3fa9c2").
std::string newSessionId();
// An id as the user typed it: letters, digits and '-' only (it goes into paths and scripts).
bool validSessionId(const std::string& id);
// The script that lists sessions (all, or the one id), and its output read back.
std::string listScript(const std::string& id = {});
std::vector<SessionInfo> parseList(const std::string& output);
// Sends `signal` to the session's sightline (a Stop: it ends the program, keeps the report).
Status signalSession(SshSession& ssh, const std::string& id, int signal);

}  // namespace sl::remote
