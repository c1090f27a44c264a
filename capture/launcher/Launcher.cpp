#include "capture/launcher/Launcher.h"

#include "capture/launcher/LiveEventCounter.h"

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
#if SIGHTLINE_HAVE_CUDA_REPORT
#include "capture/cupti/CudaCaptureSession.h"
#endif
#include "model/util/Format.h"
#include "model/util/OutputTarget.h"

namespace sl::capture {
namespace {

namespace fs = std::filesystem;

// The longest the wait for the tree sleeps without a wake-up (a child's end, a signal, a
// deadline): what a lost one could cost, not a polling interval.
constexpr int64_t kLongestWaitNs = 250'000'000;
// A stop signal this soon after the first is the same stop sent twice (by `timeout`: to us,
// then to its group), not a user's second Ctrl+C, which comes later than a person can type.
constexpr int64_t kSameStopNs = 200'000'000;

volatile sig_atomic_t g_stopSignal = 0;
volatile sig_atomic_t g_sessionLeader = 0;  // the profiler leads its session (getsid)
volatile sig_atomic_t g_stopFromTerminal = 0;
volatile sig_atomic_t g_rangeEnded = 0;
volatile sig_atomic_t g_stopCount = 0;
// When the latest stop signal came (nowNs()), for the signal board (SignalBoardReader.h).
std::atomic<int64_t> g_stopAtNs{0};
std::atomic<int64_t> g_stopSender{0};  // who sent it (si_pid of a kill()), 0 unknown
static_assert(std::atomic<int64_t>::is_always_lock_free, "used in a signal handler");
// What became of the signals the handlers below did not act on, a bit per signal, for the wait
// to report once each (sayCaughtSignals).
std::atomic<uint64_t> g_fromProgram{0}, g_sentOn{0}, g_ignored{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "used in a signal handler");
void noteSignal(std::atomic<uint64_t>& bits, int sig) {
    if (sig > 0 && sig < 64) bits.fetch_or(1ULL << sig);
}
// Sent by a process of the traced tree with kill() or sigqueue(): a signal to its process group
// (a shell's `trap 'kill 0' EXIT`, `kill -- -$$`, `kill -USR2 0`), which reached the program
// too, or a program signalling its parent, which without the profiler is the shell. Either way
// the program runs on as it would without us. Async-signal-safe; keeps errno.
// Sent with kill() or sigqueue() by a process, not raised by the kernel (a terminal, a fault,
// a limit).
bool sentWithKill(const siginfo_t* info) {
    return info && (info->si_code == SI_USER || info->si_code == SI_QUEUE);
}
bool sentByTheProgram(const siginfo_t* info) {
    if (!sentWithKill(info) || info->si_pid <= 0) return false;
    const int saved = errno;  // the /proc reads may change it
    const bool below = isDescendantOf(info->si_pid, getpid());
    errno = saved;
    return below;
}
volatile sig_atomic_t g_programRoot = 0;  // the program's first process, once started
// A signal the profiler was started with ignored (SignalHandlers::ignoredAtStart: nohup's
// SIGHUP, a script's background job's SIGINT and SIGQUIT) is no stop for the profiler. Sent to
// it from outside (`kill -INT $!`), or a hang-up of the session it leads, it was meant for the
// program, which inherited SIG_IGN but may have installed a handler (a server's graceful
// shutdown, a reload on SIGHUP): passed on to its first process, as without the profiler.
// Before, it was lost: nothing was installed for it.
void passOnIgnoredSignal(int sig, const siginfo_t* info) {
    const int saved = errno;
    const bool fromProgram = sentByTheProgram(info);
    const bool forProgram = (sentWithKill(info) && !fromProgram) ||
                            (info && info->si_code == SI_KERNEL && sig == SIGHUP && g_sessionLeader);
    if (forProgram && g_programRoot > 0) {
        kill(static_cast<pid_t>(g_programRoot), sig);
        noteSignal(g_sentOn, sig);
    }  // else the program's own or the terminal's: it had it; ignored, as the profiler was told
    errno = saved;
    WakePipe::notify();
}
void onStopSignal(int sig, siginfo_t* info, void*) {
    if (SignalHandlers::ignoredAtStart(sig)) return passOnIgnoredSignal(sig, info);
    if (sentByTheProgram(info)) {  // not sent on; the capture goes on
        noteSignal(g_fromProgram, sig);
        WakePipe::notify();
        return;
    }
    // SI_KERNEL: the terminal's (Ctrl+C, Ctrl+\, a hang-up), which it sends to the whole
    // foreground process group: the program, in ours, has it already. Except a hang-up when
    // the profiler leads the terminal's session (ssh -t host sightline ..., tmux new
    // 'sightline ...', xterm -e): the kernel sends that to the session leader alone.
    g_stopFromTerminal = info && info->si_code == SI_KERNEL && !(sig == SIGHUP && g_sessionLeader);
    g_stopSender.store(sentWithKill(info) ? info->si_pid : 0);
    g_stopAtNs.store(nowNs());
    g_stopSignal = sig;
    g_stopCount = g_stopCount + 1;
    WakePipe::notify();
}
// The signals whose default would end the profiler, other than the stop signals above and the
// ones it uses (SIGUSR1, onUser1; SIGCHLD; SIGPIPE, ignored); not the synchronous
// ones a fault or a debugger raises (SIGTRAP, SIGSYS, SIGSEGV, ...), which must not be survived.
std::vector<int> otherFatalSignals() {
    std::vector<int> s{SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU,
                       SIGXFSZ};
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) s.push_back(sig);
    return s;
}
// SIGUSR1, SIGUSR2 and SIGALRM sent to the profiler from outside with kill(), for the wait to
// send on to the program's first process unless it had it (SignalBoard.h), by board index:
// when the profiler had it (nowNs()), 0 for none.
std::atomic<int64_t> g_heldSince[kBoardSignalCount];
std::atomic<int64_t> g_heldSender[kBoardSignalCount];  // who sent each (si_pid)
volatile sig_atomic_t g_holdingSignals = 0;  // while the wait for the tree can send them on
void onOtherSignal(int sig, siginfo_t* info, void*) {
    // From the program, it reached the program too (the profiler was killed by it before, and
    // the report lost). Sent to the profiler from outside, it was meant for the program, as
    // without the profiler: sent on to its first process. A signal on the signal board is held
    // for the wait to ask first (sent to the whole group, as Slurm's --signal does, the first
    // process had it, and a trainer's requeue-on-SIGUSR1 handler ran twice); the others at
    // once (real-time signals and sigqueue() queue: one sent on for each). From the kernel (a
    // file size or CPU limit of the profiler's own), it is the profiler's: ignored.
    const int saved = errno;
    const bool userSent = sentWithKill(info);
    const int boardIndex = signalBoardIndex(sig);
    if (sentByTheProgram(info)) {
        noteSignal(g_fromProgram, sig);
    } else if (userSent && g_programRoot > 0 && info->si_code == SI_USER && g_holdingSignals &&
               boardIndex >= kBoardStopSignalCount) {
        g_heldSender[boardIndex].store(info->si_pid);
        g_heldSince[boardIndex].store(nowNs());
        noteSignal(g_sentOn, sig);
    } else if (userSent && g_programRoot > 0) {
        kill(static_cast<pid_t>(g_programRoot), sig);
        noteSignal(g_sentOn, sig);
    } else {
        noteSignal(g_ignored, sig);
    }
    errno = saved;
    WakePipe::notify();
}

// Signals whose default does not end a process: SIGTSTP (Ctrl+Z), SIGWINCH (the terminal's
// size), SIGURG. From the terminal or the program, the program had them, as without the
// profiler; the profiler does not stop for SIGTSTP itself, but when the program does
// (JobControl.h): a program that ignores Ctrl+Z runs on, as a job that is not stopped. Sent to
// the profiler from outside (kill -TSTP <sightline>), they were meant for the program: sent on.
std::vector<int> passedOnSignals() { return {SIGTSTP, SIGWINCH, SIGURG}; }
void onPassedOnSignal(int sig, siginfo_t* info, void*) {
    const int saved = errno;
    const bool userSent = sentWithKill(info);
    if (userSent && g_programRoot > 0 && !sentByTheProgram(info)) {
        kill(static_cast<pid_t>(g_programRoot), sig);
        noteSignal(g_sentOn, sig);
    }
    errno = saved;
    WakePipe::notify();
}
// Continued (fg, bg, kill -CONT) after it stopped with the program, or sent SIGCONT alone: the
// wait continues the program if the SIGCONT did not reach it (continueIfStillStopped).
volatile sig_atomic_t g_continued = 0;
void onContinued(int, siginfo_t* info, void*) {
    if (!sentByTheProgram(info)) g_continued = 1;
    WakePipe::notify();
}
// The signals of faults (SIGSEGV, SIGABRT, SIGSYS, ...). The profiler's own (a fault, abort())
// must end it as before, under the disposition it had (the default's core, a sanitizer's
// report): that disposition is put back and the signal comes again. Sent with kill() from
// outside (`timeout -s ABRT`, a CI job's hang killer asking for a core), they killed the
// profiler, the report lost and the program left running: they were meant for the program,
// and are sent on; the profiler then ends as the program did, with its report. Sent by the
// program to its group, the program had them: the capture goes on.
std::vector<int> faultSignals() {
    return {SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS};
}
struct sigaction g_faultPrevious[65];  // by signal number, filled once the handlers are in
void onFaultSignal(int sig, siginfo_t* info, void*) {
    const int saved = errno;
    const bool sent = sentWithKill(info) &&
                      info->si_pid != getpid();
    if (sent && sentByTheProgram(info)) {
        noteSignal(g_fromProgram, sig);
    } else if (sent && g_programRoot > 0) {
        kill(static_cast<pid_t>(g_programRoot), sig);
        noteSignal(g_sentOn, sig);
    } else {
        sigaction(sig, &g_faultPrevious[sig], nullptr);
        // Blocked in this handler: it comes when the handler returns. A fault (si_code > 0)
        // comes again anyway, from the same instruction.
        if (!info || info->si_code <= 0) raise(sig);
    }
    errno = saved;
    WakePipe::notify();
}

// SIGUSR1: under -c nvtx, from a process of the program, a module saying its capture range
// ended (NvtxInjection.cpp). Otherwise it is a signal like SIGUSR2 (onOtherSignal): sent on
// when it comes from outside (`kill -USR1 <sightline>`: dd prints its progress, a Python
// handler runs); before, it was swallowed in every capture.
volatile sig_atomic_t g_rangeSignals = 0;
void onUser1(int sig, siginfo_t* info, void* context) {
    if (g_rangeSignals && sentByTheProgram(info)) {
        g_rangeEnded = 1;
        WakePipe::notify();
        return;
    }
    onOtherSignal(sig, info, context);
}
void onChildEnded(int) {
    WakePipe::notify();
}

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

// Reads the program's stdout/stderr pipes (--show-output): echoes and keeps them.
class OutputReader {
public:
    void start(int outFd, int errFd, bool echo) {
        m_echo = echo;
        m_fds[0] = outFd;
        m_fds[1] = errFd;
        m_thread = std::thread([this] { run(); });
    }
    void stop() {
        m_stop.store(true);
        if (m_thread.joinable()) m_thread.join();
    }
    std::vector<ProgramOutput> take() { return std::move(m_out); }

private:
    void run() {
        pollfd p[2] = {{m_fds[0], POLLIN, 0}, {m_fds[1], POLLIN, 0}};
        int open = 2;
        char buf[65536];
        while (open > 0) {
            int r = poll(p, 2, 50);
            if (r == 0 && m_stop.load()) break;
            if (r < 0 && errno != EINTR) break;
            for (int i = 0; i < 2; ++i) {
                if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP))) continue;
                ssize_t n = read(p[i].fd, buf, sizeof buf);
                if (n <= 0) {
                    close(p[i].fd);
                    p[i].fd = -1;
                    --open;
                    continue;
                }
                if (m_echo) [[maybe_unused]] ssize_t w = write(i == 0 ? 1 : 2, buf, static_cast<size_t>(n));
                ProgramOutput o;
                o.stream = i + 1;
                o.time = nowNs();
                o.text.assign(buf, static_cast<size_t>(n));
                m_out.push_back(std::move(o));
            }
        }
        for (auto& x : p)
            if (x.fd >= 0) close(x.fd);
    }
    int m_fds[2] = {-1, -1};
    bool m_echo = true;  // -w true: the program's output also goes on to ours
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    std::vector<ProgramOutput> m_out;
};

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
[[noreturn]] void execChild(const ChildSetup& c) {
    if (c.stdoutFd >= 0) dup2(c.stdoutFd, 1);
    if (c.stderrFd >= 0) dup2(c.stderrFd, 2);
    // -n false: only what tracing needs and the -e variables (execvp then searches the default
    // path, /bin:/usr/bin, as it does for any program started without PATH).
    if (!c.inheritEnvironment) clearenv();
    for (const auto& [k, v] : c.env) setenv(k.c_str(), v.c_str(), 1);
    setenv(env::kRootPid, std::to_string(getpid()).c_str(), 1);
    std::vector<char*> argv;
    for (const auto& a : *c.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    char byte;
    while (read(c.goFd, &byte, 1) < 0 && errno == EINTR) {
    }
    // After the wait, as before it: a Ctrl+C meanwhile reaches the launcher's handler here.
    for (const auto& [sig, action] : c.restore) sigaction(sig, &action, nullptr);
    restoreTerminalOutputStops();
    if (c.descriptorLimit && c.descriptorLimit->raised())
        setrlimit(RLIMIT_NOFILE, &c.descriptorLimit->previous());
    execvp(argv[0], argv.data());
    int e = errno;
    [[maybe_unused]] ssize_t w = write(c.errFd, &e, sizeof e);
    _exit(127);
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

std::string signalName(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
}
// Reports, once per signal, what the handlers did with the signals they did not act on.
void sayCaughtSignals(const std::function<void(const std::string&)>& say, uint64_t& said) {
    const auto report = [&](std::atomic<uint64_t>& bits, const char* what) {
        const uint64_t fresh = bits.exchange(0) & ~said;
        for (int sig = 1; sig < 64; ++sig) {
            if (!(fresh & (1ULL << sig))) continue;
            said |= 1ULL << sig;
            say("received " + signalName(sig) + what);
        }
    };
    report(g_fromProgram, " from the program (a signal to its process group, which it had too, "
                          "or to its parent, the shell's without the profiler): not sent on; "
                          "the capture goes on until the program ends");
    report(g_sentOn, ": sent on to the program");
    report(g_ignored, " from the kernel: ignored (the profiler's own)");
}
}  // namespace

Launcher::TreeWait Launcher::waitForTree(pid_t child, int64_t startMono,
                                         const std::string& sessionDir, WakePipe& wake,
                                         const SignalBoardReader& board, bool shutdownAtRangeEnd,
                                         const std::function<bool()>& rangesDone,
                                         const std::function<void(const std::string&)>& say) {
    TreeWait w;
    bool stopped = false;
    sig_atomic_t handledStops = 0;  // stop signals acted on (a second one kills)
    uint64_t caughtSignalsSaid = 0;  // sayCaughtSignals's, by number
    int64_t killDeadline = INT64_MAX;
    int64_t firstStopAt = 0;  // when the latest stop signal was acted on
    int64_t lastStopAt = 0;   // when the profiler had it (g_stopAtNs)
    bool stopBySignal = false;  // stopped by a stop signal (not --duration, not a range's end)
    bool durationReached = false;
    // A stop signal, as the program would have had it without the profiler: from the terminal
    // it had it too (unless it left our process group, then it is sent on to each of its
    // processes, as the terminal's would have reached them). Sent to sightline (kill -TERM
    // <sightline>), it was meant for the program's first process: sent on to it, the same
    // signal, and to the processes of the tree still running when that one ends (a shell
    // script's background jobs, which ignore SIGINT but not SIGTERM, would otherwise run on).
    // It went to every process at once before, which pre-empted a supervisor's own orderly
    // stop of its workers (mpirun, a Perl or Python supervisor passing SIGTERM on: each worker
    // had it twice). Never to a process that had it already (sent to the whole group from
    // outside, or passed on by its parent).
    int restSignal = 0;        // sent on to the first process; the rest get it when it ends
    int64_t restSinceNs = 0;   // when the profiler had that one
    int64_t restSender = 0;    // and from whom
    // The processes sent a stop, which have 5 s to end once the first process has; those that
    // had it or were told to stop by it are waited for as the first process is (a worker's
    // save takes what it takes: a review found one SIGKILLed mid-save).
    std::vector<int64_t> stopSentTo;
    bool stragglerDeadline = false;  // a stop sent on: 5 s for the rest once the root ends
    bool deadlineForSent = false;    // the deadline kills stopSentTo (and theirs), not the tree
    const auto passStopOn = [&](int sig, const std::string& what) {
        const pid_t group = getpgid(child);
        if (g_stopFromTerminal && (group == getpgrp() || group < 0)) {
            say("received " + signalName(sig) + " from the terminal, as the program did: " + what);
            return;
        }
        const bool firstOnly = !g_stopFromTerminal && !w.rootDone && g_programRoot > 0;
        w.stoppedFromOutside = true;
        say("received " + signalName(sig) + ": sent on to the program" +
            (firstOnly ? "'s first process (to the processes it leaves running when it ends)" : "") +
            "; " + what);
        const SignalSendOn done =
            sendOnSignal(board, sig, g_stopAtNs.load(), g_stopSender.load(),
                         firstOnly ? std::vector<int64_t>{child} : descendantsOf(getpid()));
        if (done.spared)
            say("the program had " + signalName(sig) + " already (sent to its whole process group): " +
                std::to_string(done.spared) + (done.spared == 1 ? " process was" : " processes were") +
                " not sent a second one");
        restSignal = firstOnly ? sig : 0;
        restSinceNs = g_stopAtNs.load();
        restSender = g_stopSender.load();
        if (!firstOnly) stopSentTo = done.sentTo;
    };
    // The first process ended after a stop sent on to it: its processes still running have it
    // now, unless they had it (its own clean-up passed it on to them).
    // Not when the first process handled the stop and then ended normally (a REPL's
    // KeyboardInterrupt, a script's `trap 'cleanup; exit 0' TERM`): the stop was its own to act
    // on, and what it left running runs on as after a normal end (a review found a REPL's
    // background job killed by the SIGINT it had handled long before).
    const auto passStopOnToTheRest = [&](int rootStatus) {
        if (!restSignal) return;
        const int sig = restSignal;
        restSignal = 0;
        if (WIFEXITED(rootStatus) && handledStop(board, child, sig, restSinceNs)) {
            stragglerDeadline = false;
            return;
        }
        const SignalSendOn done =
            sendOnSignal(board, sig, restSinceNs, restSender, descendantsOf(getpid()), /*toldCounts=*/true);
        stopSentTo = done.sentTo;
        if (!done.sentTo.empty())
            say("the program's first process ended: " + signalName(sig) + " sent on to the " +
                std::to_string(done.sentTo.size()) + (done.sentTo.size() == 1 ? " process" : " processes") +
                " it left running");
    };
    // SIGUSR1, SIGUSR2, SIGALRM from outside (onOtherSignal): to the first process, unless it
    // had it already.
    const auto sendOnHeldSignals = [&] {
        for (int i = kBoardStopSignalCount; i < kBoardSignalCount; ++i) {
            const int64_t since = g_heldSince[i].exchange(0);
            if (since != 0 && g_programRoot > 0)
                sendOnSignal(board, kBoardSignals[i], since, g_heldSender[i].load(),
                             {static_cast<int64_t>(g_programRoot)});
        }
    };
    const int64_t durationEnd =
        m_o.durationNs > 0 ? startMono + m_o.delayNs + m_o.durationNs : INT64_MAX;
    // A live line drawn where the program writes or reads overwrote it: a prompt, a REPL's
    // ">>> ", a full-screen program's screen, a log line. Only where none of the program's
    // standard descriptors is a terminal (its output stored in the report and not echoed, its
    // input elsewhere) is the line ours alone.
    const bool programOnTerminal =
        isatty(0) || (m_o.showOutput ? m_o.echoOutput && (isatty(1) || isatty(2))
                                     : isatty(1) || isatty(2));
    const bool liveProgress = !m_o.quiet && isatty(2) && !programOnTerminal;
    int64_t nextProgress = startMono + 1'000'000'000;
    bool progressShown = false;
    bool treeGone = false;  // -x false: every process has ended, the recording goes on
    LiveEventCounter counter(sessionDir, m_arenaDir);
    g_holdingSignals = 1;
    while (true) {
        int64_t now = nowNs();
        if ((liveProgress || m_progress.enabled()) && now >= nextProgress) {
            // How long, how many processes, how many events so far (whole blocks handed over).
            const uint64_t events = counter.poll();
            const size_t processes = descendantsOf(getpid()).size();
            m_progress.progress((now - startMono) / 1'000'000'000, processes, events);
            // Only as the terminal's foreground job: in the background (after bg, or started
            // with &) it wrote over the user's prompt, and under `stty tostop` stopped the job.
            const bool show = liveProgress && inTerminalForeground();
            if (show)
                std::fprintf(stderr, "\rsightline: capturing: %lld s, %zu processes, %llu events written   ",
                             static_cast<long long>((now - startMono) / 1'000'000'000), processes,
                             static_cast<unsigned long long>(events));
            progressShown = progressShown || show;
            nextProgress = now + 1'000'000'000;
        }
        sayCaughtSignals(say, caughtSignalsSaid);
        sendOnHeldSignals();
        if (g_stopSignal && !stopped) {
            stopped = true;
            stopBySignal = true;
            handledStops = g_stopCount;
            const int sig = g_stopSignal;
            const pid_t session = getsid(child);
            if (g_stopFromTerminal && session >= 0 && session != getsid(0)) {
                // The program left the terminal's session (setsid(1), which under the profiler
                // is no group leader and so does not fork first): the terminal's signal would
                // not reach it without the profiler either, but the job it was meant for, the
                // program's parent, would end by it. The capture ends there, the program runs
                // on (as --kill=none), and the profiler ends by the signal. It was sent on, and
                // killed the program that had left the terminal.
                say("received " + signalName(sig) + " from the terminal, which the program left (a new "
                    "session): ending the capture; the program keeps running");
                w.captureEnd = now;
                w.detached = true;
                w.detachedBySignal = sig;
                break;
            }
            // The capture goes on while the program winds down (its clean-up, a shutdown hook
            // are recorded): the session ends when the tree does, not here.
            passStopOn(sig, "stopping the capture when the program ends (again to kill it, unless "
                            "it handles this one)");
            // No deadline while the program's first process lives: one that saves its work on
            // Ctrl+C or SIGTERM (a training script's checkpoint, a job in its grace period)
            // takes as long as it takes, as without the profiler. What it leaves running that
            // ignores the signal (a script's background job) gets 5 s after it, then SIGKILL, so
            // that the capture ends.
            stragglerDeadline = true;
            if (w.rootDone && !stopSentTo.empty()) {
                killDeadline = now + 5'000'000'000;
                deadlineForSent = true;
            }
            firstStopAt = now;
            lastStopAt = g_stopAtNs.load();
        } else if (stopped && g_stopCount > handledStops && stopBySignal &&
                   programHandledAStop(board, lastStopAt)) {
            // The program handled the last stop signal and runs on (a JVM's thread dump on
            // SIGQUIT, a server's reload on SIGHUP, a REPL's KeyboardInterrupt, "press Ctrl+C
            // again"): this one is its own as well, as without the profiler. It was taken as
            // the user's second Ctrl+C and killed the program, shutdown hooks and all.
            handledStops = g_stopCount;
            passStopOn(g_stopSignal, "the program handled the last one and runs on");
            firstStopAt = now;
            lastStopAt = g_stopAtNs.load();
        } else if (stopped && g_stopCount > handledStops && now - firstStopAt < kSameStopNs) {
            // The same stop, delivered twice: `timeout` signals its child (us), then its process
            // group (us again, and the program). Killing the program for it lost its clean-up.
            // (A program that handles it is sent it again above: the board spares a process
            // that had the group's copy, and two close stops reached a REPL as two.)
            handledStops = g_stopCount;
        } else if (stopped && g_stopCount > handledStops) {
            // A second Ctrl+C: the user does not want to wait for the program to wind down.
            handledStops = g_stopCount;
            say("received a second stop signal: killing the program (SIGKILL)");
            w.killedByUs = true;
            killTree(SIGKILL);
            killDeadline = INT64_MAX;
        }
        if (!stopped && g_rangeEnded && shutdownAtRangeEnd) {
            g_rangeEnded = 0;
            if (rangesDone()) {
                stopped = true;
                say((m_o.captureRange == CaptureRange::Nvtx
                         ? "the NVTX capture range '" + m_o.nvtxRange + "' ended"
                         : std::string("the cudaProfilerStart/Stop capture range ended")) +
                    ": ending the program (" +
                    (m_o.rangeEnd == CaptureRangeEnd::RepeatShutdown ? "repeat-shutdown"
                                                                     : "stop-shutdown") +
                    ")");
                w.killedByUs = true;
                killTree(killSignalOf(m_o) ? killSignalOf(m_o) : SIGTERM);
                killDeadline = now + 5'000'000'000;
                deadlineForSent = false;
            }
        }
        // --duration applies after a stop signal too: the capture goes on while the program
        // winds down or runs on after handling it, and ends at the duration all the same.
        if ((!stopped || stopBySignal) && !durationReached && now >= durationEnd) {
            stopped = true;
            durationReached = true;
            w.captureEnd = now;
            if (treeGone) break;  // -x false: the recording ran on after the tree to here
            if (m_o.kill == KillMode::None) {
                say("duration reached: the program keeps running (--kill=none)");
                w.detached = true;
                break;
            }
            const char* abbrev = sigabbrev_np(killSignalOf(m_o));  // "TERM", "KILL", ...
            say("duration reached: sending " +
                (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(killSignalOf(m_o))));
            w.killedByUs = true;
            killTree(killSignalOf(m_o));
            killDeadline = now + 5'000'000'000;
            deadlineForSent = false;
        }
        if (now >= killDeadline) {
            w.killedByUs = true;
            if (deadlineForSent) {
                // What was sent the stop and ignored it; what had it or was told is waited for.
                std::vector<int64_t> late;
                for (int64_t pid : stopSentTo) {
                    if (!isDescendantOf(pid, getpid())) continue;
                    late.push_back(pid);
                    for (int64_t d : descendantsOf(pid)) late.push_back(d);
                }
                if (!late.empty())
                    say(std::to_string(late.size()) + (late.size() == 1 ? " process" : " processes") +
                        " still running 5 s after the stop was sent on: killed (SIGKILL)");
                for (int64_t pid : late) ::kill(static_cast<pid_t>(pid), SIGKILL);
            } else {
                killTree(SIGKILL);
            }
            killDeadline = INT64_MAX;
            deadlineForSent = false;
        }
        if (g_continued) {
            g_continued = 0;
            if (!w.rootDone) continueIfStillStopped(child);
        }
        int st = 0;
        pid_t r = waitpid(-1, &st, WNOHANG | __WALL | WUNTRACED);
        if (r > 0 && WIFSTOPPED(st)) {
            // The shell sees the profiler: it stops with the program (JobControl.h). Other
            // processes of the tree stopping are theirs: the shell does not see them either. A
            // stop that is over was the group's, ours included (SIGTTIN from the terminal,
            // which the profiler does not catch), and the shell's fg has ended it already.
            // SIGTTOU of the program's own write under tostop went to the group: the profiler,
            // which blocks it for its own lines, stops as it did before (the shell says
            // "Stopped (tty output)" and fg continues both), in the background too.
            if (r == child && isStopped(child) &&
                (inTerminalForeground() || (WSTOPSIG(st) == SIGTTOU && tookGroupOutputStop())))
                stopAsTheProgramDid(WSTOPSIG(st));
            continue;
        }
        if (r > 0) {
            w.exits[r] = {nowNs(), st};
            if (r == child) {
                g_programRoot = 0;  // reaped: its pid may be another process's now
                w.rootStatus = st;
                w.rootDone = true;
                w.rootKilledByUs = w.killedByUs;
                passStopOnToTheRest(st);
                if (stragglerDeadline && killDeadline == INT64_MAX && !stopSentTo.empty()) {
                    killDeadline = nowNs() + 5'000'000'000;
                    deadlineForSent = true;
                }
                // --wait=primary: the program's end is the capture's; re-parented descendants
                // run on untraced.
                if (!m_o.waitAll && !stopped) {
                    w.captureEnd = nowNs();
                    w.detached = !descendantsOf(getpid()).empty();
                    break;
                }
            }
            continue;
        }
        // -x false: the tree has ended but the recording goes on until --duration.
        const bool recordOn = r < 0 && errno == ECHILD && !m_o.stopOnExit && !stopped &&
                              durationEnd != INT64_MAX && !g_stopSignal;
        if (r < 0 && errno == ECHILD && !recordOn) break;
        treeGone = treeGone || recordOn;
        // Asleep until a child ends, a signal comes or the next deadline; the cap only bounds
        // what a lost wake-up could cost.
        int64_t until = now + kLongestWaitNs;
        if (liveProgress || m_progress.enabled()) until = std::min(until, nextProgress);
        if (!durationReached) until = std::min(until, durationEnd);
        until = std::min(until, killDeadline);
        wake.wait(until - nowNs());
    }
    g_holdingSignals = 0;  // from here on sent at once: nothing would send a held one on
    sendOnHeldSignals();  // the capture ended with the program running on (--kill=none, a new session)
    if (progressShown && inTerminalForeground()) std::fprintf(stderr, "\n");
    // The last count, so that a reader of --progress-fd knows the events of a short run too. The
    // tree has ended by now: the processes that ran are those with a stream (module-PID-N), and
    // those the launcher reaped (a program that recorded nothing), and any left running.
    if (m_progress.enabled()) {
        std::set<int64_t> ran;
        for (const auto& path : SessionMerger::listStreams(sessionDir, m_arenaDir))
            if (int64_t pid = SessionMerger::streamPid(path)) ran.insert(pid);
        for (const auto& [pid, exit] : w.exits) ran.insert(pid);
        for (int64_t pid : descendantsOf(getpid())) ran.insert(pid);
        m_progress.progress((nowNs() - startMono) / 1'000'000'000, ran.size(), counter.poll());
    }
    return w;
}

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
        const std::string program = resolveProgram(m_o.command[0]);
        if (const std::string flavor = mpiFlavorOf(program); !flavor.empty() && flavor != m_o.mpiImpl) {
            const std::string name = flavor == "mpich" ? "MPICH" : "Open MPI";
            if (m_o.mpiImplGiven) {
                say("warning: -t mpi --mpi-impl=" + m_o.mpiImpl + ": " + program + " looks like " + name +
                    "'s; if it is, use --mpi-impl=" + flavor + " (the " + m_o.mpiImpl +
                    " module breaks the other implementation's MPI calls)");
            } else {
                say("-t mpi: " + program + " runs " + name + ": tracing it with --mpi-impl=" + flavor);
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

Result<ProfileResult> Launcher::run() {
    blockTerminalOutputStops();  // before anything is said (JobControl.h)
    // Into a pipe or a socket, what is said while the program runs waits for its end: the
    // program may share that pipe (2>&1 | head -c 10), and a reader that ended on our lines
    // would have the program's next write kill it with SIGPIPE (it exited 141 instead of 6).
    // A terminal or a file takes each message at once.
    struct stat errStat {};
    bool holding =
        fstat(2, &errStat) == 0 && (S_ISFIFO(errStat.st_mode) || S_ISSOCK(errStat.st_mode));
    std::vector<std::string> held;
    const std::string prefix = messagePrefix();
    auto say = [this, &holding, &held, &prefix](const std::string& s) {
        if (!m_o.quiet) {
            if (holding)
                held.push_back(s);
            else
                std::fprintf(stderr, "%s%s\n", prefix.c_str(), s.c_str());
        }
        m_progress.message(s);
    };
    // The program ended (or was left running): what waited goes out, and what comes after.
    const auto sayHeld = [&holding, &held, &prefix] {
        holding = false;
        for (const std::string& s : held) std::fprintf(stderr, "%s%s\n", prefix.c_str(), s.c_str());
        held.clear();
    };
    // Every path out of run(): an error's message must not be lost with what was held.
    struct HeldOut {
        const std::function<void()> out;
        ~HeldOut() { out(); }
    } heldOut{sayHeld};
    // A closed stderr (sightline profile ... 2>&1 | head -1) must not end the capture before
    // its report; the program gets the disposition back (its restore list, below).
    SignalHandlers pipeIgnored({SIGPIPE}, SIG_IGN);
    RaisedDescriptorLimit descriptorLimit;
    // Step 1: everything that can fail before the program runs.
    auto planned = preflight(say);
    if (!planned) return makeError(planned.error());
    Plan& plan = *planned;

    // Step 2: the session directory (streams) and the arena directory (thread buffers).
    const std::string tmpDir = sessionParentDirectory();
    std::string sessionTemplate = tmpDir + "/sightline-session-XXXXXX";
    std::vector<char> dirBuf(sessionTemplate.begin(), sessionTemplate.end());
    dirBuf.push_back(0);
    if (!mkdtemp(dirBuf.data()))
        return makeError("cannot create the capture's temporary directory in " + tmpDir + " (" +
                         std::strerror(errno) + "); set TMPDIR to a writable directory");
    TempDir session(dirBuf.data());
    TempDir arenas(makeArenaDir());
    m_arenaDir = arenas.path();
    // Which of the program's processes had a signal already (SignalBoardReader.h).
    const SignalBoardReader signalBoard(m_arenaDir.empty() ? session.path() : m_arenaDir);
    // Tells processes in other PID namespaces their pids as we see them (PidService.h).
    PidService pidService(session.path());

    // Step 3: start the program, stopped on a pipe until the context-switch events are open.
    // Where the tree's orphans would go without us, asked before we take them.
    // As init of a PID namespace (`unshare --pid --fork sightline ...`, a container's entry
    // point) the orphans are ours without the profiler too; the probe's own orphan would have
    // come back to us and been recorded as a process of the program.
    const pid_t reaper = getpid() == 1 ? 1 : orphanReaper();
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    g_stopSignal = 0;
    g_stopFromTerminal = 0;
    g_sessionLeader = getsid(0) == getpid();
    g_stopCount = 0;
    g_stopAtNs = 0;
    g_stopSender = 0;
    g_fromProgram = 0;
    g_sentOn = 0;
    g_ignored = 0;
    for (auto& since : g_heldSince) since = 0;
    for (auto& sender : g_heldSender) sender = 0;
    g_rangeEnded = 0;
    WakePipe wake;  // before the handlers that write to it
    SignalHandlers stops({SIGINT, SIGTERM, SIGHUP, SIGQUIT}, onStopSignal,
                         SignalHandlers::KeepIgnored::Yes);
    g_rangeSignals = m_o.captureRange != CaptureRange::None;
    SignalHandlers rangeEnd({SIGUSR1}, onUser1,
                            g_rangeSignals ? SignalHandlers::KeepIgnored::No
                                           : SignalHandlers::KeepIgnored::Yes);
    g_programRoot = 0;
    SignalHandlers others(otherFatalSignals(), onOtherSignal, SignalHandlers::KeepIgnored::Yes);
    SignalHandlers passedOn(passedOnSignals(), onPassedOnSignal, SignalHandlers::KeepIgnored::Yes);
    g_continued = 0;
    SignalHandlers continued({SIGCONT}, onContinued, SignalHandlers::KeepIgnored::Yes);
    SignalHandlers faults(faultSignals(), onFaultSignal, SignalHandlers::KeepIgnored::Yes);
    for (const auto& [sig, action] : faults.previous()) g_faultPrevious[sig] = action;
    // SA_RESTART: the launcher's other threads' reads and writes go on; their polls and timed
    // waits may return early (EINTR), which each of them handles. The wait wakes when a child
    // stops too (no SA_NOCLDSTOP): the program stopping is the profiler's cue to stop.
    SignalHandlers childEnded({SIGCHLD}, onChildEnded, SA_RESTART);
    const bool shutdownAtRangeEnd =
        m_o.captureRange != CaptureRange::None && (m_o.rangeEnd == CaptureRangeEnd::StopShutdown ||
                                                   m_o.rangeEnd == CaptureRangeEnd::RepeatShutdown);
    Pipe go, err, outPipe, errPipe;
    if (!go.open() || !err.open() ||
        (m_o.showOutput && (!outPipe.open() || !errPipe.open())))
        return makeError(std::string("cannot create a pipe: ") + std::strerror(errno));
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

    // The program's environment: ours, then the user's -e variables.
    ChildSetup setup;
    setup.env = {{"LD_PRELOAD", preload},
                 {env::kSessionDir, session.path()},
                 {env::kTrace, trace},
                 {env::kOsrtThresholdNs, std::to_string(m_o.osrtThresholdNs)},
                 {env::kTraceForkBeforeExec, m_o.traceForkBeforeExec ? "1" : "0"},
                 {env::kLauncherPid, std::to_string(getpid())}};
    if (reaper > 0) setup.env.emplace_back(env::kOrphanReaper, std::to_string(reaper));
    if (!arenas.path().empty()) setup.env.emplace_back(env::kArenaDir, arenas.path());
    if (pidService.running()) setup.env.emplace_back(env::kProcDevice, pidService.procDevice());
    if (m_o.traceCuda && m_o.cudaBacktrace.any())
        setup.env.emplace_back(cuda::kCudaBacktraceEnv, m_o.cudaBacktrace.toEnvironment());
    if (m_o.traceOsrt && m_o.osrtBacktraceThresholdNs >= 0)
        setup.env.emplace_back(env::kOsrtBacktrace, std::to_string(m_o.osrtBacktraceThresholdNs) +
                                                        ":" + std::to_string(m_o.osrtBacktraceDepth));
    if (m_o.traceNvtx) setup.env.emplace_back("NVTX_INJECTION64_PATH", plan.injectLib);
    if (plan.cudaAvailable) setup.env.emplace_back("CUDA_INJECTION64_PATH", plan.cuptiLib);
    if (!plan.omptLib.empty()) {
        // Ours first: an OpenMP runtime starts the first tool of the list that accepts.
        std::string tools = plan.omptLib;
        if (const char* old = std::getenv("OMP_TOOL_LIBRARIES"); old && *old && m_o.inheritEnvironment)
            tools += ":" + std::string(old);
        setup.env.emplace_back("OMP_TOOL_LIBRARIES", tools);
        setup.env.emplace_back("OMP_TOOL", "enabled");
    }
    // --capture-range: the session-wide switch, off until the range begins (GateState.h): the
    // NVTX module opens it at the named range, the CUDA module at cudaProfilerStart. Everything
    // (OS runtime calls, NVTX, CPU samples, CUDA) is recorded only inside, as in nsys; before,
    // -c cudaProfilerApi held back CUDA alone and a program that never called
    // cudaProfilerStart got a report of its whole run.
    GateFile gate;
    if (m_o.captureRange != CaptureRange::None) {
        uint32_t maxWindows = repeats(m_o.rangeEnd) ? static_cast<uint32_t>(m_o.repeatCount) : 1u;
        if (std::string e = gate.create(session.path(), maxWindows, shutdownAtRangeEnd);
            !e.empty())
            return makeError("--capture-range: " + e);
    }
    if (m_o.captureRange == CaptureRange::Nvtx) {
        setup.env.emplace_back(env::kCaptureRange, m_o.nvtxRange);
        setup.env.emplace_back(env::kCaptureDomain, m_o.nvtxDomain);
    }
#if SIGHTLINE_HAVE_CUDA_REPORT
    cuda::CudaCaptureSession cudaSession(m_o.cuda, m_o.gpuMetrics, plan.cudaAvailable);
    for (const auto& kv : cudaSession.environment()) setup.env.push_back(kv);
#endif
    const bool pythonHook = m_o.usesPythonHook();
    if (pythonHook)
        if (Status st = addPythonHook(plan, session.path(), setup.env); !st)
            return makeError(st.error());
    for (const auto& kv : m_o.env)
        if (!pythonHook || kv.first != "PYTHONPATH") setup.env.push_back(kv);
    setup.command = &m_o.command;
    setup.inheritEnvironment = m_o.inheritEnvironment;
    setup.descriptorLimit = &descriptorLimit;
    setup.goFd = go.read.get();
    setup.errFd = err.write.get();
    setup.stdoutFd = outPipe.write.get();
    setup.stderrFd = errPipe.write.get();
    setup.restore = stops.previous();
    for (const auto& r : rangeEnd.previous()) setup.restore.push_back(r);
    for (const SignalHandlers* h : {&others, &passedOn, &continued, &faults})
        for (const auto& r : h->previous()) setup.restore.push_back(r);
    for (const auto& r : childEnded.previous()) setup.restore.push_back(r);
    for (const auto& r : pipeIgnored.previous()) setup.restore.push_back(r);

    int64_t startMono = nowNs();
    int64_t startUtc = utcNowNs();
    const std::string workingDirectory = startDirectory();
    ProgramTree program;
    pid_t child = fork();
    if (child < 0) return makeError(std::string("fork failed: ") + std::strerror(errno));
    if (child == 0) {
        go.write.reset();
        execChild(setup);
    }
    program.started(child);
    g_programRoot = child;
    go.read.reset();
    err.write.reset();
    outPipe.write.reset();
    errPipe.write.reset();

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

    SchedTracer sched;  // declared first: the sampler hands it records until its stop()
    CpuSampler cpuSampler;  // opened before the exec: the program's own mappings are recorded
    // With both on, the sampling events carry the context switches too (one inherited event
    // per CPU in each task, not two); the tracer opens its own events only without sampling.
    std::string samplingProblem =
        m_o.cpuSampling ? cpuSampler.start(child, m_o.samplingFrequency,
                                           !m_o.backtraces        ? CpuSampler::Backtrace::None
                                           : m_o.dwarfBacktraces ? CpuSampler::Backtrace::Dwarf
                                                                 : CpuSampler::Backtrace::FramePointers,
                                           m_o.contextSwitches ? &sched : nullptr)
                        : "";
    std::string schedProblem = m_o.contextSwitches && (!m_o.cpuSampling || !samplingProblem.empty())
                                   ? sched.start(child)
                                   : std::string();
    [[maybe_unused]] ssize_t w = write(go.write.get(), "g", 1);
    go.write.reset();
    int execErr = 0;
    if (read(err.read.get(), &execErr, sizeof execErr) == static_cast<ssize_t>(sizeof execErr)) {
        int st;
        waitpid(child, &st, 0);
        program.done();
        cpuSampler.stop();  // first: it may hand records to sched
        sched.stop();
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
    err.read.reset();
    if (!schedProblem.empty()) say(schedProblem);
    if (!samplingProblem.empty()) say(samplingProblem);


    {
        AssemblyInput early;  // what a later `sightline import` needs should we not get to the end
        early.options = &m_o;
        early.sessionDir = session.path();
        early.startMono = startMono;
        early.startUtc = startUtc;
        early.rootPid = child;
        early.launcherPid = getpid();
        early.orphanReaper = reaper > 0 ? reaper : 0;
        early.workingDirectory = workingDirectory;
        writeSessionFacts(early, arenas.path());
    }
    m_progress.started(child, m_o.command);
    say("capture running: pid " + std::to_string(child) + " (" + joinArgs(m_o.command) + ")" +
        (m_o.traceCuda && !plan.cudaAvailable ? "; CUDA trace unavailable in this build" : ""));
    ProcSampler sampler(child, m_o.cpuMetricsFrequency);
    if (m_o.cpuMetrics) sampler.start();
#if SIGHTLINE_HAVE_CUDA_REPORT
    cudaSession.start(say);
#endif
    OutputReader output_reader;
    if (m_o.showOutput) output_reader.start(outPipe.read.release(), errPipe.read.release(),
                                            m_o.echoOutput);

    // Step 5: wait for the whole tree (ECHILD), handling the duration and Ctrl+C.
    // repeat-shutdown:N ends the program when the N-th range has ended, stop-shutdown at the first.
    auto rangesDone = [&] {
        if (m_o.rangeEnd != CaptureRangeEnd::RepeatShutdown) return true;
        uint64_t opened = 0;
        size_t closed = 0;
        for (const auto& gw : gate.windows(&opened)) closed += gw.end != 0;
        return closed >= static_cast<size_t>(m_o.repeatCount);
    };
    TreeWait tw =
        waitForTree(child, startMono, session.path(), wake, signalBoard, shutdownAtRangeEnd, rangesDone, say);
    sayHeld();
    program.done();
    const int64_t sessionEnd = std::min(nowNs(), tw.captureEnd);
    sampler.stop();
    cpuSampler.stopRecording();  // first: it may hand records to sched
    sched.stop();
    const bool sampled = m_o.cpuSampling && samplingProblem.empty();
#if SIGHTLINE_HAVE_CUDA_REPORT
    cudaSession.stop();
#endif
    output_reader.stop();

    // Steps 6 to 8, in a process the job's killer does not reach when the stop came from
    // outside (DetachedFinish.h: mpirun's SIGKILL of every rank's group once the first ended).
    const pid_t launcherPid = getpid();  // the tree's parent, whichever process makes the report
    const auto finish = [&]() -> Result<ProfileResult> {
        if (sampled) cpuSampler.resolveInBackground();  // beside the merge of the streams

        // Step 6: what died without its final flush is taken from its buffer arena. What still
        // runs (--kill=none, --wait=primary) has its arena read, not changed (a snapshot of its
        // stream). An arena that could not be read back (a full disk) is kept, with the session, for
        // a later import.
        SalvageSummary salvage = salvageArenas(session.path(), arenas.path(), tw.detached);
        for (const auto& problem : salvage.problems) say("warning: " + problem);
        const bool keepRaw = !salvage.problems.empty();
        if (keepRaw) {
            arenas.keep();
            session.keep();
        }

        // Step 7: merge into the report(s).
        AssemblyInput in;
        in.options = &m_o;
        in.sessionDir = session.path();
        in.arenaDir = arenas.path();
        in.startMono = startMono;
        in.startUtc = startUtc;
        in.sessionEnd = sessionEnd;
        in.rootPid = child;
        in.launcherPid = launcherPid;
        if (getpid() != launcherPid) in.writerPid = getpid();
        in.orphanReaper = reaper > 0 ? reaper : 0;
        in.workingDirectory = workingDirectory;
        in.exits = std::move(tw.exits);
        in.sampler = m_o.cpuMetrics ? &sampler : nullptr;
#if SIGHTLINE_HAVE_CUDA_REPORT
        in.cuda = &cudaSession;
#endif
        in.sched = schedProblem.empty() && m_o.contextSwitches ? &sched : nullptr;
        in.schedProblem = schedProblem;
        in.cpuSampler = sampled ? &cpuSampler : nullptr;
        in.samplingProblem = samplingProblem;
        in.cudaRequestedButUnavailable = m_o.traceCuda && !plan.cudaAvailable;
        in.output = output_reader.take();
        in.outputPath = plan.output;
        in.defaultName = plan.defaultName;
        in.detached = tw.detached;
        if (tw.detachedBySignal)
            in.detachedBecause = std::string("the terminal's SIG") +
                                 (sigabbrev_np(tw.detachedBySignal) ? sigabbrev_np(tw.detachedBySignal)
                                                                    : "?") +
                                 " ended the capture of a program that had left its session";
        in.writeLosses = std::move(salvage.writeLosses);
        if (gate.valid()) {
            in.gateUsed = true;
            for (const auto& gw : gate.windows(&in.gateWindowsOpened))
                in.gateWindows.push_back({gw.start, gw.end});
        }
        // The launcher's own facts go into the session directory first: should the report not be
        // written (or sightline be killed while merging), `sightline import DIR` makes it later (the
        // arenas' directory holds the streams processes wrote at their end, so it is named too).
        writeSessionFacts(in, arenas.path());
        auto written = assembleReports(in, say);
        if (sampled) say(cpuSampler.resolved().summary());
        if (!written && in.gateUsed && in.gateWindowsOpened == 0)
            // The capture range never began: the modules recorded only who ran (nothing is written
            // outside a window), so there is nothing to keep for a later import.
            return makeError(written.error());
        if (!written) {
            // Never delete what was captured.
            session.keep();
            arenas.keep();
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
                                 session.path() + " -o REPORT.rep");
            return makeError(written.error() + "\nsightline: the raw capture is kept in " +
                             session.path() + "; make the report from it with: sightline import " +
                             session.path() + " -o REPORT.rep");
        }
        if (keepRaw) {
            // What import can add is what the arenas still hold; what a process could not write
            // (in.writeLosses, the report's capture.write_failed) is gone either way.
            say("warning: some buffers could not be added to the capture; the raw capture is kept in " +
                session.path() + " (buffers in " + arenas.path() + "): when there is room again, "
                "sightline import " + session.path() + " -o REPORT.rep makes the report with them" +
                (in.writeLosses.empty() ? std::string()
                                        : " (not with what processes could not write: see "
                                          "capture.write_failed in the report, lost)"));
        } else {
            // With --kill=none the program may still write: unlinked files are harmless.
            session.remove();
            arenas.remove();
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
    };
    if (!tw.stoppedFromOutside) return finish();
    cpuSampler.quiesce();  // the child has this thread only
    auto r = finishOutOfReach(
        finish,
        [&] {
            session.keep();
            arenas.keep();
        },
        [&] {
            session.remove();
            arenas.remove();
        });
    if (!r && !fs::exists(session.path() + "/" + kSessionFactsFile)) return r;
    if (!r && r.error().find(session.path()) == std::string::npos)
        return makeError(r.error() + "\nsightline: the raw capture is kept in " + session.path() +
                         "; make the report from it with: sightline import " + session.path() +
                         " -o REPORT.rep");
    return r;
}

}  // namespace sl::capture
