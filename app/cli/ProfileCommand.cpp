// `sightline profile [options] <program> [args...]`: the nsys-compatible capture front end.
// Maps the command line onto capture::ProfileOptions and runs the launcher; exits with the
// program's exit code.
#include <cstdio>
#include <cstdlib>

#include "app/cli/ArgParser.h"
#include "app/cli/Command.h"
#include "capture/launcher/Launcher.h"

namespace sl::cli {
namespace {

struct RawOptions {
    std::string output, force = "false", trace = "cuda,nvtx,osrt", osrtThreshold = "1000",
                        delay = "0", duration = "0", kill = "sigterm", captureRange = "none",
                        nvtxCapture, rangeEnd = "stop", forkBeforeExec = "false",
                        sample = "process-tree", samplingFrequency = "1000",
                        backtrace = "fp", cpuMetrics = "on", cpuMetricsFrequency = "100",
                        cpuctxsw = "process-tree", showOutput = "false", quiet, cudaGraph = "graph",
                        cudaMemory = "false", cudaFlush = "0", gpuDevices = "none",
                        gpuFrequency = "10";
    std::vector<std::string> env, program;
};

Status toOptions(const RawOptions& raw, capture::ProfileOptions& o, const std::string& given) {
    using namespace capture;
    o.command = raw.program;
    o.output = raw.output;
    o.optionsText = given;
    if (!parseBool(raw.force, &o.forceOverwrite))
        return makeError("--force-overwrite: expected true or false");
    if (Status s = parseTraceList(raw.trace, o); !s) return s;
    char* end = nullptr;
    long long th = std::strtoll(raw.osrtThreshold.c_str(), &end, 10);
    if (raw.osrtThreshold.empty() || *end || th < 0)
        return makeError("--osrt-threshold: expected nanoseconds, got '" + raw.osrtThreshold + "'");
    o.osrtThresholdNs = th;
    auto delay = parseSeconds(raw.delay, "--delay");
    if (!delay) return makeError(delay.error());
    o.delayNs = *delay;
    auto duration = parseSeconds(raw.duration, "--duration");
    if (!duration) return makeError(duration.error());
    o.durationNs = *duration;
    auto kill = parseKillMode(raw.kill);
    if (!kill) return makeError(kill.error());
    o.kill = *kill;
    if (Status s = parseCaptureRange(raw.captureRange, o); !s) return s;
    if (o.captureRange == CaptureRange::Nvtx) {
        if (raw.nvtxCapture.empty())
            return makeError("--capture-range=nvtx needs -p/--nvtx-capture RANGE[@DOMAIN]");
        if (Status s = parseNvtxCapture(raw.nvtxCapture, o); !s) return s;
        if (!o.traceNvtx) return makeError("--capture-range=nvtx needs NVTX tracing (-t ...,nvtx)");
    }
    if (Status s = parseCaptureRangeEnd(raw.rangeEnd, o); !s) return s;
    for (const auto& e : raw.env)
        if (Status s = parseEnvVar(e, o); !s) return s;
    if (!parseBool(raw.forkBeforeExec, &o.traceForkBeforeExec))
        return makeError("--trace-fork-before-exec: expected true or false");
    if (Status s = parseSample(raw.sample, o); !s) return s;
    if (Status s = parseSamplingFrequency(raw.samplingFrequency, o); !s) return s;
    if (Status s = parseBacktrace(raw.backtrace, o); !s) return s;
    if (!parseBool(raw.cpuMetrics, &o.cpuMetrics))
        return makeError("--cpu-metrics: expected on or off");
    long mf = std::strtol(raw.cpuMetricsFrequency.c_str(), &end, 10);
    if (*end || mf < 1 || mf > 1000)
        return makeError("--cpu-metrics-frequency: expected 1 to 1000 Hz, got '" +
                         raw.cpuMetricsFrequency + "'");
    o.cpuMetricsFrequency = static_cast<int>(mf);
    if (raw.cpuctxsw == "process-tree")
        o.contextSwitches = true;
    else if (raw.cpuctxsw == "none")
        o.contextSwitches = false;
    else
        return makeError("--cpuctxsw: expected process-tree or none");
    if (!parseBool(raw.showOutput, &o.showOutput))
        return makeError("--show-output: expected true or false");
#if SIGHTLINE_HAVE_CUDA_REPORT
    {
        auto graph = cuda::parseGraphTrace(raw.cudaGraph);
        if (!graph) return makeError(graph.error());
        o.cuda.graphTrace = *graph;
        auto memory = cuda::parseMemoryUsage(raw.cudaMemory);
        if (!memory) return makeError(memory.error());
        o.cuda.memoryUsage = *memory;
        auto flush = cuda::parseFlushInterval(raw.cudaFlush);
        if (!flush) return makeError(flush.error());
        o.cuda.flushIntervalMs = *flush;
        auto devices = cuda::parseGpuMetricsDevices(raw.gpuDevices);
        if (!devices) return makeError(devices.error());
        o.gpuMetrics = *devices;
        auto hz = cuda::parseGpuMetricsFrequency(raw.gpuFrequency);
        if (!hz) return makeError(hz.error());
        o.gpuMetrics.frequencyHz = *hz;
        if (o.captureRange == CaptureRange::CudaProfilerApi && !o.traceCuda)
            return makeError("--capture-range=cudaProfilerApi needs CUDA tracing (-t ...,cuda)");
    }
#endif
    if (!raw.quiet.empty() && !parseBool(raw.quiet, &o.quiet))
        return makeError("--quiet: expected true or false");
    return {};
}

int runProfile(int argc, char** argv) {
    RawOptions raw;
    ArgParser p(
        "sightline profile [options] <program> [program arguments...]",
        "Runs a program, traces it and its whole process tree (NVTX, OS runtime calls, processes,\n"
        "threads, CPU usage, scheduling, CPU samples with call stacks) and writes a .rep report.\n"
        "Options follow nsys profile.");
    p.option('o', "output", "NAME",
             "report file; %p = root pid, %h = host, %q{ENV} = variable, %% = %", &raw.output,
             "report1.rep, report2.rep, ... (never overwriting)");
    p.option('f', "force-overwrite", "true|false", "replace an existing report", &raw.force,
             "false");
    p.option('t', "trace", "LIST", "what to trace: cuda, nvtx, osrt or none, comma separated",
             &raw.trace, "cuda,nvtx,osrt");
    p.option(0, "osrt-threshold", "NS", "record OS runtime calls lasting at least this many ns",
             &raw.osrtThreshold, "1000");
    p.option('y', "delay", "SEC", "start recording this many seconds after the program starts",
             &raw.delay, "0");
    p.option('d', "duration", "SEC", "stop after this many seconds (0: when the process tree ends)",
             &raw.duration, "0");
    p.option(0, "kill", "MODE",
             "signal the program at the end of --duration: sigterm, sigkill or none", &raw.kill,
             "sigterm");
    p.option('c', "capture-range", "MODE",
             "none, nvtx (inside the NVTX range given by -p) or cudaProfilerApi", &raw.captureRange,
             "none");
    p.option('p', "nvtx-capture", "RANGE[@DOMAIN]",
             "the NVTX range for --capture-range=nvtx (@* any domain)", &raw.nvtxCapture);
    p.option(0, "capture-range-end", "MODE",
             "stop, stop-shutdown, repeat or repeat:N (one report per range, numbered)",
             &raw.rangeEnd, "stop");
    p.multi('e', "env-var", "NAME=VALUE[,...]", "set environment variables for the program",
            &raw.env);
    p.option(0, "trace-fork-before-exec", "true|false",
             "also trace forked children before they exec", &raw.forkBeforeExec, "false");
    p.option('s', "sample", "process-tree|none",
             "CPU IP/backtrace sampling of the traced process tree (perf events)", &raw.sample,
             "process-tree");
    p.option(0, "sampling-frequency", "HZ", "CPU samples per second of CPU time (100-8000)",
             &raw.samplingFrequency, "1000");
    p.option('b', "backtrace", "fp|none",
             "call stacks of CPU samples: fp = frame pointers (full stacks need code built with "
             "-fno-omit-frame-pointer), none = the sampled address only; lbr and dwarf are not "
             "supported",
             &raw.backtrace, "fp");
    p.option(0, "cpu-metrics", "on|off",
             "sample per-core CPU utilization and the tree's resident memory", &raw.cpuMetrics,
             "on");
    p.option(0, "cpu-metrics-frequency", "HZ", "CPU metrics sampling frequency",
             &raw.cpuMetricsFrequency, "100");
    p.option(0, "cpuctxsw", "MODE",
             "trace thread scheduling (context switches): process-tree or none", &raw.cpuctxsw,
             "process-tree");
    p.option(0, "show-output", "true|false",
             "capture the program's stdout/stderr into the report (still shown)", &raw.showOutput,
             "false");
#if SIGHTLINE_HAVE_CUDA_REPORT
    p.option(0, "cuda-graph-trace", "graph|node", "CUDA graphs as one range or node by node",
             &raw.cudaGraph, "graph");
    p.option(0, "cuda-memory-usage", "true|false", "trace CUDA memory allocations and frees",
             &raw.cudaMemory, "false");
    p.option(0, "cuda-flush-interval", "MS",
             "flush CUDA activity buffers this often (0: when full)", &raw.cudaFlush, "0");
    p.option(0, "gpu-metrics-devices", "none|all|LIST", "sample GPU metrics (NVML) of these GPUs",
             &raw.gpuDevices, "none");
    p.option(0, "gpu-metrics-frequency", "HZ", "GPU metrics sampling frequency", &raw.gpuFrequency,
             "10");
#endif
    p.option('q', "quiet", "true|false", "no progress messages", &raw.quiet, "false");
    p.positionals("the program and its arguments", &raw.program, true);
    switch (p.parse(argc, argv)) {
        case ArgParser::Outcome::Help:
            std::printf("%s", p.help().c_str());
            return 0;
        case ArgParser::Outcome::Error:
            return usageError("profile", p.error());
        case ArgParser::Outcome::Ok:
            break;
    }
    if (raw.program.empty()) return usageError("profile", "no program given");
    std::string given;
    for (int i = 1; i < argc && argv[i] != raw.program.front(); ++i)
        given += (given.empty() ? "" : " ") + std::string(argv[i]);
    capture::ProfileOptions o;
    if (Status s = toOptions(raw, o, given); !s) return usageError("profile", s.error());
    capture::Launcher launcher(std::move(o));
    auto r = launcher.run();
    if (!r) return fail(r.error());
    return r->exitCode;
}

const Registrar kProfile({"profile",
                          "run a program and record a report (NVTX, OS runtime, processes, CPU)",
                          runProfile, false, 10});

}  // namespace
}  // namespace sl::cli
