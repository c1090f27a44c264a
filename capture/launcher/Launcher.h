#pragma once
// `sightline profile`: starts the program (argv, no shell) with the injection module in its
// environment, follows the whole process tree (it is the tree's child subreaper), samples CPU
// metrics and context switches, honours --delay/--duration/--kill and Ctrl+C, then merges the
// session's stream files into one .rep report (one per range with --capture-range-end=repeat).
// Runs on the CLI's main thread; owns the sampler, scheduler and output-reader threads.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <string>
#include <vector>

#include "capture/launcher/ProfileOptions.h"
#include "capture/launcher/ProfileResult.h"
#include "capture/launcher/ProgressChannel.h"
#include "model/core/Result.h"

namespace sl::capture {

class PidService;
class ProgramTree;
struct ChildSetup;
struct TreeWait;

class Launcher {
public:
    explicit Launcher(ProfileOptions options);
    Result<ProfileResult> run();

    // Where libsightline-inject.so is: $SIGHTLINE_INJECT_DIR, next to the executable in the
    // install tree (<prefix>/bin -> <prefix>/<libdir>/sightline), or the build tree.
    static std::string findModuleDir();
    // After run() failed because the program could not be executed: the exit code a shell
    // gives then (127 not found, 126 not executable); 0 for other failures.
    int startFailureExitCode() const { return m_startFailureExitCode; }

private:
    // What the checks before the start found out.
    struct Plan {
        std::string output;  // the report's name; empty with a default name or a %p pattern
        bool defaultName = true;
        // -o run_%p/x: the report's directory depends on the root pid, checked once the
        // program's process exists and before it runs.
        bool directoryByPid = false;
        std::string injectLib, cuptiLib;
        std::string mpiLib;   // -t mpi: the module for --mpi-impl
        std::string omptLib;  // -t openmp: the OMPT tool
        std::vector<std::string> cudaLibs;  // -t cublas,cudnn,nccl: their modules, in that order
        std::string pythonHookDir;  // capture/python, for --python-functions-trace
        bool cudaAvailable = false;
    };
    Result<Plan> preflight(const std::function<void(const std::string&)>& say);
    // run()'s steps and what they hand on (defined in Launcher.cpp).
    struct CaptureRun;
    struct Recorders;
    struct ChildPipes;
    Result<std::vector<std::pair<std::string, std::string>>> programEnvironment(
        const CaptureRun& cap, Recorders& rec, const PidService& pidService);
    Status startProgram(CaptureRun& cap, Recorders& rec, const ChildSetup& setup, ChildPipes& pipes,
                        ProgramTree& program, const std::function<void(const std::string&)>& say);
    Status addPythonHook(const Plan& plan, const std::string& sessionDir,
                         std::vector<std::pair<std::string, std::string>>& env);

    Result<ProfileResult> makeReports(CaptureRun& cap, Recorders& rec, TreeWait& tw,
                                      const std::function<void(const std::string&)>& say);

    ProfileOptions m_o;
    ProgressChannel m_progress;
    int m_startFailureExitCode = 0;
    std::string m_arenaDir;  // the arenas' directory of the running capture ("" : the session's)
};

}  // namespace sl::capture
