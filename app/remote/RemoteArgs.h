#pragma once
// The --remote* options (defined once in model/options) read into an SshTarget, and the first
// steps every remote command takes: connect, find the remote sightline, check its version.
#include "app/remote/RemoteVersion.h"
#include "app/remote/SshSession.h"
#include "model/options/OptionParser.h"

namespace sl::remote {

Result<SshTarget> targetFromArgs(const options::ParsedArgs& a);
// Probes for sightline (the --remote-sightline path, else the remote PATH) and checks it.
Result<RemoteSightline> findSightline(SshSession& ssh, const std::string& givenPath);

}  // namespace sl::remote
