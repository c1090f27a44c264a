#include "capture/launcher/Launcher.h"


#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "capture/common/Clock.h"
#include "capture/common/GateFile.h"
#include "capture/common/RawFormat.h"
#include "capture/common/SessionEnv.h"
#include "capture/common/SignalBoard.h"
#include "capture/launcher/ArenaSalvage.h"
#include "capture/launcher/CpuSampler.h"
#include "capture/launcher/DetachedFinish.h"
#include "capture/launcher/EnvironmentChecks.h"
#include "capture/launcher/JobControl.h"
#include "capture/launcher/LauncherGuards.h"
#include "capture/launcher/LauncherMessages.h"
#include "capture/launcher/LauncherSignals.h"
#include "capture/launcher/OutputReader.h"
#include "capture/launcher/ProgramStart.h"
#include "capture/launcher/OrphanReaper.h"
#include "capture/launcher/PidService.h"
#include "capture/launcher/PreflightChecks.h"
#include "capture/launcher/ProgramCheck.h"
#include "capture/launcher/ProcSampler.h"
#include "capture/launcher/ProcTree.h"
#include "capture/launcher/SessionMerger.h"
#include "capture/launcher/ReportAssembler.h"
#include "capture/launcher/SessionFacts.h"
#include "capture/launcher/SignalBoardReader.h"
#include "capture/launcher/MpiFlavor.h"
#include "capture/launcher/SchedTracer.h"
#include "capture/launcher/TreeWaiter.h"
#if SIGHTLINE_HAVE_CUDA_REPORT
#include "capture/cupti/CudaCaptureSession.h"
#endif
#include "model/util/Format.h"
#include "model/util/OutputTarget.h"

namespace sl::capture {
using namespace launcher_signals;
namespace {

namespace fs = std::filesystem;


bool isFile(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string selfExeDir() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ".";
    buf[n] = 0;
    return fs::path(buf).parent_path().string();
}

// The directory the program starts in, as the report shows it: getcwd, or, where it was
// removed, what the kernel still calls it ("/tmp/x (deleted)").
std::string startDirectory() {
    if (char* cwd = getcwd(nullptr, 0)) {
        std::string dir = cwd;
        std::free(cwd);
        return dir;
    }
    char buf[4096];
    const ssize_t n = readlink("/proc/self/cwd", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// The command as one line for our messages: a long one (a link line of thousands of objects)
// is shown by its start and its length; the report keeps it whole.
std::string joinArgs(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
    constexpr size_t kShown = 200;
    if (s.size() > kShown)
        s = std::string(cutAtCharacter(s, kShown)) + "... (" + formatCount(s.size()) + " bytes)";
    return s;
}

}  // namespace

Launcher::Launcher(ProfileOptions options)
    : m_o(std::move(options)), m_progress(m_o.progressFd) {}

// The Python start-up hook (--python-functions-trace, --python-sampling): its directory first
// in PYTHONPATH (before the user's own, inherited or given with -e, which the hook leaves in
// place); the checked functions as the hook's table in the session directory; the sampling rate.
Status Launcher::addPythonHook(const Plan& plan, const std::string& sessionDir,
                               std::vector<std::pair<std::string, std::string>>& env) {
    std::string theirs;
    if (const char* v = std::getenv("PYTHONPATH"); v && m_o.inheritEnvironment) theirs = v;
    for (const auto& kv : m_o.env)
        if (kv.first == "PYTHONPATH") theirs = kv.second;
    env.emplace_back("PYTHONPATH", plan.pythonHookDir + (theirs.empty() ? "" : ":" + theirs));
    if (m_o.pythonSamplingHz > 0)
        env.emplace_back(env::kPythonSamplingHz, std::to_string(m_o.pythonSamplingHz));
    if (!m_o.pytorch.empty()) env.emplace_back(env::kPytorch, m_o.pytorch);
    if (!m_o.pythonBacktrace.empty())
        env.emplace_back(env::kPythonBacktrace, m_o.pythonBacktrace);
    if (m_o.pythonFunctions.empty()) return {};
    const std::string table = sessionDir + "/python-functions.tsv";
    {
        std::ofstream out(table, std::ios::binary | std::ios::trunc);
        out << pythonHookTable(m_o.pythonFunctions);
        if (!out.flush())
            return makeError("--python-functions-trace: cannot write " + table + ": " +
                             std::strerror(errno));
    }
    env.emplace_back(env::kPythonFunctions, table);
    return {};
}

std::string Launcher::findModuleDir() {
    const std::string lib = "/libsightline-inject.so";
    if (const char* d = std::getenv("SIGHTLINE_INJECT_DIR"); d && isFile(std::string(d) + lib))
        return d;
    std::string exe = selfExeDir();
    for (const std::string& c :
         {exe + "/../" SIGHTLINE_INSTALL_LIBDIR "/sightline", exe + "/../lib/sightline",
          exe + "/../../lib/sightline"}) {
        if (isFile(c + lib)) return fs::weakly_canonical(c).string();
    }
    // The build tree's own modules, only for a binary of that build tree (an installed or
    // unpacked copy must find its own, not a build left on the machine).
    const std::string build = fs::weakly_canonical(SIGHTLINE_BUILD_DIR).string() + "/";
    if (fs::weakly_canonical(exe).string().rfind(build, 0) == 0 &&
        isFile(std::string(SIGHTLINE_BUILD_MODULE_DIR) + lib))
        return SIGHTLINE_BUILD_MODULE_DIR;
    return {};
}

namespace {
// "sightline: ", or "sightline[rank N]: " for a profiler started as one rank of an MPI job
// (`mpirun -n 8 sightline profile ...`): the ranks' lines interleave in one output, and which
// rank's report was written where, or failed, could not be told.
std::string messagePrefix() {
    static const char* const kRankSize[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                               {"PMI_RANK", "PMI_SIZE"},
                                               {"PMIX_RANK", nullptr},
                                               {"SLURM_PROCID", "SLURM_NTASKS"}};
    for (const auto& [rankVar, sizeVar] : kRankSize) {
        const char* rank = std::getenv(rankVar);
        if (!rank || !*rank) continue;
        const char* size = sizeVar ? std::getenv(sizeVar) : nullptr;
        if (size && std::atoi(size) <= 1) return "sightline: ";  // a job of one: nothing to tell apart
        return std::string("sightline[rank ") + rank + "]: ";
    }
    return "sightline: ";
}

}  // namespace

Result<Launcher::Plan> Launcher::preflight(const std::function<void(const std::string&)>& say) {
    Plan plan;
    if (m_o.command.empty()) return makeError("no program to profile");
    // The NVTX module is what switches the capture on: without it nothing would be recorded.
    if (m_o.captureRange == CaptureRange::Nvtx && !m_o.traceNvtx)
        return makeError("--capture-range=nvtx needs NVTX tracing (-t ...,nvtx)");
    // The report's name (now unless it depends on the pid) and its directory, which must take a
    // new file: a program that ran for an hour must not end in "cannot write the report".
    plan.defaultName = m_o.output.empty();
    std::string probeName = nextDefaultReportName();
    if (!plan.defaultName) {
        auto name = expandOutputPattern(m_o.output, 0);
        if (!name) return makeError(name.error());
        for (const std::string& unset : unsetPatternVariables(m_o.output))
            say("warning: -o " + m_o.output + ": %q{" + unset + "} is not set, so it adds nothing to "
                "the name (a rank's number is OMPI_COMM_WORLD_RANK under Open MPI, PMI_RANK under "
                "MPICH, SLURM_PROCID under srun)");
        probeName = *name;
        if (!patternUsesPid(m_o.output)) {
            plan.output = *name;
            std::error_code ec;
            if (!m_o.forceOverwrite && fs::exists(fs::symlink_status(plan.output, ec)))
                return makeError(plan.output +
                                 " already exists (use -f/--force-overwrite to replace it)");
            // -f writes through a symbolic link to its file, and never over a device: where
            // that file goes is checked now, not after the run.
            if (m_o.forceOverwrite) {
                auto target = outputTarget(plan.output);
                if (!target) return makeError("-o " + m_o.output + ": " + target.error());
                probeName = *target;
            }
        }
    }
    const std::string option = plan.defaultName ? "the report (" + probeName + ")"
                                                : "-o " + m_o.output;
    std::string reportDir = fs::path(probeName).parent_path().string();
    if (!plan.defaultName && patternUsesPid(m_o.output)) {
        auto other = expandOutputPattern(m_o.output, 1);
        plan.directoryByPid = other && fs::path(*other).parent_path().string() != reportDir;
    }
    if (plan.directoryByPid) {
        // Checked with the real pid before the program runs (it checked "run_0" before).
    } else if (std::string e =
                   checkCaptureDirectory(reportDir.empty() ? "." : reportDir, option, say);
               !e.empty()) {
        return makeError(e);
    }
    // Where the session directory will go (the streams, until the merge).
    if (std::string e = checkCaptureDirectory(sessionParentDirectory(), "TMPDIR", say); !e.empty())
        return makeError(e);
    std::string moduleDir = findModuleDir();
    if (moduleDir.empty())
        return makeError(
            "cannot find libsightline-inject.so (looked next to the sightline executable; set "
            "SIGHTLINE_INJECT_DIR)");
    // A program the loader will not preload us into: said now, the capture still goes on.
    if (std::string why = untraceableReason(resolveProgram(m_o.command[0])); !why.empty())
        say("warning: " + why);
    plan.injectLib = moduleDir + "/libsightline-inject.so";
    plan.cuptiLib = moduleDir + "/libsightline-cuda.so";  // capture/cupti's module
    plan.cudaAvailable = m_o.traceCuda && isFile(plan.cuptiLib);
    if (m_o.traceMpi) {
        // The program's own MPI, where it shows (its launcher's name, the library it links):
        // the other implementation's module breaks every MPI call. Given, --mpi-impl is the
        // user's (a wrapper may be named like one launcher): then a warning only.
        // Where the program says nothing (a script, python with mpi4py), the launcher that
        // started this profiler as a rank does (mpiFlavorOfEnvironment).
        const std::string program = resolveProgram(m_o.command[0]);
        std::string variable;
        const std::string programFlavor = mpiFlavorOf(program);
        const std::string flavor = !programFlavor.empty() ? programFlavor : mpiFlavorOfEnvironment(&variable);
        if (!flavor.empty() && flavor != m_o.mpiImpl) {
            const std::string name = flavor == "mpich" ? "MPICH" : "Open MPI";
            const std::string evidence =
                !programFlavor.empty() ? program + " looks like " + name + "'s"
                                       : "this rank was started by " + name + "'s launcher (" + variable + " set)";
            if (m_o.mpiImplGiven) {
                say("warning: -t mpi --mpi-impl=" + m_o.mpiImpl + ": " + evidence + "; if it runs " + name +
                    ", use --mpi-impl=" + flavor + " (the " + m_o.mpiImpl +
                    " module breaks the other implementation's MPI calls)");
            } else {
                say("-t mpi: " + (!programFlavor.empty() ? program + " runs " + name : evidence) +
                    ": tracing it with --mpi-impl=" + flavor);
                m_o.mpiImpl = flavor;
            }
        }
        plan.mpiLib = moduleDir + "/libsightline-mpi-" + m_o.mpiImpl + ".so";
        if (!isFile(plan.mpiLib))
            return makeError("-t mpi --mpi-impl=" + m_o.mpiImpl + ": this installation has no " +
                             "module for " + m_o.mpiImpl + " (" + plan.mpiLib + "); it was built " +
                             "without that implementation's headers (" +
                             (m_o.mpiImpl == "mpich" ? "libmpich-dev" : "libopenmpi-dev") +
                             " on Debian): rebuild with them installed");
    }
    for (auto [on, lib] : {std::pair{m_o.traceCublas, "cublas"}, std::pair{m_o.traceCudnn, "cudnn"},
                           std::pair{m_o.traceNccl, "nccl"}}) {
        if (!on) continue;
        std::string path = moduleDir + "/libsightline-" + lib + ".so";
        if (!isFile(path))
            return makeError(std::string("-t ") + lib + ": this installation has no module for " +
                             lib + " (" + path + "); it was built without the CUDA toolkit's " +
                             "headers or Python 3: rebuild with them installed");
        plan.cudaLibs.push_back(path);
    }
    if (m_o.traceOpenmp) {
        plan.omptLib = moduleDir + "/libsightline-ompt.so";
        if (!isFile(plan.omptLib))
            return makeError("-t openmp: this installation has no OMPT tool (" + plan.omptLib +
                             "); it was built without an OMPT header (libomp-dev on Debian): "
                             "rebuild with it installed");
    }
    plan.pythonHookDir = moduleDir + "/python";
    if (m_o.usesPythonHook() && !isFile(plan.pythonHookDir + "/sightline_pytrace.py"))
        return makeError("Python tracing: cannot find the Python start-up hook (" +
                         plan.pythonHookDir + "/sightline_pytrace.py); the installation is incomplete");
    return plan;
}

// What one run's capture holds from the program's start to its report.
struct Launcher::CaptureRun {
    Plan plan;
    TempDir session, arenas;  // the streams; the thread buffers' arenas
    pid_t child = -1;         // the program's first process
    pid_t launcherPid = 0;    // the tree's parent, whichever process makes the report
    pid_t reaper = 0;         // where the tree's orphans would have gone without us (0 unknown)
    int64_t startMono = 0, startUtc = 0;
    int64_t sessionEnd = 0;
    std::string workingDirectory;
};

// What records the program from outside while it runs, and holds it for the report.
struct Launcher::Recorders {
    GateFile gate;  // --capture-range's session-wide switch
#if SIGHTLINE_HAVE_CUDA_REPORT
    std::optional<cuda::CudaCaptureSession> cuda;
#endif
    SchedTracer sched;  // declared before cpu: the sampler hands it records until its stop()
    CpuSampler cpu;     // opened before the exec: the program's own mappings are recorded
    std::optional<ProcSampler> proc;  // CPU metrics, once the program's pid is known
    OutputReader output;
    std::string schedProblem, samplingProblem;
    bool sampled = false;  // CPU samples were taken (asked for, and the events opened)
};

// The pipes between the launcher and its forked child.
struct Launcher::ChildPipes {
    Pipe go;              // the go byte: the child waits for the perf events to be open
    Pipe execError;       // errno of a failed exec
    Pipe stdOut, stdErr;  // --show-output: the program's output
};

Result<ProfileResult> Launcher::run() {
    blockTerminalOutputStops();  // before anything is said (JobControl.h)
    LauncherMessages messages(messagePrefix(), m_o.quiet, m_progress);
    const auto say = messages.sayer();
    // A closed stderr (sightline profile ... 2>&1 | head -1) must not end the capture before
    // its report; the program gets the disposition back (its restore list, below).
    SignalHandlers pipeIgnored({SIGPIPE}, SIG_IGN);
    RaisedDescriptorLimit descriptorLimit;
    CaptureRun cap;
    // Step 1: everything that can fail before the program runs.
    auto planned = preflight(say);
    if (!planned) return makeError(planned.error());
    cap.plan = std::move(*planned);

    // Step 2: the session directory (streams) and the arena directory (thread buffers).
    const std::string tmpDir = sessionParentDirectory();
    std::string sessionTemplate = tmpDir + "/sightline-session-XXXXXX";
    std::vector<char> dirBuf(sessionTemplate.begin(), sessionTemplate.end());
    dirBuf.push_back(0);
    if (!mkdtemp(dirBuf.data()))
        return makeError("cannot create the capture's temporary directory in " + tmpDir + " (" +
                         std::strerror(errno) + "); set TMPDIR to a writable directory");
    cap.session = TempDir(dirBuf.data());
    cap.arenas = TempDir(makeArenaDir());
    m_arenaDir = cap.arenas.path();
    // Which of the program's processes had a signal already (SignalBoardReader.h).
    const SignalBoardReader signalBoard(m_arenaDir.empty() ? cap.session.path() : m_arenaDir);
    // Tells processes in other PID namespaces their pids as we see them (PidService.h).
    PidService pidService(cap.session.path());

    // Step 3: start the program, stopped on a pipe until the context-switch events are open.
    // Where the tree's orphans would go without us, asked before we take them.
    // As init of a PID namespace (`unshare --pid --fork sightline ...`, a container's entry
    // point) the orphans are ours without the profiler too; the probe's own orphan would have
    // come back to us and been recorded as a process of the program.
    cap.reaper = getpid() == 1 ? 1 : orphanReaper();
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    WakePipe wake;  // before the handlers that write to it
    ProfilerSignals signalHandlers(m_o.captureRange != CaptureRange::None);
    const bool shutdownAtRangeEnd =
        m_o.captureRange != CaptureRange::None && (m_o.rangeEnd == CaptureRangeEnd::StopShutdown ||
                                                   m_o.rangeEnd == CaptureRangeEnd::RepeatShutdown);
    ChildPipes pipes;
    if (!pipes.go.open() || !pipes.execError.open() ||
        (m_o.showOutput && (!pipes.stdOut.open() || !pipes.stdErr.open())))
        return makeError(std::string("cannot create a pipe: ") + std::strerror(errno));
    Recorders rec;
    // --capture-range: the session-wide switch, off until the range begins (GateState.h): the
    // NVTX module opens it at the named range, the CUDA module at cudaProfilerStart. Everything
    // (OS runtime calls, NVTX, CPU samples, CUDA) is recorded only inside, as in nsys; before,
    // -c cudaProfilerApi held back CUDA alone and a program that never called
    // cudaProfilerStart got a report of its whole run.
    if (m_o.captureRange != CaptureRange::None) {
        uint32_t maxWindows = repeats(m_o.rangeEnd) ? static_cast<uint32_t>(m_o.repeatCount) : 1u;
        if (std::string e = rec.gate.create(cap.session.path(), maxWindows, shutdownAtRangeEnd);
            !e.empty())
            return makeError("--capture-range: " + e);
    }
#if SIGHTLINE_HAVE_CUDA_REPORT
    rec.cuda.emplace(m_o.cuda, m_o.gpuMetrics, cap.plan.cudaAvailable);
#endif
    ChildSetup setup;
    auto env = programEnvironment(cap, rec, pidService);
    if (!env) return makeError(env.error());
    setup.env = std::move(*env);
    setup.command = &m_o.command;
    setup.inheritEnvironment = m_o.inheritEnvironment;
    setup.descriptorLimit = &descriptorLimit;
    setup.goFd = pipes.go.read.get();
    setup.errFd = pipes.execError.write.get();
    setup.stdoutFd = pipes.stdOut.write.get();
    setup.stderrFd = pipes.stdErr.write.get();
    setup.restore = signalHandlers.previous();
    for (const auto& r : pipeIgnored.previous()) setup.restore.push_back(r);

    ProgramTree program;
    if (Status started = startProgram(cap, rec, setup, pipes, program, say); !started)
        return makeError(started.error());

    {
        AssemblyInput early;  // what a later `sightline import` needs should we not get to the end
        early.options = &m_o;
        early.sessionDir = cap.session.path();
        early.startMono = cap.startMono;
        early.startUtc = cap.startUtc;
        early.rootPid = cap.child;
        early.launcherPid = getpid();
        early.orphanReaper = cap.reaper > 0 ? cap.reaper : 0;
        early.workingDirectory = cap.workingDirectory;
        writeSessionFacts(early, cap.arenas.path());
    }
    m_progress.started(cap.child, m_o.command);
    say("capture running: pid " + std::to_string(cap.child) + " (" + joinArgs(m_o.command) + ")" +
        (m_o.traceCuda && !cap.plan.cudaAvailable ? "; CUDA trace unavailable in this build" : ""));
    rec.proc.emplace(cap.child, m_o.cpuMetricsFrequency);
    if (m_o.cpuMetrics) rec.proc->start();
#if SIGHTLINE_HAVE_CUDA_REPORT
    rec.cuda->start(say);
#endif
    if (m_o.showOutput)
        rec.output.start(pipes.stdOut.read.release(), pipes.stdErr.read.release(), m_o.echoOutput);

    // Step 5: wait for the whole tree (ECHILD), handling the duration and Ctrl+C.
    // repeat-shutdown:N ends the program when the N-th range has ended, stop-shutdown at the first.
    auto rangesDone = [&] {
        if (m_o.rangeEnd != CaptureRangeEnd::RepeatShutdown) return true;
        uint64_t opened = 0;
        size_t closed = 0;
        for (const auto& gw : rec.gate.windows(&opened)) closed += gw.end != 0;
        return closed >= static_cast<size_t>(m_o.repeatCount);
    };
    TreeWaiter waiter({m_o, m_progress, cap.child, cap.startMono, cap.session.path(), m_arenaDir,
                       wake, signalBoard, shutdownAtRangeEnd, rangesDone, say});
    TreeWait tw = waiter.wait();
    messages.release();
    program.done();
    cap.sessionEnd = std::min(nowNs(), tw.captureEnd);
    rec.proc->stop();
    rec.cpu.stopRecording();  // first: it may hand records to sched
    rec.sched.stop();
#if SIGHTLINE_HAVE_CUDA_REPORT
    rec.cuda->stop();
#endif
    rec.output.stop();

    // Steps 6 to 8, in a process the job's killer does not reach when the stop came from
    // outside (DetachedFinish.h: mpirun's SIGKILL of every rank's group once the first ended).
    cap.launcherPid = getpid();
    if (!tw.stoppedFromOutside) return makeReports(cap, rec, tw, say);
    rec.cpu.quiesce();  // the child has this thread only
    auto r = finishOutOfReach(
        [&] { return makeReports(cap, rec, tw, say); },
        [&] {
            cap.session.keep();
            cap.arenas.keep();
        },
        [&] {
            cap.session.remove();
            cap.arenas.remove();
        });
    if (!r && !fs::exists(cap.session.path() + "/" + kSessionFactsFile)) return r;
    if (!r && r.error().find(cap.session.path()) == std::string::npos)
        return makeError(r.error() + "\nsightline: the raw capture is kept in " + cap.session.path() +
                         "; make the report from it with: sightline import " + cap.session.path() +
                         " -o REPORT.rep");
    return r;
}

// The program's environment: ours (the modules, the session, what each trace needs), then the
// user's -e variables.
Result<std::vector<std::pair<std::string, std::string>>> Launcher::programEnvironment(
    const CaptureRun& cap, Recorders& rec, const PidService& pidService) {
    const Plan& plan = cap.plan;
    std::string trace = std::string(m_o.traceNvtx ? "nvtx," : "") + (m_o.traceOsrt ? "osrt," : "") +
                        (plan.cudaAvailable ? "cuda," : "") +
                        (m_o.traceMpi ? "mpi," : "") + (m_o.traceOpenmp ? "openmp," : "") +
                        (m_o.traceCublas ? "cublas," : "") + (m_o.traceCudnn ? "cudnn," : "") +
                        (m_o.traceNccl ? "nccl," : "");
    // After the user's own preloads (a sanitizer runtime must stay first).
    std::string preload = plan.injectLib;
    if (!plan.mpiLib.empty()) preload += ":" + plan.mpiLib;  // after the module it records through
    for (const std::string& lib : plan.cudaLibs) preload += ":" + lib;  // likewise
    if (const char* old = std::getenv("LD_PRELOAD"); old && *old && m_o.inheritEnvironment)
        preload = std::string(old) + ":" + preload;

    std::vector<std::pair<std::string, std::string>> env = {
        {"LD_PRELOAD", preload},
        {env::kSessionDir, cap.session.path()},
        {env::kTrace, trace},
        {env::kOsrtThresholdNs, std::to_string(m_o.osrtThresholdNs)},
        {env::kTraceForkBeforeExec, m_o.traceForkBeforeExec ? "1" : "0"},
        {env::kLauncherPid, std::to_string(getpid())}};
    if (cap.reaper > 0) env.emplace_back(env::kOrphanReaper, std::to_string(cap.reaper));
    if (!cap.arenas.path().empty()) env.emplace_back(env::kArenaDir, cap.arenas.path());
    if (pidService.running()) env.emplace_back(env::kProcDevice, pidService.procDevice());
    if (m_o.traceCuda && m_o.cudaBacktrace.any())
        env.emplace_back(cuda::kCudaBacktraceEnv, m_o.cudaBacktrace.toEnvironment());
    if (m_o.traceOsrt && m_o.osrtBacktraceThresholdNs >= 0)
        env.emplace_back(env::kOsrtBacktrace, std::to_string(m_o.osrtBacktraceThresholdNs) + ":" +
                                                  std::to_string(m_o.osrtBacktraceDepth));
    if (m_o.traceNvtx) env.emplace_back("NVTX_INJECTION64_PATH", plan.injectLib);
    if (plan.cudaAvailable) env.emplace_back("CUDA_INJECTION64_PATH", plan.cuptiLib);
    if (!plan.omptLib.empty()) {
        // Ours first: an OpenMP runtime starts the first tool of the list that accepts.
        std::string tools = plan.omptLib;
        if (const char* old = std::getenv("OMP_TOOL_LIBRARIES"); old && *old && m_o.inheritEnvironment)
            tools += ":" + std::string(old);
        env.emplace_back("OMP_TOOL_LIBRARIES", tools);
        env.emplace_back("OMP_TOOL", "enabled");
    }
    if (m_o.captureRange == CaptureRange::Nvtx) {
        env.emplace_back(env::kCaptureRange, m_o.nvtxRange);
        env.emplace_back(env::kCaptureDomain, m_o.nvtxDomain);
    }
#if SIGHTLINE_HAVE_CUDA_REPORT
    for (const auto& kv : rec.cuda->environment()) env.push_back(kv);
#else
    (void)rec;
#endif
    const bool pythonHook = m_o.usesPythonHook();
    if (pythonHook)
        if (Status st = addPythonHook(plan, cap.session.path(), env); !st) return makeError(st.error());
    for (const auto& kv : m_o.env)
        if (!pythonHook || kv.first != "PYTHONPATH") env.push_back(kv);
    return env;
}

// Forks the program's first process, which waits for the go byte; names the report where -o
// depends on its pid (checked before it runs); opens the CPU sampling and context-switch events
// on it; then lets it exec. A program that cannot be run is reaped and said.
Status Launcher::startProgram(CaptureRun& cap, Recorders& rec, const ChildSetup& setup,
                              ChildPipes& pipes, ProgramTree& program,
                              const std::function<void(const std::string&)>& say) {
    Plan& plan = cap.plan;
    cap.startMono = nowNs();
    cap.startUtc = utcNowNs();
    cap.workingDirectory = startDirectory();
    const pid_t child = fork();
    if (child < 0) return makeError(std::string("fork failed: ") + std::strerror(errno));
    if (child == 0) {
        pipes.go.write.reset();
        execChild(setup);
    }
    cap.child = child;
    program.started(child);
    g_programRoot = child;
    pipes.go.read.reset();
    pipes.execError.write.reset();
    pipes.stdOut.write.reset();
    pipes.stdErr.write.reset();

    // The output name can be made now that the root pid is known (-o with %p), and is checked
    // before the program runs: the child waits for the go byte. Before, a directory made of
    // the pid was checked as "run_0" and the error came after the whole capture.
    std::string madeReportDir;  // made for -o run_%p/x: removed if the program cannot run
    if (!plan.defaultName && plan.output.empty()) {
        std::string problem;
        auto name = expandOutputPattern(m_o.output, child);
        std::error_code ec;
        if (!name) {
            problem = name.error();
        } else if (!m_o.forceOverwrite && fs::exists(fs::symlink_status(*name, ec))) {
            problem = *name + " already exists (use -f/--force-overwrite to replace it)";
        } else if (plan.directoryByPid) {
            // Nobody can make a directory named by a pid before the pid exists: it is made here.
            const std::string dir = fs::path(*name).parent_path().string();
            if (fs::create_directories(dir, ec)) madeReportDir = dir;
            problem = ec ? "-o " + m_o.output + ": cannot make " + dir + ": " + ec.message()
                         : checkCaptureDirectory(dir, "-o " + m_o.output, say);
        }
        if (!problem.empty()) {
            ::kill(child, SIGKILL);  // still before its exec
            int st;
            while (waitpid(child, &st, 0) < 0 && errno == EINTR) {
            }
            program.done();
            return makeError(problem);
        }
        plan.output = *name;
    }

    // With both on, the sampling events carry the context switches too (one inherited event
    // per CPU in each task, not two); the tracer opens its own events only without sampling.
    rec.samplingProblem =
        m_o.cpuSampling ? rec.cpu.start(child, m_o.samplingFrequency,
                                        !m_o.backtraces        ? CpuSampler::Backtrace::None
                                        : m_o.dwarfBacktraces ? CpuSampler::Backtrace::Dwarf
                                                              : CpuSampler::Backtrace::FramePointers,
                                        m_o.contextSwitches ? &rec.sched : nullptr)
                        : "";
    rec.schedProblem = m_o.contextSwitches && (!m_o.cpuSampling || !rec.samplingProblem.empty())
                           ? rec.sched.start(child)
                           : std::string();
    rec.sampled = m_o.cpuSampling && rec.samplingProblem.empty();
    [[maybe_unused]] ssize_t w = write(pipes.go.write.get(), "g", 1);
    pipes.go.write.reset();
    int execErr = 0;
    if (read(pipes.execError.read.get(), &execErr, sizeof execErr) ==
        static_cast<ssize_t>(sizeof execErr)) {
        int st;
        waitpid(child, &st, 0);
        program.done();
        rec.cpu.stop();  // first: it may hand records to sched
        rec.sched.stop();
        // As a shell says it: 127 for a program not found, 126 for one found but not run.
        m_startFailureExitCode = execErr == ENOENT || execErr == ENOTDIR ? 127 : 126;
        if (!madeReportDir.empty()) {
            std::error_code ec;
            fs::remove(madeReportDir, ec);  // only if still empty
        }
        std::string why = std::strerror(execErr);
        if (execErr == E2BIG) {
            // Within the limit plain, past it with ours (the kernel counts each string, its
            // NUL and its pointer against ARG_MAX): say whose bytes tipped it.
            size_t plain = 0, added = 0;
            for (const auto& a : m_o.command) plain += a.size() + 1 + sizeof(char*);
            if (m_o.inheritEnvironment)
                for (char** e = environ; *e; ++e) plain += std::strlen(*e) + 1 + sizeof(char*);
            for (const auto& [k, v] : setup.env) added += k.size() + v.size() + 2 + sizeof(char*);
            const long limit = sysconf(_SC_ARG_MAX);
            if (limit > 0 && plain <= static_cast<size_t>(limit))
                why += " (the program's arguments and environment, " + std::to_string(plain) +
                       " bytes, are within the system's limit of " + std::to_string(limit) +
                       " (getconf ARG_MAX); the profiler's own environment variables add " +
                       std::to_string(added) + ")";
        }
        return makeError("cannot run '" + m_o.command[0] + "': " + why);
    }
    pipes.execError.read.reset();
    if (!rec.schedProblem.empty()) say(rec.schedProblem);
    if (!rec.samplingProblem.empty()) say(rec.samplingProblem);
    return {};
}

// Steps 6 to 8 once the program has ended: what died without its final flush taken from its
// arena, the streams merged into the report(s), the session removed (kept, and said, when
// anything could not be added or written: never delete what was captured).
Result<ProfileResult> Launcher::makeReports(CaptureRun& cap, Recorders& rec, TreeWait& tw,
                                            const std::function<void(const std::string&)>& say) {
    if (rec.sampled) rec.cpu.resolveInBackground();  // beside the merge of the streams

    // Step 6: what died without its final flush is taken from its buffer arena. What still
    // runs (--kill=none, --wait=primary) has its arena read, not changed (a snapshot of its
    // stream). An arena that could not be read back (a full disk) is kept, with the session, for
    // a later import.
    SalvageSummary salvage = salvageArenas(cap.session.path(), cap.arenas.path(), tw.detached);
    for (const auto& problem : salvage.problems) say("warning: " + problem);
    const bool keepRaw = !salvage.problems.empty();
    if (keepRaw) {
        cap.arenas.keep();
        cap.session.keep();
    }

    // Step 7: merge into the report(s).
    AssemblyInput in;
    in.options = &m_o;
    in.sessionDir = cap.session.path();
    in.arenaDir = cap.arenas.path();
    in.startMono = cap.startMono;
    in.startUtc = cap.startUtc;
    in.sessionEnd = cap.sessionEnd;
    in.rootPid = cap.child;
    in.launcherPid = cap.launcherPid;
    if (getpid() != cap.launcherPid) in.writerPid = getpid();
    in.orphanReaper = cap.reaper > 0 ? cap.reaper : 0;
    in.workingDirectory = cap.workingDirectory;
    in.exits = std::move(tw.exits);
    in.sampler = m_o.cpuMetrics ? &*rec.proc : nullptr;
#if SIGHTLINE_HAVE_CUDA_REPORT
    in.cuda = &*rec.cuda;
#endif
    in.sched = rec.schedProblem.empty() && m_o.contextSwitches ? &rec.sched : nullptr;
    in.schedProblem = rec.schedProblem;
    in.cpuSampler = rec.sampled ? &rec.cpu : nullptr;
    in.samplingProblem = rec.samplingProblem;
    in.cudaRequestedButUnavailable = m_o.traceCuda && !cap.plan.cudaAvailable;
    in.output = rec.output.take();
    in.outputPath = cap.plan.output;
    in.defaultName = cap.plan.defaultName;
    in.detached = tw.detached;
    if (tw.detachedBySignal)
        in.detachedBecause = "the terminal's " + signalName(tw.detachedBySignal) +
                             " ended the capture of a program that had left its session";
    in.writeLosses = std::move(salvage.writeLosses);
    if (rec.gate.valid()) {
        in.gateUsed = true;
        for (const auto& gw : rec.gate.windows(&in.gateWindowsOpened))
            in.gateWindows.push_back({gw.start, gw.end});
    }
    // The launcher's own facts go into the session directory first: should the report not be
    // written (or sightline be killed while merging), `sightline import DIR` makes it later (the
    // arenas' directory holds the streams processes wrote at their end, so it is named too).
    writeSessionFacts(in, cap.arenas.path());
    auto written = assembleReports(in, say);
    if (rec.sampled) say(rec.cpu.resolved().summary());
    if (!written && in.gateUsed && in.gateWindowsOpened == 0)
        // The capture range never began: the modules recorded only who ran (nothing is written
        // outside a window), so there is nothing to keep for a later import.
        return makeError(written.error());
    if (!written) {
        // Never delete what was captured.
        cap.session.keep();
        cap.arenas.keep();
        std::string instead;
        for (const std::string& f : in.writtenInstead) instead += (instead.empty() ? "" : ", ") + f;
        if (!in.writtenInstead.empty())
            return makeError(written.error() + "\nsightline: " +
                             (in.writtenInstead.size() == 1
                                  ? "the whole report was written instead to " + instead
                                  : std::to_string(in.writtenInstead.size()) +
                                        " whole reports were written instead: " + instead) +
                             (in.writtenInstead.size() == 1 ? " (move it where you want it)"
                                                             : " (move them where you want them)") +
                             "; the raw capture is kept beside: sightline import " +
                             cap.session.path() + " -o REPORT.rep");
        return makeError(written.error() + "\nsightline: the raw capture is kept in " +
                         cap.session.path() + "; make the report from it with: sightline import " +
                         cap.session.path() + " -o REPORT.rep");
    }
    if (keepRaw) {
        // What import can add is what the arenas still hold; what a process could not write
        // (in.writeLosses, the report's capture.write_failed) is gone either way.
        say("warning: some buffers could not be added to the capture; the raw capture is kept in " +
            cap.session.path() + " (buffers in " + cap.arenas.path() + "): when there is room again, "
            "sightline import " + cap.session.path() + " -o REPORT.rep makes the report with them" +
            (in.writeLosses.empty() ? std::string()
                                    : " (not with what processes could not write: see "
                                      "capture.write_failed in the report, lost)"));
    } else {
        // With --kill=none the program may still write: unlinked files are harmless.
        cap.session.remove();
        cap.arenas.remove();
    }

    ProfileResult result;
    result.reports = std::move(*written);
    for (const auto& path : result.reports) {
        std::error_code ec;
        const auto bytes = fs::file_size(path, ec);
        m_progress.report(path, ec ? 0 : static_cast<uint64_t>(bytes));
    }
    if (!tw.rootDone && tw.detachedBySignal) {
        result.exitCode = 128 + tw.detachedBySignal;
        result.signal = tw.detachedBySignal;
    }
    if (tw.rootDone) {
        result.exitCode = WIFEXITED(tw.rootStatus) ? WEXITSTATUS(tw.rootStatus)
                                                   : 128 + WTERMSIG(tw.rootStatus);
        // Killed by the program's own signal (not ours: --duration, a second Ctrl+C, the
        // SIGKILL after 5 s), even when what ran on after it was killed by us.
        if (WIFSIGNALED(tw.rootStatus) && !tw.rootKilledByUs) result.signal = WTERMSIG(tw.rootStatus);
    }
    return result;
}

}  // namespace sl::capture
