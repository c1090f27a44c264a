#pragma once
// `sightline profile --remote ...`: the capture on the remote machine (RemoteCommand.cpp), for
// ProfileCommand.cpp, which then does what follows every capture (--export, --stats, exit code).
#include <string>
#include <vector>

#include "model/core/Result.h"
#include "model/options/OptionParser.h"

namespace sl::cli {

struct RemoteProfileOutcome {
    int exitCode = 0;
    std::vector<std::string> reports;  // the local copies
};

Result<RemoteProfileOutcome> profileRemotely(const options::ParsedArgs& args);

}  // namespace sl::cli
