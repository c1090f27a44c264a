#pragma once
// `sightline profile --remote`: the capture runs on the remote machine under its own sightline,
// detached from the connection (a lost connection leaves it running; `remote fetch` gets the
// report later). Here: start it, stream its output and progress live, forward a stop, copy the
// reports back. The program's exit code is returned as the local profile returns it.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "app/remote/RemoteVersion.h"
#include "app/remote/SshSession.h"

namespace sl::remote {

struct RemoteProfileRequest {
    RemoteSightline sightline;             // found and checked (RemoteVersion.h)
    std::string givenSightline;            // --remote-sightline as given (repeated in our hints)
    std::string workdir;                   // the program's directory there; empty: the home
    std::vector<std::string> profileArgs;  // the remote `profile`'s options (not -o, --progress-fd)
    std::vector<std::string> command;      // program and arguments
    std::string outputPattern;             // the local -o pattern; empty: report%n
    bool forceOverwrite = false;
    bool quiet = false;
    int progressFd = -1;                   // the local progress channel (-1: none)
};

struct RemoteProfileResult {
    int exitCode = 0;  // the remote profile's: the program's, 128 + signal when it was killed
    std::vector<std::string> reports;  // local copies
    bool connectionLost = false;       // the capture goes on there; fetch it later
    std::string sessionId;
};

// Set by the caller's SIGINT/SIGTERM/SIGHUP handler: the signal to forward as a Stop.
std::atomic<int>& stopSignal();
// Installs the handler that sets stopSignal() (no SA_RESTART: waits wake up).
void installStopHandlers();

// The script that starts a capture detached (its run.sh goes on stdin).
std::string runScript(const RemoteProfileRequest& r);
Result<RemoteProfileResult> runRemoteProfile(SshSession& ssh, const RemoteProfileRequest& r);

}  // namespace sl::remote
