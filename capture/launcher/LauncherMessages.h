#pragma once
// What `sightline profile` says while it runs: to stderr, each line with the profiler's prefix
// ("sightline: ", "sightline[rank 3]: "), and to the --progress-fd reader. Into a pipe or a
// socket, what is said while the program runs waits for its end: the program may share that
// pipe (2>&1 | head -c 10), and a reader that ended on our lines would have the program's next
// write kill it with SIGPIPE (it exited 141 instead of 6). A terminal or a file takes each line
// at once.
#include <functional>
#include <string>
#include <vector>

#include "capture/launcher/ProgressChannel.h"

namespace sl::capture {

class LauncherMessages {
public:
    LauncherMessages(std::string prefix, bool quiet, ProgressChannel& progress);
    // Every path out of the profile: an error's message must not be lost with what was held.
    ~LauncherMessages() { release(); }
    LauncherMessages(const LauncherMessages&) = delete;
    LauncherMessages& operator=(const LauncherMessages&) = delete;

    void say(const std::string& line);
    // The program ended (or was left running): what waited goes out, and what comes after.
    void release();
    // say() for the parts that take a function.
    std::function<void(const std::string&)> sayer() {
        return [this](const std::string& line) { say(line); };
    }

private:
    const std::string m_prefix;
    const bool m_quiet;
    ProgressChannel& m_progress;
    bool m_holding;
    std::vector<std::string> m_held;
};

}  // namespace sl::capture
