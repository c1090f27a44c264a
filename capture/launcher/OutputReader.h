#pragma once
// --show-output: a thread reads the program's stdout and stderr pipes, keeps what they carried
// with when (the report's program output) and, with -w true, passes it on to the profiler's own.
#include <atomic>
#include <thread>
#include <vector>

#include "model/core/Entities.h"

namespace sl::capture {

class OutputReader {
public:
    OutputReader() = default;
    OutputReader(const OutputReader&) = delete;
    OutputReader& operator=(const OutputReader&) = delete;
    ~OutputReader() { stop(); }
    // Takes both descriptors (closed when their writers are gone, or at stop()).
    void start(int outFd, int errFd, bool echo);
    // Reads on until both pipes are idle, then ends the thread.
    void stop();
    std::vector<ProgramOutput> take() { return std::move(m_out); }

private:
    void run();
    int m_fds[2] = {-1, -1};
    bool m_echo = true;  // -w true: the program's output also goes on to ours
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    std::vector<ProgramOutput> m_out;
};

}  // namespace sl::capture
