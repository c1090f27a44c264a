#pragma once
// Where a remote capture runs and how ssh reaches it: `user@host[:port]` as the user wrote it, a
// key file, a jump host, an ssh config file, whether a first-seen host key may be accepted.
#include <string>
#include <vector>

#include "model/core/Result.h"

namespace sl::remote {

struct SshTarget {
    std::string user;  // empty: ssh's default (the config's User, or the local user name)
    std::string host;
    int port = 0;      // 0: ssh's default (the config's Port, or 22)
    std::string keyFile;
    std::string jumpHost;
    std::string configFile;  // ssh -F; empty: ~/.ssh/config as usual
    bool acceptNewHostKey = false;

    // "user@host" or "host": what ssh is given as the destination.
    std::string destination() const;
    // "user@host:port" as shown to the user.
    std::string display() const;
    // The options that reach this host again, for a command we suggest: "--remote T", then
    // --remote-key, --remote-ssh-config, --remote-jump when set (each word shell-quoted).
    std::string commandOptions() const;
};

// "host", "user@host", "user@host:2222", "[::1]:2222", "user@[fe80::1]". A bare IPv6 address
// (more than one ':') is a host without a port.
Result<SshTarget> parseTarget(const std::string& text);

}  // namespace sl::remote
