#pragma once
// How far a running capture is, once a second: how long, how many processes, how many events
// (whole blocks handed over), as a line on the terminal ("sightline: capturing: 12 s, 9
// processes, 48,120 events written") and to a --progress-fd reader. The line is drawn only
// where it is the profiler's alone: stderr a terminal, the program's standard descriptors not
// (a prompt, a REPL's ">>> ", a full-screen program's screen or a log line was overwritten),
// and the profiler the terminal's foreground job (in the background it wrote over the user's
// prompt, and under `stty tostop` stopped the job). Used by the wait for the tree, on its thread.
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "capture/launcher/LiveEventCounter.h"
#include "capture/launcher/ProfileOptions.h"
#include "capture/launcher/ProgressChannel.h"

namespace sl::capture {

class LiveProgress {
public:
    LiveProgress(const ProfileOptions& o, ProgressChannel& channel, int64_t startMono,
                 const std::string& sessionDir, const std::string& arenaDir);
    // When update() has something to say next (INT64_MAX: never).
    int64_t nextUpdate() const { return m_active ? m_next : INT64_MAX; }
    // Says how far the capture is, when a second has passed since the last time.
    void update(int64_t now);
    // The capture has ended: the line is closed, and the reader has the last count, so that it
    // knows the events of a short run too. `reaped`: the launcher's wait statuses by pid.
    void finish(const std::map<int64_t, std::pair<int64_t, int>>& reaped);

private:
    ProgressChannel& m_channel;
    const int64_t m_startMono;
    const std::string m_sessionDir, m_arenaDir;
    bool m_line = false;    // the terminal line may be drawn
    bool m_active = false;  // a line or a reader
    bool m_shown = false;   // the line was drawn (it ends with a newline at the end)
    int64_t m_next = 0;
    LiveEventCounter m_counter;
};

}  // namespace sl::capture
