#include "capture/launcher/PreflightChecks.h"

#include <cstdlib>

#include "capture/launcher/EnvironmentChecks.h"

namespace sl::capture {

std::string checkCaptureDirectory(const std::string& dir, const std::string& role,
                                  const std::function<void(const std::string&)>& warn) {
    const EnvironmentCheck c = directoryCheck(dir);
    char* end = nullptr;
    const unsigned long long available = std::strtoull(c.value.c_str(), &end, 10);
    const bool spaceKnown = !c.value.empty() && end && *end == 0;
    if (c.level == CheckLevel::Fail && !spaceKnown) return role + ": " + directoryWarning(c);
    if (spaceKnown && available < kMinFreeBytes)
        return role + ": " + directoryWarning(c) + "; under " + std::to_string(kMinFreeBytes >> 20) + " MiB free, the capture is not started";
    if (c.level != CheckLevel::Ok) warn("warning: " + directoryWarning(c));
    return {};
}

}  // namespace sl::capture
