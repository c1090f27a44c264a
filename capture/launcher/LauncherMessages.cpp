#include "capture/launcher/LauncherMessages.h"

#include <sys/stat.h>

#include <cstdio>
#include <utility>

namespace sl::capture {
namespace {
bool stderrIsAPipe() {
    struct stat st {};
    return fstat(2, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}
}  // namespace

LauncherMessages::LauncherMessages(std::string prefix, bool quiet, ProgressChannel& progress)
    : m_prefix(std::move(prefix)), m_quiet(quiet), m_progress(progress), m_holding(stderrIsAPipe()) {}

void LauncherMessages::say(const std::string& line) {
    if (!m_quiet) {
        if (m_holding)
            m_held.push_back(line);
        else
            std::fprintf(stderr, "%s%s\n", m_prefix.c_str(), line.c_str());
    }
    m_progress.message(line);
}

void LauncherMessages::release() {
    m_holding = false;
    for (const std::string& line : m_held) std::fprintf(stderr, "%s%s\n", m_prefix.c_str(), line.c_str());
    m_held.clear();
}

}  // namespace sl::capture
