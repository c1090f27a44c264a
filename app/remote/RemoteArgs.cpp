#include "app/remote/RemoteArgs.h"

#include <cstdlib>

namespace sl::remote {

Result<SshTarget> targetFromArgs(const options::ParsedArgs& a) {
    auto t = parseTarget(a.value("remote"));
    if (!t) return t;
    t->keyFile = a.value("remote-key");
    t->jumpHost = a.value("remote-jump");
    t->configFile = a.value("remote-ssh-config");
    // Also from the environment: a site-wide ssh setup for every run (and the GUI's, tests').
    if (t->configFile.empty())
        if (const char* env = std::getenv("SIGHTLINE_SSH_CONFIG"); env && *env) t->configFile = env;
    t->acceptNewHostKey = a.isTrue("remote-accept-new-host-key");
    return t;
}

Result<RemoteSightline> findSightline(SshSession& ssh, const std::string& givenPath) {
    auto probe = ssh.run(probeScript(givenPath));
    if (!probe) return std::move(probe).takeError();
    if (probe->code == SshSession::kSshError)
        return makeError("the connection to " + ssh.target().display() + " was lost");
    auto found = parseProbe(probe->out, ssh.target().display(), givenPath);
    if (!found) return found;
    if (Status s = checkCompatible(*found, ssh.target().display()); !s) return makeError(s.error());
    return found;
}

}  // namespace sl::remote
