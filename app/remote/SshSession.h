#pragma once
// One connection to the remote machine for a whole `sightline` command: the system's OpenSSH
// client as a ControlMaster on a socket in a private directory, and every remote command (the
// checks, the capture's start, its three output streams, the report's copy) a channel of that
// one connection. So authentication happens once, and a jump host is crossed once.
// BatchMode: nothing ever prompts (scripts, the GUI); host keys are checked against known_hosts.
#include <string>
#include <vector>

#include "app/remote/SshTarget.h"
#include "app/remote/Subprocess.h"
#include "model/core/Result.h"

namespace sl::remote {

class SshSession {
public:
    explicit SshSession(SshTarget target);
    ~SshSession();  // closes the master connection and removes the private directory
    SshSession(const SshSession&) = delete;
    SshSession& operator=(const SshSession&) = delete;

    // Opens the master connection; the error says what to do (SshErrors.h).
    Status connect();
    // Runs `remoteCommand` (a line for the remote shell, words quoted with shellQuote) to its end.
    Result<Ran> run(const std::string& remoteCommand, const std::string& input = {});
    // Starts `remoteCommand` on a channel of its own and returns at once (streams).
    Result<Child> start(const std::string& remoteCommand, const SpawnOptions& o);
    const SshTarget& target() const { return m_target; }

    // ssh exits 255 for its own errors (the connection), else with the remote command's code.
    static constexpr int kSshError = 255;

private:
    std::vector<std::string> baseArgs() const;
    SshTarget m_target;
    std::string m_dir;  // private (0700): the control socket and the master's log
    bool m_connected = false;
};

// Why a remote command failed, never empty: what it (or ssh) wrote on stderr, trimmed; else its
// exit code and the end of its stdout.
std::string failureReason(const Ran& r);

}  // namespace sl::remote
