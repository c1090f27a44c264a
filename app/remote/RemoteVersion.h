#pragma once
// Which remote `sightline` runs the capture, and whether this one can read what it writes.
// The rule is the report format's (model/FORMAT.md, "Compatibility"): a report opens when its
// min_reader_version <= our format version, so the remote's min_reader_version decides, not
// its release number. The remote also needs the parts remote capture drives (`profile
// --progress-fd`, `remote version`), which is what kRemoteProtocol counts.
#include <string>

#include "model/core/Result.h"

namespace sl::remote {

// Raised when what `profile --remote` asks of the remote side changes incompatibly.
constexpr int kRemoteProtocol = 1;

struct RemoteSightline {
    std::string path;
    std::string version;        // "0.1.0"
    int formatVersion = 0;      // what it writes
    int minReaderVersion = 0;   // the oldest reader of what it writes
    int protocol = 0;
};

// `sightline remote version`: this build's versions, one JSON line.
std::string selfVersionJson();
// The remote script that finds sightline (the given path, else the PATH of a non-interactive
// login) and asks it for its versions.
std::string probeScript(const std::string& givenPath);
// Reads the probe's output; the error says how to install or point to sightline there.
Result<RemoteSightline> parseProbe(const std::string& output, const std::string& hostDisplay,
                                   const std::string& givenPath);
// Refuses a remote whose reports this build cannot read, or that is too old to be driven.
Status checkCompatible(const RemoteSightline& r, const std::string& hostDisplay);
// How to install sightline on a machine (the packages installer/ makes).
std::string installHint();

}  // namespace sl::remote
