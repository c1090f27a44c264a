#pragma once
// The processes below a pid, from the ppid fields of /proc/<pid>/stat. The launcher is the
// child subreaper of the traced tree, so "below the launcher" is the whole tree, orphans
// included.
#include <cstdint>
#include <vector>

namespace sl::capture {

std::vector<int64_t> descendantsOf(int64_t pid);

}  // namespace sl::capture
