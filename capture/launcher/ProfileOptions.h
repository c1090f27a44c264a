#pragma once
// The options of `sightline profile` as the launcher sees them, and the parsing of the values
// whose syntax is richer than the option definition checks (model/options/OptionTableProfile.cpp
// declares names, values, ranges and defaults; the defaults here must equal those, which
// tests/options checks). The CLI (app/cli/ProfileCommand.cpp) maps the parsed command line onto
// this struct.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "capture/launcher/PythonFunctionsConfig.h"
#include "model/core/Result.h"

#if SIGHTLINE_HAVE_CUDA_REPORT
#include "capture/cupti/CudaBacktrace.h"
#include "capture/cupti/CudaOptions.h"
#include "capture/cupti/NvmlSampler.h"
#endif

namespace sl::capture {

enum class KillMode { Sigterm, Sigkill, None, Signal };  // Signal: ProfileOptions::killSignal
enum class CaptureRange { None, Nvtx, CudaProfilerApi };
enum class CaptureRangeEnd { Stop, StopShutdown, Repeat, RepeatShutdown };
// Whether every range (up to the count) is recorded, one report each.
inline bool repeats(CaptureRangeEnd e) {
    return e == CaptureRangeEnd::Repeat || e == CaptureRangeEnd::RepeatShutdown;
}

struct ProfileOptions {
    std::vector<std::string> command;  // argv of the program, argv[0] first
    std::string output;  // pattern (%p %h %q{ENV} %%); empty: report1.rep, report2.rep, ...
    bool forceOverwrite = false;
    bool traceCuda = true, traceNvtx = true, traceOsrt = true;
    bool cudaNamed = false;  // -t given, with cuda in it: a machine without a driver is noted
    bool traceMpi = false;
    bool traceOpenmp = false;
    bool traceCublas = false, traceCudnn = false, traceNccl = false;  // -t cublas,cudnn,nccl
    std::string mpiImpl = "openmpi";  // --mpi-impl: which module -t mpi preloads
    bool mpiImplGiven = false;  // --mpi-impl was on the command line (else the program may choose)
    int64_t osrtThresholdNs = 1000;
    int64_t delayNs = 0;
    int64_t durationNs = 0;  // 0: until the process tree ends
    KillMode kill = KillMode::Sigterm;
    int killSignal = 0;            // --kill=<number>
    bool stopOnExit = true;        // -x false: record until --duration ends though the tree ended
    bool waitAll = true;           // --wait all|primary: wait for re-parented descendants too
    bool inheritEnvironment = true;  // -n false: only -e variables and what tracing needs
    CaptureRange captureRange = CaptureRange::None;
    std::string nvtxRange, nvtxDomain;  // -p RANGE[@DOMAIN]
    CaptureRangeEnd rangeEnd = CaptureRangeEnd::Stop;
    int repeatCount = 0;  // repeat:N, repeat-shutdown:N; 0 = every range
    std::vector<std::pair<std::string, std::string>> env;
    bool traceForkBeforeExec = true;  // nsys: false (a deliberate difference, see the definition)
    bool cpuSampling = true;         // -s process-tree|none
    int samplingFrequency = 1000;    // --sampling-frequency, 100-8000 Hz
    bool backtraces = true;          // -b fp|dwarf|none (false: none)
    bool dwarfBacktraces = false;    // -b dwarf: user stacks unwound from DWARF CFI
    bool cpuMetrics = true;
    int cpuMetricsFrequency = 20;  // /proc/stat counts in 10 ms ticks: finer is noise
    bool contextSwitches = true;  // --cpuctxsw=process-tree|none
    bool showOutput = false;  // store the program's stdout/stderr in the report (through pipes)
    bool echoOutput = true;   // with showOutput: also pass them on to our stdout/stderr
    int progressFd = -1;      // --progress-fd: JSON lines of the capture's progress
    bool quiet = false;       // no progress on stderr
    std::string optionsText;  // the options as given, stored in the report
    // --python-functions-trace, read and checked (empty: off).
    std::vector<PythonTracedFunction> pythonFunctions;
    int pythonSamplingHz = 0;  // --python-sampling[-frequency]; 0: off
    std::string pytorch;       // --pytorch modes, comma-separated ("": none)
    // --osrt-backtrace-threshold (-1: not given, no native stacks) and --osrt-backtrace-depth.
    int64_t osrtBacktraceThresholdNs = -1;
    int osrtBacktraceDepth = 24;
    // --cudabacktrace (with --cudabacktrace-threshold): passed to libsightline-cuda when any.
    cuda::CudaBacktraceOptions cudaBacktrace;
    std::string pythonBacktrace;  // --python-backtrace kinds taken ("osrt,nvtx"; "": none)
    // Whether the Python start-up hook (capture/python) is needed.
    bool usesPythonHook() const {
        return !pythonFunctions.empty() || pythonSamplingHz > 0 || !pytorch.empty() ||
               !pythonBacktrace.empty();
    }
#if SIGHTLINE_HAVE_CUDA_REPORT
    cuda::CudaTraceOptions cuda;         // --cuda-*, -c cudaProfilerApi (read by libsightline-cuda)
    cuda::GpuMetricsOptions gpuMetrics;  // --gpu-metrics-devices/-frequency (NVML, launcher side)
#endif
};

// The -t list as the option definition accepts it ("cuda,nvtx,mpi", "none"): sets the trace
// flags of what is traced here.
Status parseTraceList(const std::string& text, ProfileOptions& o);
// Seconds, decimal allowed ("2", "0.5"); negative or garbage fails.
Result<int64_t> parseSeconds(const std::string& text, const char* option);
// sigterm, sigkill, none or a signal number (stored in o.killSignal).
Status parseKill(const std::string& text, ProfileOptions& o);
// The signal that ends the program (SIGTERM, SIGKILL or --kill=N); 0 for none.
int killSignalOf(const ProfileOptions& o);
Status parseCaptureRange(const std::string& text, ProfileOptions& o);
Status parseNvtxCapture(const std::string& text, ProfileOptions& o);
Status parseCaptureRangeEnd(const std::string& text, ProfileOptions& o);
Status parseEnvVar(const std::string& text, ProfileOptions& o);
// -s, --sampling-frequency and -b, their values checked by the definition.
Status parseSample(const std::string& text, ProfileOptions& o);
Status parseSamplingFrequency(const std::string& text, ProfileOptions& o);
Status parseBacktrace(const std::string& text, ProfileOptions& o);

// Expands %p (root pid), %h (host name), %q{NAME} (environment variable), %n (the smallest number
// whose file does not exist yet), %% and adds ".rep" unless the name ends in .rep, .nsys-rep or
// .qdrep (kept as given). Unknown %
// sequences fail.
Result<std::string> expandOutputPattern(const std::string& pattern, int64_t rootPid);
// Whether the pattern depends on the pid (then the file name is known only after the start).
bool patternUsesPid(const std::string& pattern);
// The %q{NAME} variables of the pattern not set in the environment (they expand to nothing: a
// rank variable of another MPI, `-o r%q{OMPI_COMM_WORLD_RANK}` under MPICH, gave every rank
// the same name).
std::vector<std::string> unsetPatternVariables(const std::string& pattern);
// Whether the pattern takes the first free number (%n, or a directory: "outd/" is
// outd/report%n): a report whose name was taken meanwhile takes the next one.
bool numbersItsName(const std::string& pattern);
// report1.rep, report2.rep, ...: the first that does not exist in the current directory.
std::string nextDefaultReportName(const std::string& dir = ".");
// "out.rep" -> "out-2.rep": where the report goes when out.rep was made during the capture
// (without -f it is kept).
std::string siblingName(const std::string& path, int index);
// With `index` > 0 (capture-range repeat): "out.rep" -> "out.1.rep".
std::string numberedName(const std::string& path, int index);

}  // namespace sl::capture
