#pragma once
// `sightline profile`: starts the program (argv, no shell) with the injection module in its
// environment, follows the whole process tree (it is the tree's child subreaper), samples CPU
// metrics and context switches, honours --delay/--duration/--kill and Ctrl+C, then merges the
// session's stream files into one .rep report (one per range with --capture-range-end=repeat).
// Runs on the CLI's main thread; owns the sampler, scheduler and output-reader threads.
#include <cstdint>
#include <string>
#include <vector>

#include "capture/launcher/ProfileOptions.h"
#include "model/core/Result.h"

namespace sl::capture {

struct ProfileResult {
    int exitCode = 0;                  // the program's (128 + signal when it was killed)
    std::vector<std::string> reports;  // files written
};

class Launcher {
public:
    explicit Launcher(ProfileOptions options);
    Result<ProfileResult> run();

    // Where libsightline-inject.so is: $SIGHTLINE_INJECT_DIR, next to the executable in the
    // install tree (<prefix>/bin -> <prefix>/<libdir>/sightline), or the build tree.
    static std::string findModuleDir();

private:
    ProfileOptions m_o;
};

}  // namespace sl::capture
