#pragma once
// What makes a capture fail for sure, checked before the program starts: a program run for
// minutes must not end in "cannot write the report". Each check returns "" or the message to
// stop with. (What only might hurt, such as little free space, is warned about by the machine
// checks, EnvironmentChecks.h, which `sightline profile` runs first.)
#include <functional>
#include <string>

namespace sl::capture {

// The directory the report goes in exists, is a directory, takes a new file (a probe file is
// created and removed: this also catches read-only file systems and root-squashed mounts) and
// has room. `option` names where the path came from ("-o report.rep").
std::string checkReportDirectory(const std::string& reportPath, const std::string& option,
                                 const std::function<void(const std::string&)>& warn);

// The session directory's file system (TMPDIR) has room for the raw capture.
std::string checkSessionSpace(const std::string& sessionDir,
                              const std::function<void(const std::string&)>& warn);

// Below this a capture is refused.
constexpr unsigned long long kMinFreeBytes = 1ull << 20;

}  // namespace sl::capture
