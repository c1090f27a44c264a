// `sightline profile`: every option of `nsys profile` (NVIDIA Nsight Systems CLI reference,
// "CLI Profile Command Switch Options"), with its status here, plus Sightline's own.
#include "model/options/OptionBuilder.h"
#include "model/options/RemoteOptionRows.h"

namespace sl::options {

namespace {

using K = ValueKind;
constexpr std::string_view P = "profile";

// Reasons that recur. "Not traced" options keep the rest of the capture as asked.
constexpr std::string_view kNoHwCounters =
    "hardware performance counters are not sampled; the option is ignored";
constexpr std::string_view kLinuxOnly = "Sightline runs on Linux x86-64; the option is ignored";
constexpr std::string_view kPython =
    "Python call stacks and PyTorch annotations are not captured yet (--python-functions-trace "
    "and the nvtx package are); Python code shows as the interpreter's native frames";
constexpr std::string_view kNoTraceDomain = "not traced yet; the other -t domains are traced";

}  // namespace

void addProfileOptions(std::vector<OptionDef>& out) {
    auto add = [&](Opt o) { out.push_back(std::move(o)); };

    // What is traced.
    add(Opt(P, "trace", 't', K::List, "LIST", "cuda,nvtx,osrt", "what to trace")
            .values({cudaVal("cuda"), val("nvtx"), val("osrt"),
                     differs("cuda-sw", "CUDA is traced through CUPTI as with cuda"),
                     alias("cuda-hw", "cuda"), val("mpi"), val("openmp"), val("cublas"),
                     differs("cublas-verbose", "traced as cublas (each call with its handle, "
                             "stream and status); the argument text of cuBLAS's logger is not "
                             "recorded"),
                     val("cudnn"), val("nccl"),
                     na("cusolver", kNoTraceDomain), na("cusolver-verbose", kNoTraceDomain),
                     na("cusparse", kNoTraceDomain), na("cusparse-verbose", kNoTraceDomain),
                     na("cudla", kNoTraceDomain), na("cudla-verbose", kNoTraceDomain),
                     na("oshmem", kNoTraceDomain), na("ucx", kNoTraceDomain),
                     na("openacc", kNoTraceDomain),
                     na("opengl", kNoTraceDomain), na("opengl-annotations", kNoTraceDomain),
                     na("vulkan", kNoTraceDomain), na("vulkan-annotations", kNoTraceDomain),
                     na("vulkan-sc", kNoTraceDomain), na("nvvideo", kNoTraceDomain),
                     na("nvmedia", kNoTraceDomain), na("gds", kNoTraceDomain),
                     na("s3", kNoTraceDomain), na("s3-verbose", kNoTraceDomain),
                     na("python-gil", kNoTraceDomain), na("openxr", kNoTraceDomain),
                     na("openxr-annotations", kNoTraceDomain),
                     na("tegra-accelerators", kNoTraceDomain), na("dx11", kLinuxOnly),
                     na("dx11-annotations", kLinuxOnly), na("dx12", kLinuxOnly),
                     na("dx12-annotations", kLinuxOnly), na("wddm", kLinuxOnly), val("none")})
            .differs("the default leaves out opengl, which is not traced")
            .group("Trace"));
    add(Opt(P, "osrt-threshold", 0, K::Integer, "NS", "1000",
            "record OS runtime calls lasting at least this many nanoseconds")
            .range(0, 1'000'000'000'000)
            .onlyWhen("trace", Condition::Test::Has, "osrt")
            .group("Trace"));
    add(Opt(P, "osrt-backtrace-depth", 0, K::Integer, "N", "24",
            "frames in the call stacks of OS runtime calls")
            .range(1, 256)
            .group("More"));
    add(Opt(P, "osrt-backtrace-stack-size", 0, K::Integer, "BYTES", "6144",
            "stack bytes copied for OS runtime call stacks")
            .range(1024, 65536)
            .differs("accepted and not used: the stack is unwound in the calling thread with "
                     "DWARF call frame information, nothing is copied (the size is the copy "
                     "limit of nsys's copying unwinder)")
            .group("More"));
    add(Opt(P, "osrt-backtrace-threshold", 0, K::Integer, "NS", "80000",
            "OS runtime calls at least this long get a call stack")
            .range(0, 1'000'000'000'000)
            .differs("stacks are taken only when this option is given (nsys takes them from "
                     "80000 ns by default): the default capture's cost stays unchanged")
            .group("More"));
    add(Opt(P, "nvtx-domain-include", 0, K::Text, "DOMAINS", "",
            "only these NVTX domains (comma-separated; 'default' is the unnamed one)")
            .unavailable("every NVTX domain is recorded")
            .group("More"));
    add(Opt(P, "nvtx-domain-exclude", 0, K::Text, "DOMAINS", "",
            "leave out these NVTX domains (comma-separated; 'default' is the unnamed one)")
            .unavailable("every NVTX domain is recorded")
            .group("More"));
    add(Opt(P, "mpi-impl", 0, K::Choice, "IMPL", "openmpi", "the MPI implementation for -t mpi")
            .values({val("openmpi"), val("mpich")})
            .onlyWhen("trace", Condition::Test::Has, "mpi")
            .group("Trace"));
    add(Opt(P, "trace-fork-before-exec", 0, K::Switch, "", "true",
            "also trace forked children before they exec")
            .differs("true by default (nsys: false), so forked workers such as PyTorch "
                     "DataLoader and Python multiprocessing are traced; with false the report "
                     "counts the forked children it did not trace. Children of _Fork and of "
                     "clone() are traced from their exec either way")
            .group("Trace"));

    // CUDA.
    add(Opt(P, "cuda-memory-usage", 0, K::Switch, "", "false",
            "trace CUDA memory allocations and frees (device memory over time)")
            .cuda()
            .onlyWhen("trace", Condition::Test::Has, "cuda")
            .group("CUDA"));
    add(Opt(P, "cuda-graph-trace", 0, K::Choice, "graph|node", "graph",
            "CUDA graphs as one range each, or node by node")
            .values({val("graph"), val("node")})
            .cuda()
            .onlyWhen("trace", Condition::Test::Has, "cuda")
            .group("CUDA"));
    add(Opt(P, "cuda-flush-interval", 0, K::Integer, "MS", "0",
            "flush CUDA activity buffers this often in milliseconds (0: when full)")
            .range(0, 3'600'000)
            .cuda()
            .onlyWhen("trace", Condition::Test::Has, "cuda")
            .group("CUDA"));
    add(Opt(P, "cuda-trace-all-apis", 0, K::Switch, "", "false",
            "also trace CUDA API queries of negligible cost (cudaGetDevice, cuCtxGetCurrent, ...)")
            .cuda()
            .onlyWhen("trace", Condition::Test::Has, "cuda")
            .group("CUDA"));
    add(Opt(P, "cuda-event-trace", 0, K::Choice, "auto|true|false", "false",
            "trace when recorded CUDA events complete on their streams (cudaEventRecord)")
            .values({differs("auto", "the same as false"), val("true"), val("false")})
            .cuda()
            .onlyWhen("trace", Condition::Test::Has, "cuda")
            .group("CUDA"));
    add(Opt(P, "cuda-um-cpu-page-faults", 0, K::Switch, "", "false",
            "trace unified-memory CPU page faults")
            .unavailable("unified-memory page faults are not traced")
            .group("More"));
    add(Opt(P, "cuda-um-gpu-page-faults", 0, K::Switch, "", "false",
            "trace unified-memory GPU page faults")
            .unavailable("unified-memory page faults are not traced")
            .group("More"));
    add(Opt(P, "cudabacktrace-threshold", 0, K::Integer, "NS", "80000",
            "old nsys option: the shortest CUDA API call that gets a call stack")
            .range(0, 1'000'000'000'000)
            .group("More"));
    add(Opt(P, "cudabacktrace", 0, K::Text, "all|none|kernel|memory|sync|other[:NS]", "none",
            "collect a CPU call stack at CUDA API calls of these kinds (longer than NS)")
            .differs("the stack is taken at the call's exit, when its duration is known; depth "
                     "from --osrt-backtrace-depth")
            .group("More"));
    add(Opt(P, "gpu-metrics-devices", 0, K::Text, "none|all|cuda-visible|IDS", "none",
            "sample GPU metrics of these GPUs (comma-separated indices)")
            .old({"gpu-metrics-device"})
            .differs("metrics come from NVML (utilization, SM and memory clocks, memory used, "
                     "power, temperature), not from the hardware counter sets of nsys")
            .cuda()
            .nvml()
            .group("CUDA"));
    add(Opt(P, "gpu-metrics-frequency", 0, K::Integer, "HZ", "10", "GPU metrics samples per second")
            .range(1, 200000)
            .differs("default 10 Hz: NVML's counters change about every 1/6 s, nsys's default of "
                     "10 kHz would repeat the same values; rates above 10 kHz are sampled at 10 kHz")
            .cuda()
            .nvml()
            .onlyWhen("gpu-metrics-devices", Condition::Test::IsNot, "none")
            .group("CUDA"));
    add(Opt(P, "gpu-metrics-set", 0, K::Text, "SET", "", "the GPU metrics set to sample")
            .unavailable("the NVML metrics are sampled whatever the set")
            .group("More"));
    add(Opt(P, "gpuctxsw", 0, K::Switch, "", "false", "trace GPU context switches")
            .unavailable("GPU context switches are not traced")
            .group("More"));
    add(Opt(P, "gpu-video-devices", 0, K::Text, "IDS", "none", "trace video engine activity")
            .old({"gpu-video-device"})
            .unavailable("video engines are not traced")
            .group("More"));
    add(Opt(P, "nic-metrics", 0, K::Text, "lf|hf|hf-via-dts|none", "none",
            "sample network interface metrics")
            .unavailable("network interfaces are not sampled")
            .group("More"));
    add(Opt(P, "accelerator-trace", 0, K::Text, "LIST", "none", "trace other accelerators")
            .unavailable("only NVIDIA GPUs are traced")
            .group("More"));

    // CPU.
    add(Opt(P, "sample", 's', K::Choice, "process-tree|system-wide|none", "process-tree",
            "CPU IP/backtrace sampling (perf events)")
            .values({val("process-tree"),
                     differs("system-wide", "only the traced process tree is sampled"),
                     differs("xhv", "the process tree is sampled, not across a hypervisor"),
                     differs("xhv-system-wide", "the process tree is sampled"), val("none"),
                     alias("cpu", "process-tree")})
            .group("CPU"));
    add(Opt(P, "sampling-frequency", 0, K::Integer, "HZ", "1000",
            "CPU samples per second of CPU time")
            .range(100, 8000)
            .onlyWhen("sample", Condition::Test::IsNot, "none")
            .group("CPU"));
    add(Opt(P, "sampling-period", 0, K::Integer, "CYCLES", "",
            "CPU cycles between samples (hardware sampling)")
            .range(1, 1'000'000'000)
            .unavailable("samples are taken on the cpu-clock timer at --sampling-frequency")
            .group("More"));
    add(Opt(P, "sampling-trigger", 0, K::Text, "TRIGGER", "", "the event that triggers a sample")
            .unavailable("samples are taken on the cpu-clock timer")
            .group("More"));
    add(Opt(P, "samples-per-backtrace", 0, K::Integer, "N", "1",
            "take a call stack every N-th sample")
            .range(1, 32)
            .unavailable("every sample has its call stack")
            .group("More"));
    add(Opt(P, "backtrace", 'b', K::Choice, "auto|fp|lbr|dwarf|none", "fp",
            "call stacks of CPU samples: fp walks frame pointers (full stacks need code built "
            "with -fno-omit-frame-pointer); dwarf copies 8 KiB of user stack per sample and "
            "unwinds it from the DWARF CFI (.eh_frame) of the mapped files, through code "
            "without frame pointers; none records the sampled address only")
            .values({val("auto"), val("fp"),
                     na("lbr", "no last-branch-record hardware access; frame pointers are walked"),
                     val("dwarf"),
                     val("none")})
            .onlyWhen("sample", Condition::Test::IsNot, "none")
            .group("CPU"));
    add(Opt(P, "cpuctxsw", 0, K::Choice, "process-tree|system-wide|none", "process-tree",
            "trace thread scheduling (context switches)")
            .values({val("process-tree"),
                     differs("system-wide", "only the traced process tree is traced"),
                     val("none")})
            .group("CPU"));
    add(Opt(P, "cpu-metrics", 0, K::Switch, "", "true",
            "sample per-core CPU utilization and the tree's resident memory")
            .extension()
            .group("CPU"));
    add(Opt(P, "cpu-metrics-frequency", 0, K::Integer, "HZ", "20",
            "CPU metrics samples per second (/proc/stat counts in 10 ms ticks)")
            .range(1, 1000)
            .extension()
            .onlyWhen("cpu-metrics", Condition::Test::Is, "true")
            .group("CPU"));
    add(Opt(P, "cpu-core-events", 0, K::Text, "EVENTS", "none", "sample CPU core counters")
            .unavailable(kNoHwCounters)
            .group("More"));
    add(Opt(P, "cpu-core-metrics", 0, K::Text, "METRICS", "none", "sample CPU core metrics")
            .unavailable(kNoHwCounters)
            .group("More"));
    add(Opt(P, "cpu-cluster-events", 0, K::Text, "EVENTS", "none", "sample CPU cluster counters")
            .unavailable(kNoHwCounters)
            .group("More"));
    add(Opt(P, "cpu-socket-events", 0, K::Text, "EVENTS", "none", "sample CPU socket counters")
            .unavailable(kNoHwCounters)
            .group("More"));
    add(Opt(P, "cpu-socket-metrics", 0, K::Text, "METRICS", "none", "sample CPU socket metrics")
            .unavailable(kNoHwCounters)
            .group("More"));
    add(Opt(P, "event-sample", 0, K::Text, "MODE", "none", "sample OS and hardware events")
            .unavailable(kNoHwCounters)
            .group("More"));
    add(Opt(P, "event-sampling-interval", 0, K::Integer, "MS", "10", "event sampling interval")
            .range(1, 1000)
            .unavailable(kNoHwCounters)
            .group("More"));
    add(Opt(P, "event-sampling-frequency", 0, K::Integer, "HZ", "3", "event sampling frequency")
            .range(1, 20)
            .unavailable(kNoHwCounters)
            .group("More"));
    add(Opt(P, "os-events", 0, K::Text, "EVENTS", "", "OS events to sample")
            .unavailable(kNoHwCounters)
            .group("More"));
    add(Opt(P, "ftrace", 0, K::Text, "EVENTS", "", "Linux ftrace events to collect")
            .unavailable("ftrace events are not collected")
            .group("More"));
    add(Opt(P, "ftrace-keep-user-config", 0, K::Switch, "", "false", "keep the ftrace set-up")
            .unavailable("ftrace events are not collected")
            .group("More"));
    add(Opt(P, "process-scope", 0, K::Choice, "main|process-tree|system-wide", "process-tree",
            "which processes are traced")
            .values({differs("main", "the whole tree is traced"), val("process-tree"),
                     differs("system-wide", "the process tree is traced")})
            .group("More"));
    add(Opt(P, "resolve-symbols", 0, K::Switch, "", "true", "resolve the symbols of CPU samples")
            .differs("symbols are always resolved, from the ELF files after the run")
            .group("More"));
    add(Opt(P, "debug-symbols", 0, K::Text, "PATHS", "", "folders of separate debug symbol files")
            .unavailable("symbols come from the binaries' own symbol tables")
            .group("More"));

    // Python.
    add(Opt(P, "python-backtrace", 0, K::List, "cuda|osrt|nvtx|none", "none",
            "Python call stacks at CUDA API calls (and OS runtime calls, NVTX ranges and marks)")
            .values({differs("osrt", "Sightline's own: at each recorded OS runtime call"),
                     differs("nvtx", "Sightline's own: at each NVTX push, start and mark"),
                     cudaVal("cuda"),
                     val("none"), alias("false", "none")})
            .differs("read from CPython 3.11 to 3.13's own structures by the calling thread "
                     "(checked against Python's view at start-up; other interpreters record "
                     "none, and the report says why), started through PYTHONPATH "
                     "(`python -E`/`-I`/`-S` record none)")
            .group("More"));
    add(Opt(P, "python-sampling", 0, K::Switch, "", "false", "sample Python call stacks")
            .differs("every Python thread is sampled (function, file, line) from inside the "
                     "interpreter, started through PYTHONPATH (`python -E`/`-I`/`-S` run "
                     "unsampled); the samples join the CPU samples of their thread")
            .group("More"));
    add(Opt(P, "python-sampling-frequency", 0, K::Integer, "HZ", "1000",
            "Python call stack samples per second")
            .range(1, 2000)
            .group("More"));
    add(Opt(P, "python-functions-trace", 0, K::Text, "JSON", "",
            "trace the Python functions listed in this JSON file")
            .differs("checked before the program starts (an error names the entry at fault); "
                     "traced from Python's start-up through PYTHONPATH, so `python -E`/`-I`/`-S` "
                     "run untraced")
            .group("More"));
    add(Opt(P, "pytorch", 0, K::List, "MODE", "none", "PyTorch annotations")
            .values({val("autograd-nvtx"), val("autograd-shapes-nvtx"),
                     differs("functions-trace",
                             "NVTX ranges named after the module's class for each forward "
                             "(\"Linear.forward\"), \"backward\" for each backward pass, and the "
                             "optimizer's class for each step (\"SGD.step\")"),
                     differs("functions-trace-shapes",
                             "as functions-trace, with the shapes of the tensors given to each "
                             "forward in the range's name (\"Linear.forward [64x128]\")"),
                     val("none")})
            .differs("switched on through the Python start-up hook when the program imports "
                     "torch (`python -E`/`-I`/`-S` run unannotated); the autograd modes annotate "
                     "the thread that imported torch and the autograd threads its backward "
                     "passes use; the run says so when no process imported torch")
            .group("More"));
    add(Opt(P, "dask", 0, K::Choice, "functions-trace|none", "none", "trace Dask functions")
            .values({val("functions-trace"), val("none")})
            .unavailable("Dask is not traced")
            .group("More"));

    // Graphics APIs nsys traces on workstations.
    add(Opt(P, "opengl-gpu-workload", 0, K::Switch, "", "true", "OpenGL GPU workload")
            .unavailable("OpenGL is not traced")
            .group("More"));
    add(Opt(P, "vulkan-gpu-workload", 0, K::Text, "MODE", "individual", "Vulkan GPU workload")
            .unavailable("Vulkan is not traced")
            .group("More"));
    add(Opt(P, "xhv-trace", 0, K::Text, "FILE", "", "hypervisor trace")
            .unavailable("hypervisors are not traced")
            .group("More"));

    // Options of nsys's other targets (Windows, embedded, graphics, networks) and of its own
    // session machinery: accepted so that shared scripts run, each with its warning.
    auto other = [&](std::string_view name, ValueKind kind, std::string_view valueName,
                     std::string_view def, std::string_view help, std::string_view note) {
        Opt o(P, name, 0, kind, valueName, def, help);
        if (kind == K::Integer) o.range(0, 1'000'000'000);
        add(std::move(o.unavailable(note).group("More")));
    };
    constexpr std::string_view kEmbedded =
        "an option of nsys's Embedded Platforms Edition; ignored";
    constexpr std::string_view kWindows = "a Windows option; ignored";
    constexpr std::string_view kNetwork = "network devices are not sampled; ignored";
    other("after-collection-start", K::Text, "COMMAND", "",
          "run a command after the collection starts", "no callbacks are run");
    other("after-report-ready", K::Text, "COMMAND", "", "run a command when the report is ready",
          "no callbacks are run; chain the command after sightline profile");
    other("auto-report-name", K::Switch, "", "false", "name the report after the graphics app",
          "the report is named by --output");
    other("command-file", K::Text, "FILE", "", "read options from a file",
          "give the options on the command line (or $(cat FILE))");
    add(Opt(P, "cuda-trace-scope", 0, K::Choice, "process-tree|system-wide", "process-tree",
            "trace CUDA in the process tree or in every process")
            .values({val("process-tree"), differs("system-wide", "the process tree is traced")})
            .group("More"));
    other("discard-environment", K::Switch, "", "false",
          "do not store the program's environment in the report",
          "only the -e variables and the rank variables of a distributed job (RANK, "
          "OMPI_COMM_WORLD_RANK, SLURM_PROCID, ...) are stored in the report");
    other("enable", K::Text, "PLUGIN[,ARGS]", "", "use an nsys plugin", "there are no plugins");
    other("flush-on-cudaprofilerstop", K::Switch, "", "true",
          "cudaProfilerStop flushes the CUDA buffers", "buffers are flushed at range ends anyway");
    other("gds-metrics", K::Switch, "", "false", "GPUDirect Storage metrics",
          "GPUDirect Storage is not sampled");
    other("gds-libs-path", K::Text, "DIR", "", "where libcufile.so is",
          "GPUDirect Storage is not sampled");
    other("nccl-trace", K::Text, "LIST", "", "what of NCCL to trace",
          "-t nccl traces every NCCL API call; there is no finer selection");
    other("osrt-file-access", K::Switch, "", "false", "file names of OS runtime file calls",
          "OS runtime calls are recorded without file names");
    other("show-source-info", K::Switch, "", "true", "source files and lines of call stacks",
          "call stacks show functions and modules, not source lines");
    add(Opt(P, "start-later", 'Y', K::Switch, "", "false",
            "wait for `nsys start` before recording")
            .unavailable("there is no `start` command; use --delay or a capture range")
            .group("More"));
    other("storage-metrics", K::Text, "SPEC", "", "storage device metrics",
          "storage devices are not sampled");
    other("syscall", K::Text, "process-tree|pid-namespace|none", "none", "trace system calls",
          "system calls are traced as OS runtime calls (-t osrt)");
    other("event-sampling-multiplex-interval", K::Integer, "MS", "2000",
          "how long one counter group is sampled", kNoHwCounters);
    other("dts-api-port", K::Integer, "PORT", "9117", "DOCA Telemetry Service port", kNetwork);
    other("ib-net-info-devices", K::Text, "NICS", "none", "InfiniBand network discovery", kNetwork);
    other("ib-net-info-files", K::Text, "FILES", "none", "InfiniBand network files", kNetwork);
    other("ib-net-info-output", K::Text, "DIR", "none", "InfiniBand discovery output", kNetwork);
    other("ib-switch-congestion-devices", K::Text, "GUIDS", "none",
          "InfiniBand switch congestion events", kNetwork);
    other("ib-switch-congestion-nic-device", K::Text, "NIC", "", "the NIC to reach switches",
          kNetwork);
    other("ib-switch-congestion-percent", K::Integer, "PERCENT", "50",
          "share of congestion events", kNetwork);
    other("ib-switch-congestion-threshold-high", K::Integer, "PERCENT", "75",
          "congestion threshold", kNetwork);
    other("ib-switch-metrics-devices", K::Text, "GUIDS", "none", "InfiniBand switch metrics",
          kNetwork);
    other("ib-switch-metrics-nic-device", K::Text, "NIC", "", "the NIC to reach switches",
          kNetwork);
    other("qnx-kernel-events", K::Text, "EVENTS", "none", "QNX kernel events", kEmbedded);
    other("qnx-kernel-events-mode", K::Text, "MODE", "system:fast", "QNX kernel event mode",
          kEmbedded);
    other("soc-metrics", K::Switch, "", "false", "SoC metrics", kEmbedded);
    other("soc-metrics-frequency", K::Integer, "HZ", "10000", "SoC metrics frequency", kEmbedded);
    other("soc-metrics-set", K::Text, "SET", "", "SoC metrics set", kEmbedded);
    other("vsync", K::Switch, "", "false", "vsync events", kEmbedded);
    other("xhv-trace-events", K::Text, "CLASSES", "all", "hypervisor trace events", kEmbedded);
    other("xhv-vm-symbols", K::Text, "FILE", "", "hypervisor symbols", kEmbedded);
    other("vulkan-sc-gpu-workload", K::Text, "MODE", "individual", "Vulkan SC GPU workload",
          "Vulkan is not traced");
    other("dx12-gpu-workload", K::Text, "MODE", "individual", "DX12 GPU workload", kWindows);
    other("dx12-wait-calls", K::Switch, "", "true", "DX12 wait calls", kWindows);
    other("dx-force-declare-adapter-removal-support", K::Switch, "", "false",
          "DXGI adapter removal support", kWindows);
    other("etw-provider", K::Text, "PROVIDER", "", "ETW providers", kWindows);
    other("injection-use-detours", K::Switch, "", "true", "Windows injection method", kWindows);
    other("isr", K::Switch, "", "false", "interrupt service routines", kWindows);
    other("reflex-events", K::Switch, "", "false", "Reflex SDK events", kWindows);
    other("retain-etw-files", K::Switch, "", "false", "keep ETW files", kWindows);
    other("system-wide", K::Switch, "", "false", "Windows system-wide injection", kWindows);
    other("wddm-additional-events", K::Switch, "", "false", "WDDM events", kWindows);
    other("wddm-backtraces", K::Switch, "", "false", "WDDM backtraces", kWindows);
    other("wddm-memory-trace", K::Switch, "", "true", "WDDM memory events", kWindows);
    other("clock-frequency-changes", K::Switch, "", "false", "CPU clock frequency changes",
          kEmbedded);

    // When.
    add(Opt(P, "delay", 'y', K::Seconds, "SEC", "0",
            "start recording this many seconds after the program starts")
            .group("Timing"));
    add(Opt(P, "duration", 'd', K::Seconds, "SEC", "0",
            "stop after this many seconds (0: when the program ends)")
            .group("Timing"));
    add(Opt(P, "duration-frames", 0, K::Integer, "N", "", "stop after this many frames")
            .range(60, 1'000'000)
            .unavailable("frames are not traced; --duration stops the capture")
            .group("More"));
    add(Opt(P, "start-frame-index", 0, K::Integer, "N", "", "start at this frame")
            .range(1, 1'000'000)
            .unavailable("frames are not traced; --delay starts the capture")
            .group("More"));
    add(Opt(P, "capture-range", 'c', K::Choice, "none|nvtx|cudaProfilerApi|hotkey", "none",
            "record only inside an NVTX range (-p) or between cudaProfilerStart and Stop")
            .values({val("none"), val("nvtx"), cudaVal("cudaProfilerApi"),
                     na("hotkey", "there is no hot key; the whole run is recorded")})
            .group("Timing"));
    add(Opt(P, "nvtx-capture", 'p', K::Text, "RANGE[@DOMAIN]", "",
            "the NVTX range of -c nvtx: RANGE (default domain), RANGE@DOMAIN or RANGE@* (any "
            "domain)")
            .onlyWhen("capture-range", Condition::Test::Is, "nvtx")
            .group("Timing"));
    add(Opt(P, "capture-range-end", 0, K::Choice, "MODE", "stop",
            "after the range: stop recording (the program runs on), stop and end the program, "
            "record the next range too (a report per range), up to N ranges, then end it")
            .values({val("stop"), val("stop-shutdown"), val("repeat"), val("repeat:N"),
                     val("repeat-shutdown:N"),
                     na("none", "the range's end stops the recording as with stop")})
            .differs("the default is stop (nsys: stop-shutdown), so a program is never ended "
                     "unasked")
            .onlyWhen("capture-range", Condition::Test::IsNot, "none")
            .group("Timing"));
    add(Opt(P, "stop-on-range-end", 0, K::Switch, "", "true",
            "old nsys option: true ends the program at the end of the capture range "
            "(--capture-range-end=stop-shutdown), false lets it run on (stop)")
            .group("More"));
    add(Opt(P, "hotkey-capture", 0, K::Text, "KEY", "F12", "the capture hot key")
            .unavailable("there is no hot key; the whole run is recorded")
            .group("More"));
    add(Opt(P, "stop-on-exit", 'x', K::Switch, "", "true",
            "stop when the program ends; false: record until --duration ends")
            .group("Timing"));
    add(Opt(P, "kill", 0, K::Choice, "none|sigkill|sigterm|N", "sigterm",
            "signal that ends the program when the capture ends before it (a name or number)")
            .values({val("none"), val("sigkill"), val("sigterm"), val("N"),
                     alias("true", "sigterm"), alias("false", "none")})
            .group("Timing"));
    add(Opt(P, "wait", 0, K::Choice, "primary|all", "all",
            "end the capture when the program ends (primary) or when every process of its tree "
            "has")
            .values({val("primary"), val("all")})
            .group("Timing"));

    // The program's environment and output.
    add(Opt(P, "env-var", 'e', K::Text, "NAME=VALUE[,...]", "",
            "set environment variables for the program")
            .repeatable()
            .group("Program"));
    add(Opt(P, "inherit-environment", 'n', K::Switch, "", "true",
            "pass this environment to the program (false: only -e variables and what tracing "
            "needs)")
            .group("Program"));
    add(Opt(P, "show-output", 'w', K::Switch, "", "true",
            "show the program's stdout and stderr; false: store them in the report instead")
            .differs("true leaves the program its own terminal (its buffering and colours as "
                     "without Sightline) and stores nothing; nsys stores the output either way")
            .group("Program"));
    add(Opt(P, "run-as", 0, K::Text, "USER", "", "run the program as this user")
            .unavailable("the program runs as the calling user; use sudo -u USER sightline ...")
            .group("More"));

    // The report.
    add(Opt(P, "output", 'o', K::Text, "NAME", "report%n",
            "report name: %p root pid, %h host, %n next free number, %q{ENV} a variable, %% %")
            .differs("a Sightline report: .rep is added unless the name ends in .rep, .nsys-rep or "
                     ".qdrep (kept as given, so scripts that read X.nsys-rep back work; nsys-ui cannot "
                     "open it)")
            .group("Output"));
    add(Opt(P, "output-dir", 0, K::Text, "DIR", "", "folder of the report when -o has none")
            .extension()
            .group("Output"));
    add(Opt(P, "force-overwrite", 'f', K::Switch, "", "false",
            "replace existing files (a symbolic link's file, not the link; never a device or pipe)")
            .group("Output"));
    add(Opt(P, "export", 0, K::List, "TYPES", "none",
            "also write these exports next to the report")
            .values({val("sqlite"),
                     differs("json", "Chrome Trace Event JSON (Perfetto), not nsys's JSON lines"),
                     differs("text", "the report's summary as `sightline info` prints it"),
                     na("arrow", "not written; use sqlite"), na("arrowdir", "not written; use sqlite"),
                     na("parquetdir", "not written; use sqlite"), na("hdf", "not written; use sqlite"),
                     val("none")})
            .group("Output"));
    add(Opt(P, "stats", 0, K::Switch, "", "false",
            "print the default stats reports after the capture")
            .group("Output"));
    add(Opt(P, "session", 0, K::Text, "NAME", "", "the interactive session to use")
            .unavailable("there are no interactive sessions; every profile is its own")
            .group("More"));
    add(Opt(P, "session-new", 0, K::Text, "NAME", "", "name a new interactive session")
            .unavailable("there are no interactive sessions; every profile is its own")
            .group("More"));
    add(Opt(P, "quiet", 'q', K::Switch, "", "false", "no progress messages").group("Output"));
    add(Opt(P, "progress-fd", 0, K::Integer, "FD", "",
            "write the capture's progress as JSON lines to this file descriptor")
            .range(3, 1023)
            .extension());
    addRemoteConnectionOptions(out, P);
    add(Opt(P, "remote-workdir", 0, K::Text, "DIR", "",
            "with --remote: the program's working directory there (default: the home directory)")
            .extension());
    add(Opt(P, "list-options", 0, K::Flag, "", "",
            "print every option with its status in this build, and exit")
            .extension());
    add(Opt(P, "format", 0, K::Choice, "text|json|markdown", "text", "format of --list-options")
            .values({val("text"), val("json"), val("markdown")})
            .extension());
}

}  // namespace sl::options
