#pragma once
// Counts the events recorded so far during a capture, for progress lines: reads the session
// directory's raw stream files incrementally (only blocks written since the last poll, only
// whole blocks) and counts the records that become events (generic events, NVTX pushes,
// starts and marks; pops, ends, strings and metadata are not events). Launcher thread only.
#include <cstdint>
#include <map>
#include <string>

namespace sl::capture {

class LiveEventCounter {
public:
    // `arenaDir`: where streams written at a process's end are, when apart (ArenaSalvage.h).
    explicit LiveEventCounter(std::string sessionDir, std::string arenaDir = {})
        : m_dirs{std::move(sessionDir), std::move(arenaDir)} {}
    // Reads what was appended since the last call and returns the total so far.
    uint64_t poll();
    uint64_t total() const { return m_total; }

private:
    void pollDirectory(const std::string& dir);
    std::string m_dirs[2];
    std::map<std::string, uint64_t> m_offsets;  // stream file -> bytes already counted
    uint64_t m_total = 0;
};

}  // namespace sl::capture
