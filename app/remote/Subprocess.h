#pragma once
// fork/exec of a helper program (the system's ssh) without a shell: argv as given, each child in
// its own process group so that the terminal's Ctrl+C reaches only `sightline`, which decides what
// a stop means for the remote capture.
#include <sys/types.h>

#include <string>
#include <vector>

#include "model/core/Result.h"

namespace sl::remote {

struct Child {
    pid_t pid = -1;
    int in = -1;   // write end of the child's stdin (-1: /dev/null)
    int out = -1;  // read end of its stdout (-1: not captured)
    int err = -1;  // read end of its stderr (-1: not captured)
};

struct SpawnOptions {
    bool pipeIn = false;
    bool pipeOut = true;
    bool pipeErr = true;
    int errFd = -1;  // with pipeErr false: this descriptor (a log file) instead of our stderr
};

Result<Child> spawn(const std::vector<std::string>& argv, const SpawnOptions& o);
// Waits for the child; its exit code, or 128 + the signal that ended it.
int waitChild(pid_t pid);

struct Ran {
    int code = 0;
    std::string out, err;
};
// Runs argv to its end with `input` on stdin; collects stdout and stderr.
Result<Ran> runProgram(const std::vector<std::string>& argv, const std::string& input = {});

}  // namespace sl::remote
