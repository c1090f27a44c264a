#pragma once
// What went wrong when ssh could not connect, in words that say what to do: host unreachable,
// authentication failed, unknown or changed host key (with the key's fingerprint), from ssh's own
// messages (OpenSSH's wording has been stable for many years; anything else is shown as ssh said).
#include <string>

#include "app/remote/SshTarget.h"

namespace sl::remote {

enum class SshFailure { Unreachable, UnknownHostKey, ChangedHostKey, Authentication, Other };

SshFailure classifySshFailure(const std::string& sshStderr);
// The fingerprints the host presents now (ssh-keyscan | ssh-keygen -lf -), one per line; empty
// when they cannot be fetched (a jump host, a host that does not answer).
std::string hostKeyFingerprints(const SshTarget& t);
// The known_hosts file ssh writes for this target (`ssh -G`: the config's UserKnownHostsFile);
// empty when ssh cannot say.
std::string knownHostsFile(const SshTarget& t);
// The whole message: what happened and the fix. `fingerprints` from hostKeyFingerprints(),
// `knownHosts` from knownHostsFile() (empty: "the known_hosts file ssh uses").
std::string explainSshFailure(const SshTarget& t, const std::string& sshStderr,
                              const std::string& fingerprints, const std::string& knownHosts = {});

}  // namespace sl::remote
