// Capture benchmarks (figures in docs/capture.md):
//   capture_bench calls    NVTX and OS-runtime call costs without any tool and with our module
//                          (runs call_cost twice; the module is attached through the environment)
//                          and with the module but outside a --capture-range window (switch off)
//   capture_bench range [RANGES PERMILLE]
//                          range_client with RANGES push/pop ranges, PERMILLE/1000 of them inside
//                          the capture range "window": stream bytes and time with the switch
//                          (only the window recorded) and without it (everything recorded, as
//                          before the switch existed)
//   capture_bench flood [THREADS RANGES]
//                          THREADS x RANGES NVTX ranges in one process with our module: capture
//                          rate, then the merge of the session into a .rep (merge rate), and the
//                          check that every range is in the report or counted as dropped
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "capture/common/GateFile.h"
#include "capture/launcher/SessionMerger.h"
#include "model/rep/RepWriter.h"

namespace fs = std::filesystem;

namespace {

// CPU time of this process (user + system), for figures that stay meaningful on a shared machine.
double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

std::map<std::string, double> runAndParse(const std::string& cmd) {
    std::map<std::string, double> out;
    FILE* f = popen(cmd.c_str(), "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char* eq = std::strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        out[line] = std::atof(eq + 1);
    }
    if (f) pclose(f);
    return out;
}

std::string withModule(const std::string& session) {
    std::string lib = std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-inject.so";
    return "env LD_PRELOAD=" + lib + " NVTX_INJECTION64_PATH=" + lib +
           " SIGHTLINE_SESSION_DIR=" + session +
           " SIGHTLINE_TRACE=nvtx,osrt SIGHTLINE_OSRT_THRESHOLD_NS=1000 ";
}

std::string makeSession() {
    std::string tmpl = (fs::temp_directory_path() / "sightline-bench-XXXXXX").string();
    return mkdtemp(tmpl.data());
}

// A session whose capture switch stays off: a gate file and a range no call ever names.
std::string withSwitchOff(const std::string& session, sl::capture::GateFile& gate) {
    if (std::string e = gate.create(session, 1, false); !e.empty())
        std::fprintf(stderr, "%s\n", e.c_str());
    return withModule(session) + "SIGHTLINE_CAPTURE_RANGE=sightline-bench-never ";
}

uint64_t streamBytes(const std::string& session) {
    uint64_t bytes = 0;
    for (const auto& f : sl::capture::SessionMerger::listStreams(session))
        bytes += fs::file_size(f);
    return bytes;
}

int calls() {
    std::string session = makeSession(), offSession = makeSession();
    sl::capture::GateFile gate;
    const std::string off = withSwitchOff(offSession, gate);
    const std::string bin = SIGHTLINE_CALL_COST;
    auto nvtxPlain = runAndParse(bin + " nvtx");
    auto nvtxTool = runAndParse(withModule(session) + bin + " nvtx");
    auto nvtxOff = runAndParse(off + bin + " nvtx");
    auto osrtPlain = runAndParse(bin + " osrt");
    auto osrtTool = runAndParse(withModule(session) + bin + " osrt");
    auto osrtOff = runAndParse(off + bin + " osrt");
    std::printf("stream bytes written with the switch off: %llu\n",
                static_cast<unsigned long long>(streamBytes(offSession)));
    fs::remove_all(session);
    fs::remove_all(offSession);
    std::printf("NVTX push/pop/mark, median ns per call (batches of 1000):\n");
    std::printf("  without any tool:    push %.1f, pop %.1f, mark %.1f\n",
                nvtxPlain["nvtx_push_ns"], nvtxPlain["nvtx_pop_ns"], nvtxPlain["nvtx_mark_ns"]);
    std::printf("  with sightline:      push %.1f, pop %.1f, mark %.1f\n", nvtxTool["nvtx_push_ns"],
                nvtxTool["nvtx_pop_ns"], nvtxTool["nvtx_mark_ns"]);
    std::printf("  with sightline, outside the capture range (switch off): push %.1f, pop %.1f, "
                "mark %.1f\n",
                nvtxOff["nvtx_push_ns"], nvtxOff["nvtx_pop_ns"], nvtxOff["nvtx_mark_ns"]);
    std::printf("OS runtime calls under the 1000 ns threshold, median ns:\n");
    std::printf("  pthread_mutex_lock+unlock: %.1f without, %.1f with (added %.1f)\n",
                osrtPlain["mutex_lock_unlock_ns"], osrtTool["mutex_lock_unlock_ns"],
                osrtTool["mutex_lock_unlock_ns"] - osrtPlain["mutex_lock_unlock_ns"]);
    std::printf("  read(/dev/zero, 1 byte):   %.1f without, %.1f with (added %.1f)\n",
                osrtPlain["read_dev_zero_ns"], osrtTool["read_dev_zero_ns"],
                osrtTool["read_dev_zero_ns"] - osrtPlain["read_dev_zero_ns"]);
    std::printf("  switch off: mutex %.1f (added %.1f), read %.1f (added %.1f)\n",
                osrtOff["mutex_lock_unlock_ns"],
                osrtOff["mutex_lock_unlock_ns"] - osrtPlain["mutex_lock_unlock_ns"],
                osrtOff["read_dev_zero_ns"],
                osrtOff["read_dev_zero_ns"] - osrtPlain["read_dev_zero_ns"]);
    return 0;
}

int range(long ranges, long permille) {
    const std::string args = std::string(" ") + SIGHTLINE_RANGE_CLIENT + " bench " +
                             std::to_string(ranges) + " " + std::to_string(permille);
    auto run = [&](bool withSwitch) {
        std::string session = makeSession();
        sl::capture::GateFile gate;
        std::string env = withModule(session);
        if (withSwitch) {
            if (std::string e = gate.create(session, 1, false); !e.empty())
                std::fprintf(stderr, "%s\n", e.c_str());
            env += "SIGHTLINE_CAPTURE_RANGE=window ";
        }
        auto t0 = std::chrono::steady_clock::now();
        int rc = std::system((env + args).c_str());
        double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        uint64_t bytes = streamBytes(session);
        std::printf("%-42s %10llu stream bytes (%.2f MiB), %.3f s wall%s\n",
                    withSwitch ? "switch (only the window recorded):"
                               : "no switch (everything recorded, as before):",
                    static_cast<unsigned long long>(bytes), bytes / 1048576.0, secs,
                    rc == 0 ? "" : " (client FAILED)");
        fs::remove_all(session);
    };
    std::printf("%ld NVTX push/pop ranges, %ld of them inside the capture range:\n", ranges,
                ranges * permille / 1000);
    run(false);
    run(true);
    return 0;
}

int flood(int threads, long ranges) {
    std::string session = makeSession();
    auto out = runAndParse(withModule(session) + SIGHTLINE_FLOOD + " " + std::to_string(threads) +
                           " " + std::to_string(ranges));
    double secs = out["seconds"];
    long total = static_cast<long>(threads) * ranges;
    uint64_t bytes = 0;
    for (const auto& f : sl::capture::SessionMerger::listStreams(session))
        bytes += fs::file_size(f);
    std::printf(
        "capture: %d threads x %ld ranges = %ld ranges (%ld NVTX calls) in %.3f s: %.2f M "
        "ranges/s, %.2f M calls/s; "
        "%.1f MiB of streams\n",
        threads, ranges, total, 2 * total, secs, total / secs / 1e6, 2 * total / secs / 1e6,
        bytes / 1048576.0);

    double c0 = cpuSeconds();
    auto t0 = std::chrono::steady_clock::now();
    sl::ReportBuilder b;
    sl::capture::SessionMerger m(b);
    for (const auto& f : sl::capture::SessionMerger::listStreams(session))
        if (auto s = m.addStream(f); !s) std::fprintf(stderr, "%s\n", s.error().c_str());
    m.finish(0);
    auto t1 = std::chrono::steady_clock::now();
    auto report = b.finish();
    auto t2 = std::chrono::steady_clock::now();
    std::string rep = session + "/flood.rep";
    sl::Status st = sl::writeReport(*report, rep);
    auto t3 = std::chrono::steady_clock::now();
    double cpu = cpuSeconds() - c0;
    if (!st) std::fprintf(stderr, "%s\n", st.error().c_str());
    auto d = [](auto a, auto z) { return std::chrono::duration<double>(z - a).count(); };
    uint64_t events = report->eventCount(sl::EventKind::NvtxRange);
    int64_t dropped = report->diagnosticCount("nvtx.ranges_dropped");
    std::printf(
        "merge: %llu ranges: read+pair %.3f s, sort+index %.3f s, write .rep %.3f s; total %.3f s "
        "= %.2f M events/s "
        "(%.1f MiB report)\n",
        static_cast<unsigned long long>(events), d(t0, t1), d(t1, t2), d(t2, t3), d(t0, t3),
        events / d(t0, t3) / 1e6, fs::file_size(rep) / 1048576.0);
    std::printf("merge CPU time: %.3f s (all threads) = %.2f M events per CPU second\n", cpu,
                events / cpu / 1e6);
    std::printf("accounting: %llu in the report + %lld counted as dropped = %llu of %ld: %s\n",
                static_cast<unsigned long long>(events), static_cast<long long>(dropped),
                static_cast<unsigned long long>(events + static_cast<uint64_t>(dropped)), total,
                events + static_cast<uint64_t>(dropped) == static_cast<uint64_t>(total)
                    ? "exact"
                    : "MISMATCH");
    fs::remove_all(session);
    return events + static_cast<uint64_t>(dropped) == static_cast<uint64_t>(total) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::string what = argc > 1 ? argv[1] : "calls";
    if (what == "calls") return calls();
    if (what == "range")
        return range(argc > 2 ? std::atol(argv[2]) : 1000000, argc > 3 ? std::atol(argv[3]) : 10);
    if (what == "flood")
        return flood(argc > 2 ? std::atoi(argv[2]) : 64, argc > 3 ? std::atol(argv[3]) : 100000);
    std::fprintf(stderr,
                 "usage: capture_bench calls | range [RANGES PERMILLE] | flood [THREADS RANGES]\n");
    return 2;
}
