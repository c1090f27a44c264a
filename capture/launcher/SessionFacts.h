#pragma once
// What only the launcher knows about a capture, kept in the session directory (session.facts)
// next to the streams: when it started and ended, the command, the exits it reaped, where the
// buffer arenas are. Written once when the program has started (so a profiler killed mid-run
// leaves a directory that can still be made a report) and again, complete, before the merge.
// `sightline import SESSION-DIR` reads it back (reportFromSession).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "capture/launcher/ReportAssembler.h"
#include "model/core/Result.h"

namespace sl::capture {

constexpr const char* kSessionFactsFile = "session.facts";

struct SessionFacts {
    int64_t startMono = 0, startUtc = 0, sessionEnd = 0;  // sessionEnd 0: not known
    int64_t rootPid = 0, launcherPid = 0, orphanReaper = 0;
    int64_t writerPid = 0;  // the process making the report after a stop from outside
    int64_t delayNs = 0, durationNs = 0;  // --delay, --duration
    std::vector<std::string> command;
    std::string optionsText;
    std::string arenaDir;
    std::string workingDirectory;
    std::map<int64_t, std::pair<int64_t, int>> exits;  // pid -> (time, wait status)
};

// Writes <in.sessionDir>/session.facts (replacing it atomically); false when it cannot.
bool writeSessionFacts(const AssemblyInput& in, const std::string& arenaDir = {});
Result<SessionFacts> readSessionFacts(const std::string& sessionDir);

// Whether `dir` is a kept session directory (it holds raw streams).
bool isSessionDirectory(const std::string& dir);

// The report of a kept session directory: salvages arenas still present, then merges the
// streams with the launcher's facts. CPU samples, CPU metrics and context switches lived only
// in the profiler and are not in it (a diagnostic says so).
// `output` empty: the first free report%n. Without `force` no file is replaced, not even one
// made meanwhile (another import of the same session into the same name): the report takes
// the next free number or name, as `profile`'s does.
Result<std::vector<std::string>> reportFromSession(
    const std::string& sessionDir, const std::string& output,
    const std::function<void(const std::string&)>& say, bool quiet = false, bool force = false);

}  // namespace sl::capture
