#pragma once
// Why a program cannot be traced by preloading, checked before it starts so the user is told at
// once and not by an empty report (the facts are capture/common/ExecCheck.h's). Such programs
// still get CPU samples, context switches and their process row.
#include <string>

namespace sl::capture {

// The file execvp would run for `program` (searched in PATH when it has no '/'); "" if none.
std::string resolveProgram(const std::string& program);
// "" when the loader will run our module in `path`; otherwise the reason, for a warning.
std::string untraceableReason(const std::string& path);

}  // namespace sl::capture
