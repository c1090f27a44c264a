#pragma once
// `sightline profile --progress-fd N`: the capture's progress as JSON lines on a file descriptor,
// for programs that run the profiler (the GUI's Capture tab) instead of text they would parse.
// One object per line, each with "event":
//   {"event":"started","pid":123,"command":["prog","arg"]}
//   {"event":"progress","seconds":3,"processes":2,"events":12345}      (about once a second:
//                                          processes running; once more at the end: processes
//                                          that ran)
//   {"event":"message","text":"..."}                                   (what stderr also says)
//   {"event":"warning","text":"..."}                                   (data that will be missing)
//   {"event":"report","path":"report1.rep","bytes":4096}               (one per report written)
//   {"event":"finished","exit_code":0}  or  {"event":"error","message":"..."}
// Each line is one write(2), so a reader never sees half a line from us. A closed reader is
// ignored: progress must never end a capture.
#include <cstdint>
#include <string>
#include <vector>

namespace sl::capture {

class ProgressChannel {
public:
    explicit ProgressChannel(int fd = -1);
    bool enabled() const { return m_fd >= 0; }

    void started(int64_t pid, const std::vector<std::string>& command);
    void progress(int64_t seconds, size_t processes, uint64_t events);
    void message(const std::string& text);
    void warning(const std::string& text);
    void report(const std::string& path, uint64_t bytes);
    void finished(int exitCode);
    void error(const std::string& message);

private:
    void emit(const std::string& line);
    int m_fd;
};

}  // namespace sl::capture
