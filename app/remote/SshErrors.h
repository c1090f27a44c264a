#pragma once
// What went wrong when ssh could not connect, in words that say what to do: host unreachable,
// authentication failed, unknown or changed host key (with the key's fingerprint), from ssh's own
// messages (OpenSSH's wording has been stable for many years; anything else is shown as ssh said).
// For programs that run the CLI (the GUI's Capture tab), the same classification is also written
// as JSON to the file named by SIGHTLINE_SSH_FAILURE_FILE, so they never parse the prose, which is
// meant for people and may change.
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
// Also writes sshFailureJson() to $SIGHTLINE_SSH_FAILURE_FILE when that is set.
std::string explainSshFailure(const SshTarget& t, const std::string& sshStderr,
                              const std::string& fingerprints, const std::string& knownHosts = {});
// One JSON object: {"failure":"unknown_host_key"|"changed_host_key"|"authentication"|
// "unreachable"|"other","host":...,"port":N (0: ssh's default),"target":"user@host:port","known_hosts_name":...,
// "fingerprints":[{"bits":256,"fingerprint":"SHA256:...","type":"ED25519"}]} (fingerprints: the
// lines of hostKeyFingerprints(); the key a changed host presents is never offered).
std::string sshFailureJson(const SshTarget& t, SshFailure failure, const std::string& fingerprints);
const char* sshFailureCode(SshFailure failure);

}  // namespace sl::remote
