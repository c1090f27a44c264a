#pragma once
// The launcher's forked child becoming the program: its environment, its output, the go byte it
// waits for (the perf events are opened on its pid before it runs anything), the dispositions
// and descriptor limit it was started with given back, then its exec.
#include <signal.h>

#include <string>
#include <utility>
#include <vector>

#include "capture/launcher/LauncherGuards.h"

namespace sl::capture {

// What the forked child needs to become the program.
struct ChildSetup {
    std::vector<std::pair<std::string, std::string>> env;
    const std::vector<std::string>* command = nullptr;
    int goFd = -1, errFd = -1, stdoutFd = -1, stderrFd = -1;
    std::vector<std::pair<int, struct sigaction>> restore;  // the profiler's own handlers undone
    bool inheritEnvironment = true;  // -n false: start from an empty environment
    const RaisedDescriptorLimit* descriptorLimit = nullptr;  // the program's limit, given back
};

// In the child: makes the program's environment and output, waits for the go byte (the perf
// events are open by then: the first of a boot, or after a second without any, waits for the
// kernel's RCU grace period, which this set-up runs beside), restores the signal dispositions
// and execs the program; on failure reports errno through errFd.
[[noreturn]] void execChild(const ChildSetup& c);

}  // namespace sl::capture
