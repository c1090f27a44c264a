#pragma once
// The options that say how to reach a remote machine over SSH, shared by `profile --remote` and
// the `remote` subcommand: one set of rows, added to each command's table.
#include "model/options/OptionBuilder.h"

namespace sl::options {

inline void addRemoteConnectionOptions(std::vector<OptionDef>& out, std::string_view command) {
    using K = ValueKind;
    auto add = [&](Opt o) { out.push_back(std::move(o)); };
    add(Opt(command, "remote", 0, K::Text, "USER@HOST[:PORT]", "",
            "run on this machine over SSH (the system's OpenSSH client, keys from the agent or "
            "--remote-key; host keys checked against known_hosts)")
            .extension());
    add(Opt(command, "remote-key", 0, K::Text, "FILE", "", "the SSH private key to log in with")
            .extension());
    add(Opt(command, "remote-jump", 0, K::Text, "[USER@]HOST[:PORT]", "",
            "reach the remote machine through this jump host (ssh -J)")
            .extension());
    add(Opt(command, "remote-sightline", 0, K::Text, "PATH", "",
            "the sightline to run there (default: the one on the remote PATH)")
            .extension());
    add(Opt(command, "remote-ssh-config", 0, K::Text, "FILE", "",
            "an ssh configuration file instead of ~/.ssh/config (ssh -F; default: "
            "$SIGHTLINE_SSH_CONFIG when set)")
            .extension());
    add(Opt(command, "remote-accept-new-host-key", 0, K::Switch, "", "false",
            "accept and record the host key of a machine seen for the first time (never a "
            "changed key)")
            .extension());
}

}  // namespace sl::options
