#pragma once
// The checks behind `sightline status --environment` (nsys: `nsys status --environment`) and the
// one-line warnings `sightline profile` prints before it starts: what the kernel, the privileges,
// the container, the NVIDIA driver, CUPTI, NVML and the disks allow a capture to record. Every
// check says OK, WARN or FAIL, what it found and the exact command that fixes it.
//
// Reads only files under EnvironmentProbe::procRoot / fsRoot (so tests can fake them), opens
// real perf events on the calling process when probePerfEvents is set (the truth about what the
// kernel, seccomp and capabilities allow), and dlopens the NVIDIA libraries by name (closed again
// before returning). Safe without a GPU or a driver. No Qt: standard library, POSIX and dlopen.
#include <cstdint>
#include <string>
#include <vector>

namespace sl::capture {

enum class CheckLevel { Ok, Warn, Fail };

struct EnvironmentCheck {
    std::string id;     // stable, for scripts: "perf_event_paranoid", "free_space:/tmp", ...
    std::string title;  // what the line is about: "perf_event_paranoid", "free space /tmp"
    CheckLevel level = CheckLevel::Ok;
    std::string detail;  // what was found and what it means for a capture
    std::string fix;     // the command (or step) that fixes it; "" when nothing to do
    std::string value;   // the raw finding ("2", "EACCES", "13.0", ...): for captureWarnings()
};

// Inputs that tests can fake.
struct EnvironmentProbe {
    // Files read: procRoot + "/sys/kernel/perf_event_paranoid", "/self/status", "/1/cgroup", ...
    std::string procRoot = "/proc";
    std::string fsRoot;  // prefix of /.dockerenv, /run/.containerenv, /etc/ld.so.preload
    // Directories whose free space and writability matter: the session directory (TMPDIR or
    // /tmp: sessionParentDirectory()) and the report's directory. Duplicates are checked once.
    std::vector<std::string> directories;
    std::string cudaDriverLib = "libcuda.so.1", nvmlLib = "libnvidia-ml.so.1",
                cuptiLib = "libcupti.so";
    // Where CUPTI is looked for when dlopen(cuptiLib) does not find it (libsightline-cuda.so
    // finds it through its RUNPATH into the toolkit it was built with, not the loader's path).
    std::vector<std::string> cuptiSearchDirs = {
        "/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/lib64",
        "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/targets/sbsa-linux/lib"};
    // Where libsightline-inject.so / libsightline-cuda.so live; empty: skip those checks.
    std::string injectDir;
    // Open real perf events (cpu-clock, kernel samples, context switches) on this process.
    // Tests that fake procRoot turn this off so results depend on the fake files only.
    bool probePerfEvents = true;
    // Load the NVIDIA libraries (driver, CUPTI, NVML). Off: those checks are not made.
    bool probeNvidia = true;
};

std::vector<EnvironmentCheck> checkEnvironment(const EnvironmentProbe& probe);

// One line per check, "OK   perf_event_paranoid: 2 (...)", "WARN ...", "FAIL ...", followed by
// "     fix: <command>" when there is a fix. Detail lines after the first are indented too.
std::string formatChecks(const std::vector<EnvironmentCheck>& checks);

// [{"id":..,"title":..,"level":"ok"|"warn"|"fail","detail":..,"fix":..,"value":..}, ...]
std::string checksJson(const std::vector<EnvironmentCheck>& checks);

// What `sightline profile` is asked to record.
struct CaptureRequest {
    bool cpuSampling = false, contextSwitches = false, kernelSamples = false, cuda = false,
         gpuMetrics = false;
};

// One-line warnings for the checks that will cost data given the request, e.g.
// "CPU sampling off: perf_event_paranoid is 3; run: sudo sysctl kernel.perf_event_paranoid=1".
// Low disk space and unwritable directories are always reported. Empty: nothing will be lost.
std::vector<std::string> captureWarnings(const std::vector<EnvironmentCheck>& checks,
                                         const CaptureRequest& request);

// The check of one directory a capture writes to, as `status -e` shows it (id "free_space:DIR"):
// it exists, is a directory, takes a new file (a probe file is created and removed, which also
// catches read-only mounts) and has room. `value` is the errno name when it fails, else the free
// bytes. `sightline profile` refuses to start on what it says (PreflightChecks.h).
EnvironmentCheck directoryCheck(const std::string& dir);
// The one line a directory check gives among the capture warnings ("" when it is OK).
std::string directoryWarning(const EnvironmentCheck& check);

// Helpers (exposed for tests and the CLI).
// WARN under 1 GiB, FAIL under 100 MiB.
CheckLevel freeSpaceLevel(uint64_t bytesAvailable);
// $TMPDIR when set and non-empty, else /tmp: where the launcher makes its session directory.
std::string sessionParentDirectory();
const char* levelName(CheckLevel level);  // "ok", "warn", "fail"

}  // namespace sl::capture
