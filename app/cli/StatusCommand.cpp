// `sightline status [-e|--environment]` (nsys status): whether this machine can capture, each
// check OK, WARN or FAIL with the command that fixes it. Exits 1 when a check fails.
#include <cstdio>
#include <filesystem>

#include "app/cli/Command.h"
#include "app/cli/CommandLine.h"
#include "capture/launcher/EnvironmentChecks.h"
#include "capture/launcher/Launcher.h"

namespace sl::cli {
namespace {

int runStatus(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("status", argc, argv, &exitCode);
    if (!args) return exitCode;
    if (!args->positionals.empty())
        return usageError("status", "unexpected argument '" + args->positionals[0] + "'");
    capture::EnvironmentProbe probe;
    probe.directories = {capture::sessionParentDirectory(),
                         std::filesystem::current_path().string()};
    probe.injectDir = capture::Launcher::findModuleDir();
    const auto checks = capture::checkEnvironment(probe);
    if (args->value("format") == "json")
        std::printf("%s\n", capture::checksJson(checks).c_str());
    else
        std::printf("%s", capture::formatChecks(checks).c_str());
    for (const auto& c : checks)
        if (c.level == capture::CheckLevel::Fail) return 1;
    return 0;
}

const Registrar kStatus({"status", "check whether this machine can capture (perf, CUDA, disk)",
                         runStatus, false, 20});

}  // namespace
}  // namespace sl::cli
