#pragma once
// What `sightline profile` hands back once the program has ended and its report is written
// (Launcher::run; from the report writer's process after a stop from outside, DetachedFinish.h).
#include <string>
#include <vector>

namespace sl::capture {

struct ProfileResult {
    int exitCode = 0;                  // the program's (128 + signal when it was killed)
    // The signal that ended the program, when the profiler did not send it itself (--duration,
    // a capture range's shutdown, a second Ctrl+C): the profiler then ends by it too, as the
    // program would have without it (a shell prints "Segmentation fault" and stops a script).
    int signal = 0;
    std::vector<std::string> reports;  // files written
};

}  // namespace sl::capture
