#include "capture/launcher/ReportAssembler.h"

#include "model/core/DiagnosticLevel.h"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <tuple>

#include "capture/launcher/CpuSampler.h"
#include "capture/launcher/PythonStacks.h"
#include "capture/launcher/RankEnvironment.h"
#include "capture/launcher/ProcSampler.h"
#include "capture/launcher/SchedTracer.h"
#include "capture/launcher/SessionMerger.h"
#if SIGHTLINE_HAVE_CUDA_REPORT
#include "capture/cupti/CudaCaptureSession.h"
#include "capture/cupti/CudaStreamMerge.h"
#endif
#include "model/rep/RepWriter.h"
#include "model/util/Format.h"
#include "capture/launcher/HostName.h"

namespace sl::capture {
namespace {

namespace fs = std::filesystem;

std::string cpuModel() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return {};
}

class ProgressBar {
public:
    explicit ProgressBar(bool quiet) : m_show(!quiet && isatty(2)) {}
    void set(double f) {
        int pct = static_cast<int>(f * 100);
        if (!m_show || pct == m_last) return;
        m_last = pct;
        int filled = pct / 5;
        std::fprintf(stderr, "\rsightline: merging [%s%s] %3d%%",
                     std::string(static_cast<size_t>(filled), '#').c_str(),
                     std::string(static_cast<size_t>(20 - filled), '-').c_str(), pct);
        if (pct >= 100) std::fprintf(stderr, "\n");
    }

private:
    bool m_show;
    int m_last = -1;
};

// Windows of the NVTX capture range: the [start, end] of every matching range, in time order.
std::vector<MergeWindow> nvtxWindows(const Report& r, const ProfileOptions& o) {
    std::vector<MergeWindow> out;
    for (const Track& t : r.tracks) {
        if (t.key.kind != EventKind::NvtxRange) continue;
        std::string_view domain = r.domainName(t.key.pid, t.key.domain);
        bool domainOk = o.nvtxDomain.empty() ? t.key.domain == 0
                                             : (o.nvtxDomain == "*" || domain == o.nvtxDomain);
        if (!domainOk) continue;
        for (size_t i = 0; i < t.size(); ++i)
            if (r.str(t.nameAt(i)) == o.nvtxRange) out.push_back({t.start[i], t.endAt(i)});
    }
    std::sort(out.begin(), out.end(),
              [](const MergeWindow& a, const MergeWindow& b) { return a.start < b.start; });
    return out;
}

// What the report of capture window `number` (1-based) of `total` says about its window.
std::string windowNote(const AssemblyInput& in, MergeWindow w, size_t number, size_t total) {
    const ProfileOptions& o = *in.options;
    auto secs = [&](int64_t t) { return static_cast<double>(t - in.startMono) / 1e9; };
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "window %zu of %zu: %.6f s to %.6f s after the session start (%.3f ms)", number,
                  total, secs(w.start), secs(w.end), static_cast<double>(w.end - w.start) / 1e6);
    const std::string range =
        o.captureRange == CaptureRange::CudaProfilerApi
            ? std::string("cudaProfilerStart/Stop capture range")
            : "NVTX capture range '" + o.nvtxRange + (o.nvtxDomain.empty() ? "" : "@" + o.nvtxDomain) +
                  "'";
    return range + ": " + buf + (in.gateUsed ? "; traced only inside the window" : "");
}

std::shared_ptr<Report> buildOne(AssemblyInput& in, const std::vector<std::string>& streams,
                                 MergeWindow window, ProgressBar* bar, uint64_t* events,
                                 const std::string& windowText = {}, int64_t windowNumber = 0) {
    const ProfileOptions& o = *in.options;
    ReportBuilder b;
    if (!windowText.empty()) b.addDiagnostic("capture.range_window", windowNumber, windowText);
    SessionMerger merger(b, window);
    // --python-sampling with native sampling: Python stacks join the native samples.
    PythonStacks pythonStacks;
    const bool joinPython = in.cpuSampler && o.pythonSamplingHz > 0;
    if (joinPython) merger.keepPythonSamples(&pythonStacks);
    if (in.fromKeptSession) merger.endGoneProcesses();
    for (size_t i = 0; i < streams.size(); ++i) {
        Status s = merger.addStream(streams[i]);
        if (!s) b.addDiagnostic("capture.stream_unreadable", 1, s.error());
        if (bar) bar->set(0.6 * static_cast<double>(i + 1) / static_cast<double>(streams.size()));
    }
    merger.rootProcess(in.rootPid, o.command, in.launcherPid, in.startMono);
    merger.setOrphanReaper(in.orphanReaper);
    for (const auto& loss : in.writeLosses) {
        merger.streamWriteFailed(loss.pid);
        const bool full = loss.err == ENOSPC || loss.err == EDQUOT;
        // Its buffers may still hold some of them (a buffer is reused once its block is
        // handed on): those are in the report; gaps in its blocks' sequence are not.
        const std::string fate =
            loss.recovered == 0
                ? "they are lost"
                : std::to_string(loss.recovered) +
                      " blocks its stream lacked were recovered from its buffers; the others "
                      "are lost";
        const bool lost = loss.recovered < loss.blocks;
        b.addDiagnostic("capture.write_failed", static_cast<int64_t>(loss.blocks),
                        "process " + std::to_string(loss.pid) + " could not write " +
                            std::to_string(loss.blocks) + " blocks (" +
                            formatBytes(loss.bytes) + ") of events to the capture's temporary "
                            "directory " + in.sessionDir + " (" + std::strerror(loss.err) +
                            "): " + fate + (full && lost ? "; set TMPDIR to a directory with room" : "") +
                            (loss.err == EFBIG && lost
                                 ? "; the file-size limit (ulimit -f) is smaller than the "
                                   "capture's files: raise it"
                                 : ""),
                        loss.pid);
    }
    for (const auto& [pid, ex] : in.exits) {
        int st = ex.second;
        merger.processExited(pid, ex.first, WIFEXITED(st) ? WEXITSTATUS(st) : 0,
                             WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    }
    // The kernel's view of the tree (with context switches): creators and execs, for processes
    // the streams or the launcher's reaping made known.
    if (in.sched) {
        // In time order: a process forked by one known only from these records comes after it.
        auto forks = in.sched->forks();
        std::stable_sort(forks.begin(), forks.end(),
                         [](const auto& x, const auto& y) { return x.time < y.time; });
        for (const auto& f : forks) merger.processForked(f.pid, f.parentPid, f.time);
        for (const auto& e : in.sched->execs()) merger.processExecd(e.pid, e.name, e.time);
        for (const auto& x : in.sched->exits()) merger.threadExited(x.pid, x.tid, x.time);
    }
    // Launcher-side events first: finish() makes thread rows for every thread-owned track.
    if (in.sampler) in.sampler->addTo(b, 1, window.start, window.end);
    if (in.sched) {
        in.sched->addTo(b, window.start, window.end);
        if (in.sched->lostRecords())
            b.addDiagnostic("sched.records_lost", static_cast<int64_t>(in.sched->lostRecords()),
                            "context-switch records the kernel dropped (ring buffer full)");
    }
    if (in.cpuSampler) {
        pythonStacks.finish();
        // A native sample takes a Python stack at most one Python sampling period and one
        // GIL switch interval (5 ms, Python's default) away: the sampler thread waits for the
        // GIL that a busy thread gives up only every switch interval.
        const int64_t tolerance =
            joinPython ? 1'000'000'000 / o.pythonSamplingHz + 5'000'000 : 0;
        in.cpuSampler->resolved().addTo(b, window.start, window.end, joinPython ? &pythonStacks : nullptr,
                             tolerance);
    }
#if SIGHTLINE_HAVE_CUDA_REPORT
    // CUDA stream files of the module's fallback format (none when it writes through the raw
    // streams), then NVML metrics and the CUDA diagnostics.
    if (auto c = cuda::mergeCudaStreams(in.sessionDir, b); !c)
        b.addDiagnostic("cuda.stream_unreadable", 1, c.error());
    if (in.cuda)
        in.cuda->addToReport(b, window.start, window.end == INT64_MAX ? INT64_MAX : window.end + 1);
#endif
    merger.finish(in.sessionEnd);
    if (!o.pytorch.empty() && merger.pytorchProcesses() == 0)
        b.addDiagnostic("pytorch.not_found", 1,
                        "--pytorch=" + o.pytorch + ": no process of the program imported torch "
                        "(or ran Python with -E, -I or -S): nothing was annotated");
    if (o.traceMpi && merger.stats().mpiEvents == 0)
        b.addDiagnostic("mpi.not_found", 1,
                        "-t mpi: no process of the program made an MPI call (not an MPI program, "
                        "or an MPI other than --mpi-impl=" + o.mpiImpl + ")");
    // -t cublas,cudnn,nccl on a program that never called the library: a note, as for MPI.
    for (auto [on, index, id, label] :
         {std::tuple{o.traceCublas, 0, "cublas", "cuBLAS"}, std::tuple{o.traceCudnn, 1, "cudnn", "cuDNN"},
          std::tuple{o.traceNccl, 2, "nccl", "NCCL"}})
        if (on && merger.stats().cudaLibEvents[index] == 0)
            b.addDiagnostic(std::string(id) + ".not_found", 1,
                            std::string("-t ") + id + ": no process of the program made a " +
                                label + " call (the program does not use " + label + ")");
    if (o.traceOpenmp && merger.stats().openMpEvents == 0) {
        bool noted = false;  // a process on libgomp said why already
        for (const auto& d : b.report().diagnostics) noted |= d.name == "openmp.no_ompt";
        if (!noted)
            b.addDiagnostic("openmp.not_found", 1,
                            "-t openmp: no OpenMP region ran in the program (not an OpenMP "
                            "program, or its runtime did not load the OMPT tool)");
    }
    if (!in.schedProblem.empty()) b.addDiagnostic("sched.unavailable", 1, in.schedProblem);
    if (!in.samplingProblem.empty())
        b.addDiagnostic("sampling.unavailable", 1, in.samplingProblem);
    // -t cuda named on a machine whose kernel has no NVIDIA driver: the program's CUDA calls
    // failed before any could be traced (the driver loads our module), so say why there are no
    // CUDA rows. Not for the default -t, which CPU-only programs and machines use all the time,
    // nor under WSL, whose GPU (/dev/dxg) has no driver in /proc.
    if (o.cudaNamed && b.report().eventCount(EventKind::CudaApi) == 0 &&
        !std::filesystem::exists("/proc/driver/nvidia/version") && !std::filesystem::exists("/dev/dxg"))
        b.addDiagnostic("cuda.no_driver", 1,
                        "-t cuda: this machine has no NVIDIA driver (/proc/driver/nvidia/version "
                        "is absent), so no CUDA call could run or be traced");
    if (in.cudaRequestedButUnavailable)
        b.addDiagnostic("cuda.unavailable", 1,
                        "CUDA tracing was requested but this build has no CUDA capture module");
    if (in.fromKeptSession)
        b.addDiagnostic("capture.from_kept_session", 1,
                        "made after the capture from its kept raw data: CPU samples, CPU "
                        "metrics, context switches and the program's output were held by the "
                        "profiler and are not in this report");
    if (in.detached)
        b.addDiagnostic("capture.program_still_running", 1,
                        (!in.detachedBecause.empty() ? in.detachedBecause
                         : o.waitAll ? std::string("the duration ended with --kill=none")
                                     : std::string("--wait=primary: the program ended")) +
                            ": processes still running then ran on untraced: what they "
                            "recorded until then is in the report, their later events are not");
    // --delay longer than the program: an empty report must say why.
    if (o.delayNs > 0 && in.sessionEnd < in.startMono + o.delayNs)
        b.addDiagnostic("capture.delay_not_reached", 1,
                        "the program ended " +
                            std::to_string((in.sessionEnd - in.startMono) / 1'000'000) +
                            " ms after its start, before --delay (" +
                            std::to_string(o.delayNs / 1'000'000) +
                            " ms) ended: nothing was recorded");

    Report& r = b.report();
    Session& s = r.session;
    s.argv = o.command;
    s.workingDirectory = in.workingDirectory;
    for (const auto& kv : o.env) s.environment.push_back(kv);
    // The rank variables the program inherited from us (not with -n false), unless -e set them.
    if (o.inheritEnvironment)
        for (std::string_view name : kRankVariables) {
            const char* value = std::getenv(std::string(name).c_str());
            const bool given = std::any_of(o.env.begin(), o.env.end(),
                                           [name](const auto& kv) { return kv.first == name; });
            if (value && !given) s.environment.emplace_back(std::string(name), value);
        }
    s.hostName = hostName();
    utsname u{};
    if (uname(&u) == 0) s.os = std::string(u.sysname) + " " + u.release;
    s.cpuModel = cpuModel();
    s.toolVersion = SIGHTLINE_VERSION;
    s.captureOptions = o.optionsText;
    s.source = "capture";
    s.startUtcNs = in.startUtc;
    s.startMonotonicNs = in.startMono;
    s.durationNs = in.sessionEnd - in.startMono;
    for (auto& out : in.output) {
        if (!window.contains(out.time)) continue;
        ProgramOutput p = out;
        p.pid = in.rootPid;
        r.programOutput.push_back(std::move(p));
    }
    auto report = b.finish([bar](double f) {
        if (bar) bar->set(0.6 + 0.3 * f);
    });
    *events = report->eventCount();
    return report;
}

// How the end-of-capture summary shows a diagnostic of the report (DiagnosticLevel.h); "" for
// what the profiler already said while capturing.
std::string_view diagnosticPrefix(std::string_view name) {
    switch (diagnosticLevel(name)) {
        case DiagnosticLevel::Said: return "";
        case DiagnosticLevel::Note: return "note: ";
        case DiagnosticLevel::Warning: break;
    }
    return "warning: ";
}

}  // namespace

Result<std::vector<std::string>> assembleReports(
    AssemblyInput& in, const std::function<void(const std::string&)>& say) {
    const ProfileOptions& o = *in.options;
    std::vector<std::string> streams =
        SessionMerger::listStreams(in.sessionDir, in.arenaDir, in.copiesDir);
    MergeWindow base{in.startMono + o.delayNs, o.durationNs > 0 ? in.sessionEnd : INT64_MAX};
    std::vector<MergeWindow> windows{base};
    if (o.captureRange != CaptureRange::None) {
        if (in.gateUsed && (in.gateWindowsOpened <= in.gateWindows.size() ||
                            o.captureRange == CaptureRange::CudaProfilerApi)) {
            // The windows the traced processes opened: nothing outside them was recorded. A
            // window still open when the program ended closes at the session end.
            windows.clear();
            for (const auto& [start, end] : in.gateWindows)
                windows.push_back({start, end == 0 ? in.sessionEnd : end});
        } else {
            // More windows than the gate keeps times for (or no gate): find them in the data.
            uint64_t ignored = 0;
            auto full = buildOne(in, streams, base, nullptr, &ignored);
            windows = nvtxWindows(*full, o);
        }
        if (windows.empty() && o.captureRange == CaptureRange::CudaProfilerApi)
            return makeError("the capture range never began (no process called "
                             "cudaProfilerStart): no report written");
        if (windows.empty())
            return makeError("the NVTX capture range '" + o.nvtxRange +
                             (o.nvtxDomain.empty() ? "" : "@" + o.nvtxDomain) +
                             "' never occurred: no report written");
        if (!repeats(o.rangeEnd))
            windows.resize(1);
        else if (o.repeatCount > 0 && windows.size() > static_cast<size_t>(o.repeatCount))
            windows.resize(static_cast<size_t>(o.repeatCount));
        for (auto& w : windows) {
            w.start = std::max(w.start, base.start);
            w.end = std::min(w.end, base.end);
        }
    }
    std::vector<std::string> written;
    std::string failure;  // the first window's report that could not be written, and why
    for (size_t i = 0; i < windows.size(); ++i) {
        auto t0 = std::chrono::steady_clock::now();
        ProgressBar bar(o.quiet);
        uint64_t events = 0;
        std::string note;
        if (o.captureRange != CaptureRange::None) {
            note = windowNote(in, windows[i], i + 1, windows.size());
            say(note);
        }
        auto report = buildOne(in, streams, windows[i], &bar, &events, note,
                               static_cast<int64_t>(i) + 1);
        const bool numbered = windows.size() > 1 || repeats(o.rangeEnd);
        std::string path = in.defaultName ? nextDefaultReportName() : in.outputPath;
        if (numbered) path = numberedName(path, static_cast<int>(i) + 1);
        const std::string wanted = path;
        WriteOptions wo;
        // Without -f a file is never replaced, not even one made during the capture (another
        // capture into the same name: `-o run%n` of every rank under mpirun; a user's file): the
        // report takes the next free name instead and says so. Before, the last capture to end
        // replaced the others' reports, each saying it was written.
        wo.overwrite = o.forceOverwrite;
        wo.nextName = [&](int attempt) {
            std::string next;
            if (in.defaultName) {
                next = nextDefaultReportName();
            } else if (numbersItsName(o.output)) {
                auto again = expandOutputPattern(o.output, in.rootPid);
                next = again ? *again : siblingName(in.outputPath, attempt);
            } else {
                next = siblingName(in.outputPath, attempt);
            }
            return numbered ? numberedName(next, static_cast<int>(i) + 1) : next;
        };
        const Status st = failure.empty() ? writeReport(*report, wanted, wo, &path)
                                          : makeError("an earlier report of this capture failed");
        bar.set(1.0);
        if (!st) {
            if (failure.empty()) failure = "writing " + path + ": " + st.error();
            // The report in memory holds what only the profiler had (CPU samples, context
            // switches, metrics, the program's output): written whole beside the raw capture
            // rather than lost with the failed file, this window's and every later one's. A raw
            // capture imported later lacks them. Never over a file there (an import's own
            // report of the session is not the profiler's) and not by an import, which must
            // leave the session as it found it.
            if (!in.sessionDir.empty() && !in.fromKeptSession) {
                const std::string instead =
                    in.sessionDir + "/" + fs::path(path).filename().string();
                WriteOptions here;
                here.nextName = [&](int attempt) { return siblingName(instead, attempt); };
                std::string at;
                if (writeReport(*report, instead, here, &at)) in.writtenInstead.push_back(at);
            }
            continue;
        }
        if (path != wanted && !in.defaultName && !numbersItsName(o.output))
            say("warning: " + wanted + " was made by someone else during the capture (without "
                "-f it is kept): the report is " + path);
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::error_code ec;
        auto size = fs::file_size(path, ec);
        say("merged " + formatCount(events) + " events from " +
            std::to_string(report->processes.size()) + " processes in " +
            std::to_string(static_cast<int>(secs * 1000)) + " ms; report written to " + path +
            " (" + formatBytes(size) + ")");
        for (const auto& d : report->diagnostics) {
            const std::string_view prefix = diagnosticPrefix(d.name);
            if (!prefix.empty())
                say(std::string(prefix) + d.name + " = " + std::to_string(d.count) + ": " + d.reason);
        }
        written.push_back(path);
    }
    if (!failure.empty()) return makeError(failure);
    return written;
}

}  // namespace sl::capture
