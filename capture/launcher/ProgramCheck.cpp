#include "capture/launcher/ProgramCheck.h"

#include <climits>

#include "capture/common/ExecCheck.h"

namespace sl::capture {

std::string resolveProgram(const std::string& program) {
    char path[PATH_MAX];
    return findExecutable(program.c_str(), path, sizeof path) ? std::string(path) : std::string();
}

std::string untraceableReason(const std::string& path) {
    const Untraceable u = untraceableImage(path.c_str());
    if (u == Untraceable::No) return {};
    return path + " " + untraceableText(u) +
           ", so its NVTX, OS runtime and CUDA calls are not traced (CPU samples, context "
           "switches and its exit status are)";
}

}  // namespace sl::capture
