#include "capture/launcher/PreflightChecks.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "model/util/Format.h"

namespace sl::capture {
namespace {

unsigned long long freeBytes(const std::string& dir) {
    struct statvfs vs {};
    if (statvfs(dir.c_str(), &vs) != 0) return ~0ull;  // unknown: do not refuse
    return static_cast<unsigned long long>(vs.f_bavail) * vs.f_frsize;
}

}  // namespace

std::string checkReportDirectory(const std::string& reportPath, const std::string& option,
                                 const std::function<void(const std::string&)>& warn) {
    namespace fs = std::filesystem;
    std::string dir = fs::path(reportPath).parent_path().string();
    if (dir.empty()) dir = ".";
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
        return option + ": the directory " + dir + " does not exist (" + std::strerror(errno) +
               "); create it first";
    if (!S_ISDIR(st.st_mode)) return option + ": " + dir + " is not a directory";
    std::string probe = dir + "/.sightline-write-check-XXXXXX";
    std::vector<char> name(probe.begin(), probe.end());
    name.push_back(0);
    int fd = mkstemp(name.data());
    if (fd < 0)
        return option + ": cannot write in " + dir + " (" + std::strerror(errno) +
               "); choose another directory";
    ::close(fd);
    ::unlink(name.data());
    const unsigned long long avail = freeBytes(dir);
    if (avail < kMinFreeBytes)
        return option + ": " + dir + " has only " + formatBytes(avail) +
               " free; free some space or choose another directory";
    (void)warn;  // low space is warned about with the machine checks (warnAboutEnvironment)
    return {};
}

std::string checkSessionSpace(const std::string& sessionDir,
                              const std::function<void(const std::string&)>& warn) {
    const std::string where = std::filesystem::path(sessionDir).parent_path().string();
    const unsigned long long avail = freeBytes(sessionDir);
    if (avail < kMinFreeBytes)
        return "the capture's temporary directory " + where + " has only " + formatBytes(avail) +
               " free; free some space there or set TMPDIR to a directory with room";
    (void)warn;
    return {};
}

}  // namespace sl::capture
