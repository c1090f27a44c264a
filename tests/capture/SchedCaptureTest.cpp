// Context switches with and without CPU sampling: with both on (the default) the sampling events
// carry the switches (CpuSampler::start with the SchedTracer), so the profiler holds one perf event
// per CPU, not two, and every task of the tree inherits half as many; the running periods are
// the same as from the tracer's own events (`-s none`).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

// Profiles a shell that lists the profiler's descriptors into `fds`, then runs `sleep` 20 times.
std::shared_ptr<Report> profileSleeps(const CaptureDir& dir, const std::vector<std::string>& extra,
                                      const std::string& fds) {
    const std::string script = "ls -l /proc/$SIGHTLINE_LAUNCHER_PID/fd >" + fds +
                               "; i=0; while [ $i -lt 20 ]; do sleep 0.002; i=$((i+1)); done";
    const std::string out = dir.file("s" + std::to_string(extra.size()) + ".rep");
    if (profile(out, extra, {"/bin/sh", "-c", script}) != 0) return nullptr;
    return load(out);
}

// The profiler's perf events while the program ran (descriptors to anon_inode:[perf_event]).
int perfEvents(const std::string& listing) {
    std::ifstream in(listing);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) n += line.find("[perf_event]") != std::string::npos;
    return n;
}

// Running periods of each `sleep` process: it runs before and after its nap, so at least two.
void expectEachSleepRanTwice(const Report& r) {
    std::map<int64_t, int> periods;
    for (const auto& p : r.processes)
        if (p.name == "sleep") periods[p.pid] = 0;
    for (const auto& e : events(r, EventKind::ThreadState))
        if (auto it = periods.find(e.pid); it != periods.end()) ++it->second;
    EXPECT_EQ(periods.size(), 20u);
    for (const auto& [pid, n] : periods) EXPECT_GE(n, 2) << "sleep " << pid;
    EXPECT_EQ(diagnostic(r, "sched.records_lost"), 0);
}

TEST(SchedCapture, SamplingEventsCarryTheContextSwitches) {
    CaptureDir dir;
    const std::string fds = dir.file("fds.txt");
    auto r = profileSleeps(dir, {}, fds);
    ASSERT_TRUE(r);
    if (diagnostic(*r, "sampling.unavailable") || diagnostic(*r, "sched.unavailable"))
        GTEST_SKIP() << "perf events are not permitted here";
    const long cpus = sysconf(_SC_NPROCESSORS_CONF);
    const int events = perfEvents(fds);
    EXPECT_GE(events, 1);
    EXPECT_LE(events, cpus) << "one event per CPU (sampling with the switches), not two";
    EXPECT_GT(r->eventCount(EventKind::CpuSample), 0u);
    expectEachSleepRanTwice(*r);
}

TEST(SchedCapture, SwitchesWithoutSamplingComeFromTheirOwnEvents) {
    CaptureDir dir;
    const std::string fds = dir.file("fds.txt");
    auto r = profileSleeps(dir, {"-s", "none"}, fds);
    ASSERT_TRUE(r);
    if (diagnostic(*r, "sched.unavailable")) GTEST_SKIP() << "perf events are not permitted here";
    EXPECT_GE(perfEvents(fds), 1);
    EXPECT_EQ(r->eventCount(EventKind::CpuSample), 0u);
    expectEachSleepRanTwice(*r);
}

}  // namespace
}  // namespace sl::test
