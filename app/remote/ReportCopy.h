#pragma once
// Copying a report from the remote session directory to its local name: over a channel of the
// session's connection (`cat`, read here), into a temporary file next to the destination, checked
// against the remote size, synced and renamed, so a cut connection never leaves half a report
// under the final name. Progress goes to stderr and, as JSON, to the progress descriptor:
//   {"event":"copy","path":"LOCAL","bytes":N,"total":M}
#include <atomic>
#include <cstdint>
#include <string>

#include "app/remote/SshSession.h"
#include "model/core/Result.h"

namespace sl::remote {

struct CopyOptions {
    bool forceOverwrite = false;
    bool quiet = false;
    int progressFd = -1;
    const std::atomic<int>* stop = nullptr;  // a stop signal abandons the copy (the remote keeps it)
};

// The local name of report `index` (0 the first, then "name.1.rep", ...) of a capture whose
// program had pid `remotePid` on `remoteHost`: -o's pattern with %h the remote host's name and %p
// the remote pid, the rest as a local capture expands it; the default is report%n.
Result<std::string> localReportName(const std::string& pattern, const std::string& remoteHost,
                                    int64_t remotePid, int index);
// Before anything runs remotely (or is fetched): the local report's directory exists and is
// writable, and a fixed name is free (or --force-overwrite). `consequence` ends each message
// ("nothing was started on the remote machine").
Status checkLocalOutput(const std::string& pattern, bool forceOverwrite,
                        const std::string& consequence = "nothing was started on the remote machine");

Status copyReport(SshSession& ssh, const std::string& remotePath, uint64_t size,
                  const std::string& localPath, const CopyOptions& o);

// One JSON progress line (a single write, as the launcher's channel does).
void emitProgressLine(int fd, const std::string& json);
std::string jsonString(const std::string& s);

}  // namespace sl::remote
