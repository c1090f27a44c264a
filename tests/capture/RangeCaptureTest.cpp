// End to end: --capture-range=nvtx traces only inside the range (issue #4). The client
// tests/clients/range_client does the same kinds of work before, inside, between and after
// ranges named "window" (its header lists every name and count); these tests check the
// reports, and that the processes wrote nothing from outside the windows in the first place.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "capture/common/Clock.h"
#include "capture/common/GateFile.h"
#include "capture/launcher/SessionMerger.h"
#include "tests/capture/CaptureTestUtil.h"

namespace fs = std::filesystem;

namespace sl::test {
namespace {

size_t count(const Report& r, EventKind kind, const std::string& name) {
    return events(r, kind, name).size();
}
size_t preads(const Report& r) {
    return count(r, EventKind::OsRuntime, "pread") + count(r, EventKind::OsRuntime, "pread64");
}

// Names of work that never happens inside a window (see range_client.cpp).
const char* const kOutside[] = {"before",      "between",        "after",         "child_before",
                                "child_after", "outer",          "se_before",     "se_between",
                                "se_after",    "se_straddle_in", "b_straddle_in", "deep_before"};
const char* const kOutsideMarks[] = {"mark_before", "mark_between", "mark_after"};

Ev only(const Report& r, const std::string& name) {
    auto v = events(r, EventKind::NvtxRange, name);
    EXPECT_EQ(v.size(), 1u) << name;
    return v.empty() ? Ev{} : v.front();
}

// Every event of the thread-owned kinds starts inside [w.start - slack, w.end + slack].
void expectAllInside(const Report& r, const Ev& w, int64_t slack) {
    for (EventKind k : {EventKind::NvtxRange, EventKind::NvtxMark, EventKind::OsRuntime})
        for (const Ev& e : events(r, k)) {
            EXPECT_GE(e.start, w.start - slack) << e.name;
            EXPECT_LE(e.start, w.end + slack) << e.name;
        }
}

// Window 1 of range_client: what must be in its report (and nothing from outside). `slack` 0:
// a report (cut exactly); in raw streams another thread may record a call it starts in the
// nanoseconds while the switch turns (docs/capture.md, Limits), so 1 ms there.
void expectFirstWindow(const Report& r, int64_t slack = 0) {
    const Ev w = only(r, "window");
    EXPECT_EQ(count(r, EventKind::NvtxRange, "inside"), 2u);
    EXPECT_EQ(count(r, EventKind::NvtxMark, "mark_inside"), 2u);
    EXPECT_EQ(count(r, EventKind::NvtxRange, "se_inside"), 1u);
    EXPECT_EQ(count(r, EventKind::NvtxRange, "child_inside"), 4u);
    EXPECT_EQ(count(r, EventKind::NvtxRange, "watcher_work"), 3u);
    EXPECT_EQ(count(r, EventKind::NvtxRange, "deep_inside"), 300u);
    EXPECT_EQ(preads(r), 6u);  // main 2, child_inside 2, watcher 2
    for (const char* n : kOutside) EXPECT_EQ(count(r, EventKind::NvtxRange, n), 0u) << n;
    for (const char* n : kOutsideMarks) EXPECT_EQ(count(r, EventKind::NvtxMark, n), 0u) << n;
    // Begun inside, ended after the window: kept whole.
    for (const char* n : {"se_straddle_out", "b_straddle_out"}) {
        const Ev e = only(r, n);
        EXPECT_GE(e.start, w.start) << n;
        EXPECT_GT(e.end, w.end) << n;
    }
    expectAllInside(r, w, slack);
    // Nesting stayed right across the switch: nothing unpaired, nothing left open.
    EXPECT_EQ(diagnostic(r, "nvtx.unterminated_ranges"), 0);
    EXPECT_EQ(diagnostic(r, "nvtx.unmatched_pops"), 0);
    EXPECT_EQ(diagnostic(r, "nvtx.unmatched_ends"), 0);
    // Processes are always there: main, watcher, and the three children (exit code 7).
    EXPECT_EQ(r.processes.size(), 5u);
    int sevens = 0;
    for (const auto& p : r.processes) sevens += p.exitCode == 7 && p.exitSignal == 0;
    EXPECT_EQ(sevens, 3);
}

std::vector<std::string> rangeOptions(const std::string& end) {
    return {"-t", "nvtx,osrt", "--osrt-threshold",    "0", "--cpuctxsw", "none", "-c", "nvtx",
            "-p", "window",    "--capture-range-end", end};
}

TEST(RangeCapture, StopRecordsOnlyTheFirstWindow) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("s.rep"), rangeOptions("stop"), {client("range_client"), "2"}), 0);
    auto r = load(dir.file("s.rep"));
    ASSERT_TRUE(r);
    expectFirstWindow(*r);
    // Window 2 was not opened: stop means one window.
    EXPECT_EQ(count(*r, EventKind::NvtxRange, "inside"), 2u);
    EXPECT_EQ(diagnostic(*r, "capture.range_window"), 1);
    bool noted = false;
    for (const auto& d : r->diagnostics)
        if (d.name == "capture.range_window")
            noted = d.reason.find("window 1 of 1") != std::string::npos &&
                    d.reason.find("traced only inside the window") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST(RangeCapture, RepeatTwoGivesTwoReports) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("r.rep"), rangeOptions("repeat:2"), {client("range_client"), "3"}),
              0);
    auto r1 = load(dir.file("r.1.rep"));
    auto r2 = load(dir.file("r.2.rep"));
    ASSERT_TRUE(r1);
    ASSERT_TRUE(r2);
    EXPECT_FALSE(fs::exists(dir.file("r.3.rep")));
    expectFirstWindow(*r1);
    EXPECT_EQ(diagnostic(*r1, "capture.range_window"), 1);
    EXPECT_EQ(diagnostic(*r2, "capture.range_window"), 2);
    // Window 2: three of each in the main thread, no child or watcher work, no straddler.
    const Ev w = only(*r2, "window");
    EXPECT_EQ(count(*r2, EventKind::NvtxRange, "inside"), 3u);
    EXPECT_EQ(count(*r2, EventKind::NvtxMark, "mark_inside"), 3u);
    EXPECT_EQ(count(*r2, EventKind::NvtxRange, "se_inside"), 1u);
    EXPECT_EQ(preads(*r2), 3u);
    for (const char* n :
         {"child_inside", "watcher_work", "se_straddle_out", "b_straddle_out", "deep_inside"})
        EXPECT_EQ(count(*r2, EventKind::NvtxRange, n), 0u) << n;
    for (const char* n : kOutside) EXPECT_EQ(count(*r2, EventKind::NvtxRange, n), 0u) << n;
    expectAllInside(*r2, w, 0);
    EXPECT_GT(w.start, only(*r1, "window").end);
}

TEST(RangeCapture, StopShutdownEndsTheProgram) {
    CaptureDir dir;
    auto t0 = std::chrono::steady_clock::now();
    // With "hang" the client sleeps 30 s after window 1: only stop-shutdown ends it sooner.
    EXPECT_EQ(profile(dir.file("ss.rep"), rangeOptions("stop-shutdown"),
                      {client("range_client"), "1", "hang"}),
              128 + 15);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
    auto r = load(dir.file("ss.rep"));
    ASSERT_TRUE(r);
    const Ev w = only(*r, "window");
    EXPECT_EQ(count(*r, EventKind::NvtxRange, "inside"), 2u);
    EXPECT_EQ(count(*r, EventKind::NvtxRange, "child_inside"), 4u);
    EXPECT_EQ(count(*r, EventKind::NvtxRange, "watcher_work"), 3u);
    EXPECT_EQ(preads(*r), 6u);
    for (const char* n : kOutside) EXPECT_EQ(count(*r, EventKind::NvtxRange, n), 0u) << n;
    expectAllInside(*r, w, 0);
}

TEST(RangeCapture, ForkedChildrenFollowTheSwitch) {
    CaptureDir dir;
    auto opts = rangeOptions("stop");
    opts.insert(opts.end(), {"--trace-fork-before-exec", "true"});
    ASSERT_EQ(profile(dir.file("f.rep"), opts, {client("range_client"), "forks"}), 0);
    auto r = load(dir.file("f.rep"));
    ASSERT_TRUE(r);
    const Ev w = only(*r, "window");
    EXPECT_EQ(count(*r, EventKind::NvtxRange, "fork_inside"), 2u);
    EXPECT_EQ(count(*r, EventKind::NvtxRange, "inside"), 2u);
    for (const char* n : {"fork_before", "fork_after", "after"})
        EXPECT_EQ(count(*r, EventKind::NvtxRange, n), 0u) << n;
    EXPECT_EQ(r->processes.size(), 4u);  // the parent and three forked children
    int sevens = 0;
    for (const auto& p : r->processes) sevens += p.exitCode == 7 && p.exitSignal == 0;
    EXPECT_EQ(sevens, 3);
    expectAllInside(*r, w, 0);
}

TEST(RangeCapture, StartEndRangeInANamedDomain) {
    CaptureDir dir;
    auto opts = rangeOptions("stop");
    opts[9] = "window@mydomain";
    ASSERT_EQ(profile(dir.file("d.rep"), opts, {client("range_client"), "domain"}), 0);
    auto r = load(dir.file("d.rep"));
    ASSERT_TRUE(r);
    // The one in "mydomain" (started here, ended by another thread) opened and closed it; the
    // default-domain push and the "other" domain start before it did not.
    auto windows = events(*r, EventKind::NvtxRange, "window");
    ASSERT_EQ(windows.size(), 1u);
    const Ev& w = windows[0];
    EXPECT_EQ(w.domain, domainId(*r, w.pid, "mydomain"));
    EXPECT_EQ(count(*r, EventKind::NvtxRange, "inside"), 3u);
    EXPECT_EQ(count(*r, EventKind::NvtxRange, "before"), 0u);
    EXPECT_EQ(count(*r, EventKind::NvtxRange, "after"), 0u);
    EXPECT_EQ(diagnostic(*r, "nvtx.unmatched_ends"), 0);
    expectAllInside(*r, w, 0);
}

TEST(RangeCapture, RangeThatNeverOccursIsAnError) {
    CaptureDir dir;
    auto opts = rangeOptions("stop");
    opts[9] = "nosuchrange";
    // Its own TMPDIR, to see that no session directory is left: nothing was recorded to keep.
    const std::string tmp = dir.file("tmp");
    fs::create_directory(tmp);
    std::vector<std::string> args = {"/usr/bin/env", "TMPDIR=" + tmp, SIGHTLINE_CLI, "profile",
                                     "-o", dir.file("n.rep")};
    args.insert(args.end(), opts.begin(), opts.end());
    args.insert(args.end(), {client("range_client"), "1"});
    int code = 0;
    const std::string text = runCapturingStdout(args, &code);
    EXPECT_NE(code, 0);
    EXPECT_NE(text.find("never occurred"), std::string::npos) << text;
    EXPECT_EQ(text.find("kept"), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(dir.file("n.rep")));
    EXPECT_TRUE(fs::is_empty(tmp)) << "a session directory was left in " << tmp;
}

TEST(RangeCapture, NeedsNvtxTracing) {
    CaptureDir dir;
    auto opts = rangeOptions("stop");
    opts[1] = "osrt";  // -t osrt: nothing could switch the capture on
    EXPECT_NE(profile(dir.file("t.rep"), opts, {"/bin/touch", dir.file("ran")}), 0);
    EXPECT_FALSE(fs::exists(dir.file("ran")));  // refused before the program started
    EXPECT_FALSE(fs::exists(dir.file("t.rep")));
}

// At the source: the module attached to range_client by hand (no launcher), the gate made by the
// test, the streams merged without any window. Nothing from outside the window was written.
TEST(RangeCapture, NothingOutsideTheWindowIsWritten) {
    CaptureDir dir;
    std::string session = dir.file("session");
    fs::create_directory(session);
    capture::GateFile gate;
    ASSERT_EQ(gate.create(session, 1, false), "");
    std::string lib = std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-inject.so";
    std::string cmd = "env LD_PRELOAD=" + lib + " NVTX_INJECTION64_PATH=" + lib +
                      " SIGHTLINE_SESSION_DIR=" + session +
                      " SIGHTLINE_TRACE=nvtx,osrt SIGHTLINE_OSRT_THRESHOLD_NS=0"
                      " SIGHTLINE_CAPTURE_RANGE=window " +
                      client("range_client") + " 2";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    uint64_t opened = 0;
    auto windows = gate.windows(&opened);
    ASSERT_EQ(opened, 1u);
    ASSERT_EQ(windows.size(), 1u);
    EXPECT_GT(windows[0].end, windows[0].start);

    ReportBuilder b;
    capture::SessionMerger m(b);
    auto streams = capture::SessionMerger::listStreams(session);
    // main, the watcher (a forked child that records nothing before its exec opens no stream
    // for that part), three spawned children
    EXPECT_EQ(streams.size(), 5u);
    for (const auto& s : streams) ASSERT_TRUE(m.addStream(s));
    m.finish(capture::nowNs());
    auto r = b.finish();
    const Ev w = only(*r, "window");
    EXPECT_EQ(w.start, windows[0].start);
    EXPECT_EQ(w.end, windows[0].end);
    EXPECT_EQ(w.pid, windows[0].pid);
    expectFirstWindow(*r, 1'000'000);
}

}  // namespace
}  // namespace sl::test
