#pragma once
// `sightline profile`: starts the program (argv, no shell) with the injection module in its
// environment, follows the whole process tree (it is the tree's child subreaper), samples CPU
// metrics and context switches, honours --delay/--duration/--kill and Ctrl+C, then merges the
// session's stream files into one .rep report (one per range with --capture-range-end=repeat).
// Runs on the CLI's main thread; owns the sampler, scheduler and output-reader threads.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "capture/launcher/ProfileOptions.h"
#include "capture/launcher/ProgressChannel.h"
#include "model/core/Result.h"

namespace sl::capture {

class WakePipe;
class SignalBoardReader;

struct ProfileResult {
    int exitCode = 0;                  // the program's (128 + signal when it was killed)
    // The signal that ended the program, when the profiler did not send it itself (--duration,
    // a capture range's shutdown, a second Ctrl+C): the profiler then ends by it too, as the
    // program would have without it (a shell prints "Segmentation fault" and stops a script).
    int signal = 0;
    std::vector<std::string> reports;  // files written
};

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
    Status addPythonHook(const Plan& plan, const std::string& sessionDir,
                         std::vector<std::pair<std::string, std::string>>& env);

    struct TreeWait {
        std::map<int64_t, std::pair<int64_t, int>> exits;  // pid -> (time, wait status)
        int rootStatus = 0;
        bool rootDone = false, detached = false;
        bool killedByUs = false;  // the profiler ended the tree (duration, range end, SIGKILL)
        bool rootKilledByUs = false;  // ... before the program's own process ended
        int64_t captureEnd = INT64_MAX;  // when the capture stopped early (duration, Ctrl+C)
        // A terminal's stop signal for a program that left the terminal's session: left
        // running, and the profiler ends by that signal, as the program's parent would have.
        int detachedBySignal = 0;
        // A stop signal came from outside (not the terminal's): whoever sent it may kill the
        // profiler next (mpirun, timeout -k), so the report is made out of its reach.
        bool stoppedFromOutside = false;
    };
    // Reaps the tree until none is left (or --kill=none detaches), applying --duration,
    // --kill, Ctrl+C and stop-shutdown; shows the live progress line on a terminal.
    // `rangesDone` says whether the capture range's end should end the program now
    // (stop-shutdown: the first end; repeat-shutdown:N: the N-th).
    TreeWait waitForTree(pid_t child, int64_t startMono, const std::string& sessionDir,
                         WakePipe& wake, const SignalBoardReader& board, bool shutdownAtRangeEnd,
                         const std::function<bool()>& rangesDone,
                         const std::function<void(const std::string&)>& say);

    ProfileOptions m_o;
    ProgressChannel m_progress;
    int m_startFailureExitCode = 0;
    std::string m_arenaDir;  // the arenas' directory of the running capture ("" : the session's)
};

}  // namespace sl::capture
