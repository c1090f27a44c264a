// `sightline profile [options] <program> [args...]`: the nsys-compatible capture front end.
// Maps the parsed command line (model/options: names, values, ranges, defaults) onto
// capture::ProfileOptions, runs the launcher, then what nsys does after a capture (--export,
// --stats); exits with the program's exit code.
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/cli/Command.h"
#include "app/cli/CommandLine.h"
#include "app/cli/ExportName.h"
#include "app/cli/RemoteCommand.h"
#include "capture/launcher/EnvironmentChecks.h"
#include "capture/launcher/Launcher.h"
#include "model/options/OptionDocs.h"

namespace sl::cli {
namespace {

using options::ParsedArgs;

// -o with --output-dir (a Sightline extension for scripts that keep reports in one folder).
std::string outputPattern(const ParsedArgs& a) {
    const std::string dir = a.value("output-dir");
    std::string out = a.given("output") ? a.value("output") : std::string();
    if (dir.empty()) return out;
    if (out.empty()) out = "report%n";
    if (out.front() == '/') return out;
    return (std::filesystem::path(dir) / out).string();
}

Status toOptions(const ParsedArgs& a, capture::ProfileOptions& o) {
    using namespace capture;
    o.command = a.positionals;
    o.output = outputPattern(a);
    o.optionsText = a.optionsText;
    o.forceOverwrite = a.isTrue("force-overwrite");
    if (Status s = parseTraceList(a.value("trace"), o); !s) return s;
    o.cudaNamed = o.traceCuda && a.given("trace");
    o.osrtThresholdNs = std::stoll(a.value("osrt-threshold"));
    if (a.given("osrt-backtrace-threshold"))
        o.osrtBacktraceThresholdNs = std::stoll(a.value("osrt-backtrace-threshold"));
    o.osrtBacktraceDepth = std::stoi(a.value("osrt-backtrace-depth"));
    {
        auto cudaBacktrace = cuda::parseCudaBacktrace(
            a.value("cudabacktrace"), std::stoll(a.value("cudabacktrace-threshold")),
            static_cast<uint32_t>(o.osrtBacktraceDepth));
        if (!cudaBacktrace) return makeError(cudaBacktrace.error());
        o.cudaBacktrace = *cudaBacktrace;
    }
    o.mpiImpl = a.value("mpi-impl");
    o.mpiImplGiven = a.given("mpi-impl");
    auto delay = parseSeconds(a.value("delay"), "--delay");
    if (!delay) return makeError(delay.error());
    o.delayNs = *delay;
    auto duration = parseSeconds(a.value("duration"), "--duration");
    if (!duration) return makeError(duration.error());
    o.durationNs = *duration;
    if (Status s = parseKill(a.value("kill"), o); !s) return s;
    o.stopOnExit = a.isTrue("stop-on-exit");
    if (!o.stopOnExit && o.durationNs == 0)
        return makeError("--stop-on-exit=false needs --duration (how long to record after the "
                         "program ends)");
    o.waitAll = a.value("wait") == "all";
    const std::string range = a.value("capture-range");
    if (Status s = parseCaptureRange(range == "hotkey" ? "none" : range, o); !s) return s;
    if (o.captureRange == CaptureRange::Nvtx) {
        const std::string p = a.value("nvtx-capture");
        if (p.empty() || p == "none")
            return makeError("--capture-range=nvtx needs -p/--nvtx-capture RANGE[@DOMAIN]");
        if (Status s = parseNvtxCapture(p, o); !s) return s;
        if (!o.traceNvtx) return makeError("--capture-range=nvtx needs NVTX tracing (-t ...,nvtx)");
    }
    std::string rangeEnd = a.value("capture-range-end");
    // The old switch, where scripts still have it: true ended the program with the range.
    if (!a.given("capture-range-end") && a.given("stop-on-range-end"))
        rangeEnd = a.isTrue("stop-on-range-end") ? "stop-shutdown" : "stop";
    if (Status s = parseCaptureRangeEnd(rangeEnd == "none" ? "stop" : rangeEnd, o); !s) return s;
    for (const auto& e : a.values("env-var"))
        if (Status s = parseEnvVar(e, o); !s) return s;
    o.inheritEnvironment = a.isTrue("inherit-environment");
    o.traceForkBeforeExec = a.isTrue("trace-fork-before-exec");
    if (Status s = parseSample(a.value("sample"), o); !s) return s;
    if (Status s = parseSamplingFrequency(a.value("sampling-frequency"), o); !s) return s;
    if (Status s = parseBacktrace(a.value("backtrace"), o); !s) return s;
    o.cpuMetrics = a.isTrue("cpu-metrics");
    o.cpuMetricsFrequency = std::stoi(a.value("cpu-metrics-frequency"));
    o.contextSwitches = a.value("cpuctxsw") != "none";
    // -w true (nsys's default): the program keeps our terminal, so it behaves as without us.
    // -w false: its output goes only into the report.
    o.showOutput = !a.isTrue("show-output");
    o.echoOutput = a.isTrue("show-output");
    o.quiet = a.isTrue("quiet");
    if (a.given("progress-fd")) o.progressFd = std::stoi(a.value("progress-fd"));
    if (const std::string file = a.value("python-functions-trace"); !file.empty()) {
        auto functions = capture::readPythonFunctionsConfig(file);
        if (!functions) return makeError(functions.error());
        o.pythonFunctions = std::move(*functions);
    }
    if (a.isTrue("python-sampling")) o.pythonSamplingHz = std::stoi(a.value("python-sampling-frequency"));
    // --python-backtrace=KIND[,KIND]: cuda, osrt and nvtx ("none" and "false" left out).
    const std::string backtraceKinds = a.value("python-backtrace");
    for (std::string_view rest = backtraceKinds; !rest.empty();) {
        const size_t comma = rest.find(',');
        const std::string_view kind = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (kind == "cuda" || kind == "osrt" || kind == "nvtx")
            o.pythonBacktrace += (o.pythonBacktrace.empty() ? "" : ",") + std::string(kind);
    }
    // --pytorch=MODE[,MODE]: the modes as the hook reads them, "none" left out.
    const std::string pytorchModes = a.value("pytorch");
    for (std::string_view rest = pytorchModes; !rest.empty();) {
        const size_t comma = rest.find(',');
        const std::string_view mode = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (mode.empty() || mode == "none") continue;
        o.pytorch += (o.pytorch.empty() ? "" : ",") + std::string(mode);
    }
#if SIGHTLINE_HAVE_CUDA_REPORT
    {
        auto graph = cuda::parseGraphTrace(a.value("cuda-graph-trace"));
        if (!graph) return makeError(graph.error());
        o.cuda.graphTrace = *graph;
        o.cuda.memoryUsage = a.isTrue("cuda-memory-usage");
        o.cuda.allApis = a.isTrue("cuda-trace-all-apis");
        o.cuda.eventTrace = a.value("cuda-event-trace") == "true";  // auto: as false
        auto flush = cuda::parseFlushInterval(a.value("cuda-flush-interval"));
        if (!flush) return makeError(flush.error());
        o.cuda.flushIntervalMs = *flush;
        std::string devices = a.value("gpu-metrics-devices");
        if (devices == "cuda-visible") devices = "all";  // NVML sees the GPUs the program may use
        auto parsed = cuda::parseGpuMetricsDevices(devices);
        if (!parsed) return makeError(parsed.error());
        o.gpuMetrics = *parsed;
        auto hz = cuda::parseGpuMetricsFrequency(a.value("gpu-metrics-frequency"));
        if (!hz) return makeError(hz.error());
        o.gpuMetrics.frequencyHz = std::min(*hz, cuda::kMaxGpuMetricsHz);
        if (*hz > cuda::kMaxGpuMetricsHz && !a.isTrue("quiet") && o.gpuMetrics.enabled())
            std::fprintf(stderr, "sightline: note: --gpu-metrics-frequency=%g: NVML is sampled %g times a second at most\n",
                         *hz, cuda::kMaxGpuMetricsHz);
        if (o.captureRange == CaptureRange::CudaProfilerApi && !o.traceCuda)
            return makeError("--capture-range=cudaProfilerApi needs CUDA tracing (-t ...,cuda)");
    }
#endif
    return {};
}

// --export: each type next to each report, as `sightline export` writes it.
// The --export types written after the capture (none: "none" or not given).
std::vector<std::string> exportTypes(const ParsedArgs& a) {
    std::vector<std::string> types;
    for (const auto& v : a.values("export"))
        for (const auto& t : options::splitCommaList(v))
            if (t == "sqlite" || t == "json" || t == "text") types.push_back(t);
    return types;
}

// --export's files must be new (or -f), as the report must: a program that ran for an hour
// must not end in "already exists". Checked before it starts wherever the report's name is known
// then (not with %p, nor a default name, nor numbered reports of repeated ranges).
Status checkExportsAreNew(const ParsedArgs& a, const capture::ProfileOptions& o) {
    if (o.forceOverwrite || o.output.empty() || capture::patternUsesPid(o.output) ||
        capture::repeats(o.rangeEnd))
        return {};
    auto report = capture::expandOutputPattern(o.output, 0);
    if (!report) return {};  // the launcher says what is wrong with it
    for (const auto& type : exportTypes(a)) {
        const std::string path = exportFileName(*report, type);
        std::error_code ec;
        if (std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
            return makeError("--export " + type + ": " + path +
                             " already exists (use -f/--force-overwrite to replace it)");
    }
    return {};
}

int writeExports(const std::vector<std::string>& reports, const ParsedArgs& a) {
    const std::vector<std::string> types = exportTypes(a);
    int failures = 0;
    for (const auto& report : reports)
        for (const auto& type : types) {
            std::vector<std::string> args = {"export", "--type", type, "--force-overwrite",
                                             a.isTrue("force-overwrite") ? "true" : "false"};
            if (a.isTrue("quiet")) args.push_back("--quiet=true");
            args.push_back(report);
            failures += runCommand(args) != 0;
        }
    return failures;
}

int printStats(const std::vector<std::string>& reports) {
    int failures = 0;
    for (const auto& report : reports) failures += runCommand({"stats", report}) != 0;
    return failures;
}

// What the environment will cost this capture, said before it starts (one line each). CUDA is
// left to the CUDA module, which says so when a program uses CUDA: a CPU-only program on a
// machine without a driver loses nothing.
void warnAboutEnvironment(const capture::ProfileOptions& o) {
    // The report's directory and TMPDIR are checked by the launcher, which refuses what cannot
    // work and warns about the rest (capture/launcher/PreflightChecks.h): said once.
    capture::EnvironmentProbe probe;
    capture::CaptureRequest want{o.cpuSampling, o.contextSwitches, o.cpuSampling,
                                 false, false};
#if SIGHTLINE_HAVE_CUDA_REPORT
    want.gpuMetrics = o.gpuMetrics.all || !o.gpuMetrics.devices.empty();
#endif
    probe.probeNvidia = want.gpuMetrics;
    // The first per-task perf event since none was open makes the kernel wait for an RCU grace
    // period (5-20 ms here): a capture that opens none must not pay it for a probe.
    probe.probePerfEvents = want.cpuSampling || want.contextSwitches;
    for (const auto& line : capture::captureWarnings(capture::checkEnvironment(probe), want)) {
        if (!o.quiet) std::fprintf(stderr, "sightline: warning: %s\n", line.c_str());
        if (o.progressFd >= 0) capture::ProgressChannel(o.progressFd).warning(line);
    }
}

// Ends this process by `sig` (its default action), so that the shell sees what it would have
// seen of the program: "Segmentation fault", a script's loop stopped by SIGINT, $? = 128 + sig.
// No core file of ours: the program dumped its own where the system keeps them. Returns only
// when the signal's default action does not end a process.
void dieBySignal(int sig) {
    std::fflush(nullptr);
    rlimit none{0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    raise(sig);
}

// --remote: the capture runs there (app/remote); --export and --stats run here on the copies.
int profileOnRemote(const ParsedArgs& args) {
    const int progressFd = args.given("progress-fd") ? std::stoi(args.value("progress-fd")) : -1;
    auto r = profileRemotely(args);
    if (!r) {
        if (progressFd >= 0) capture::ProgressChannel(progressFd).error(r.error());
        return fail(r.error());
    }
    int failures = writeExports(r->reports, args);
    if (args.isTrue("stats")) failures += printStats(r->reports);
    if (failures)
        std::fprintf(stderr, "sightline: %d export or stats step(s) failed; the report is kept\n",
                     failures);
    if (progressFd >= 0) capture::ProgressChannel(progressFd).finished(r->exitCode);
    return r->exitCode;
}

int runProfile(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("profile", argc, argv, &exitCode);
    if (!args) return exitCode;
    if (args->given("list-options")) {
        const std::string format = args->value("format");
        const auto f = buildFeatures();
        if (format == "json")
            std::printf("%s", options::optionsJson("profile", f).c_str());
        else if (format == "markdown")
            std::printf("%s", options::markdownTable("profile", f).c_str());
        else
            std::printf("%s", options::helpText("profile", f).c_str());
        return 0;
    }
    if (args->positionals.empty()) return usageError("profile", "no program given");
    if (args->given("remote")) return profileOnRemote(*args);
    capture::ProfileOptions o;
    if (Status s = toOptions(*args, o); !s) return usageError("profile", s.error());
    if (const std::string dir = args->value("output-dir"); !dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) return fail("--output-dir: cannot create " + dir + ": " + ec.message());
    }
    if (Status s = checkExportsAreNew(*args, o); !s) return fail(s.error());
    warnAboutEnvironment(o);
    const int progressFd = o.progressFd;
    capture::Launcher launcher(std::move(o));
    auto r = launcher.run();
    // What is said after the capture (exports, --stats, their messages) must not turn the
    // program's exit code into a SIGPIPE of ours: a closed output only loses the text.
    signal(SIGPIPE, SIG_IGN);
    if (!r) {
        if (progressFd >= 0) capture::ProgressChannel(progressFd).error(r.error());
        const int failed = fail(r.error());
        return launcher.startFailureExitCode() ? launcher.startFailureExitCode() : failed;
    }
    int failures = writeExports(r->reports, *args);
    if (args->isTrue("stats")) failures += printStats(r->reports);
    if (failures)
        std::fprintf(stderr, "sightline: %d export or stats step(s) failed; the report is kept\n",
                     failures);
    if (progressFd >= 0) capture::ProgressChannel(progressFd).finished(r->exitCode);
    // The program's end, as without the profiler: its exit code, or its death by a signal.
    if (r->signal) dieBySignal(r->signal);
    return r->exitCode;
}

const Registrar kProfile({"profile",
                          "run a program and record a report (CUDA, NVTX, OS runtime, processes, CPU)",
                          runProfile, false, 10});

}  // namespace
}  // namespace sl::cli
