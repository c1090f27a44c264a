#include "capture/launcher/LiveProgress.h"

#include <unistd.h>

#include <cstdio>
#include <set>

#include "capture/common/Clock.h"
#include "capture/launcher/JobControl.h"
#include "capture/launcher/ProcTree.h"
#include "capture/launcher/SessionMerger.h"

namespace sl::capture {

LiveProgress::LiveProgress(const ProfileOptions& o, ProgressChannel& channel, int64_t startMono,
                           const std::string& sessionDir, const std::string& arenaDir)
    : m_channel(channel),
      m_startMono(startMono),
      m_sessionDir(sessionDir),
      m_arenaDir(arenaDir),
      m_next(startMono + 1'000'000'000),
      m_counter(sessionDir, arenaDir) {
    const bool programOnTerminal =
        isatty(0) || (o.showOutput ? o.echoOutput && (isatty(1) || isatty(2)) : isatty(1) || isatty(2));
    m_line = !o.quiet && isatty(2) && !programOnTerminal;
    m_active = m_line || m_channel.enabled();
}

void LiveProgress::update(int64_t now) {
    if (!m_active || now < m_next) return;
    const uint64_t events = m_counter.poll();
    const size_t processes = descendantsOf(getpid()).size();
    const int64_t seconds = (now - m_startMono) / 1'000'000'000;
    m_channel.progress(seconds, processes, events);
    const bool show = m_line && inTerminalForeground();
    if (show)
        std::fprintf(stderr, "\rsightline: capturing: %lld s, %zu processes, %llu events written   ",
                     static_cast<long long>(seconds), processes,
                     static_cast<unsigned long long>(events));
    m_shown = m_shown || show;
    m_next = now + 1'000'000'000;
}

void LiveProgress::finish(const std::map<int64_t, std::pair<int64_t, int>>& reaped) {
    if (m_shown && inTerminalForeground()) std::fprintf(stderr, "\n");
    if (!m_channel.enabled()) return;
    // The tree has ended by now: the processes that ran are those with a stream
    // (module-PID-N), those the launcher reaped (a program that recorded nothing), and any
    // left running.
    std::set<int64_t> ran;
    for (const auto& path : SessionMerger::listStreams(m_sessionDir, m_arenaDir))
        if (int64_t pid = SessionMerger::streamPid(path)) ran.insert(pid);
    for (const auto& [pid, exit] : reaped) ran.insert(pid);
    for (int64_t pid : descendantsOf(getpid())) ran.insert(pid);
    m_channel.progress((nowNs() - m_startMono) / 1'000'000'000, ran.size(), m_counter.poll());
}

}  // namespace sl::capture
