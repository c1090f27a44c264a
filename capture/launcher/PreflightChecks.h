#pragma once
// What makes a capture fail for sure, checked before the program starts: a program run for
// minutes must not end in "cannot write the report". The directory itself is checked as
// `status -e` checks it (EnvironmentChecks.h, directoryCheck); this decides what refuses.
#include <functional>
#include <string>

namespace sl::capture {

// "" when `dir` can take the capture's files; else the message to stop with, led by `role`
// ("-o report.rep", "TMPDIR"): the directory is missing, not one, does not take a new file, or
// has less than kMinFreeBytes free. Less room than is comfortable goes to `warn`.
std::string checkCaptureDirectory(const std::string& dir, const std::string& role,
                                  const std::function<void(const std::string&)>& warn);

// Below this a capture is refused (the merge alone needs more).
constexpr unsigned long long kMinFreeBytes = 1ull << 20;

}  // namespace sl::capture
