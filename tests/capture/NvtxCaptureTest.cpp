// End to end: `sightline profile` on tests/clients/nvtx_threads (structure documented there).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

class NvtxCapture : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = new CaptureDir();
        s_exit = profile(s_dir->file("nvtx.rep"), {}, {client("nvtx_threads")});
        s_report = load(s_dir->file("nvtx.rep"));
    }
    static void TearDownTestSuite() {
        s_report.reset();
        delete s_dir;
    }
    static CaptureDir* s_dir;
    static int s_exit;
    static std::shared_ptr<Report> s_report;
};
CaptureDir* NvtxCapture::s_dir = nullptr;
int NvtxCapture::s_exit = -1;
std::shared_ptr<Report> NvtxCapture::s_report;

TEST_F(NvtxCapture, ExitCodeAndOneProcess) {
    ASSERT_EQ(s_exit, 0);
    ASSERT_TRUE(s_report);
    ASSERT_EQ(s_report->processes.size(), 1u);
    const Process& p = s_report->processes[0];
    EXPECT_EQ(p.name, "nvtx_threads");
    EXPECT_EQ(p.exitCode, 0);
    EXPECT_EQ(p.exitSignal, 0);
    EXPECT_NE(p.end, kUnknownTime);
    EXPECT_EQ(s_report->session.source, "capture");
    EXPECT_EQ(s_report->session.argv, std::vector<std::string>{client("nvtx_threads")});
}

TEST_F(NvtxCapture, ThreadNamesFromSetnameAndNvtx) {
    ASSERT_TRUE(s_report);
    std::set<std::string> names;
    for (const auto& t : s_report->threads) names.insert(t.name);
    for (int i = 0; i < 8; ++i)
        EXPECT_TRUE(names.count((i % 2 ? "nvtx-worker-" : "worker-") + std::to_string(i))) << i;
    EXPECT_TRUE(names.count("nvtx_threads"));
}

TEST_F(NvtxCapture, NestedPushPopCountsAndDepth) {
    ASSERT_TRUE(s_report);
    const Report& r = *s_report;
    for (int level = 0; level < 5; ++level)
        EXPECT_EQ(events(r, EventKind::NvtxRange, "level" + std::to_string(level)).size(), 80u)
            << level;
    // Each worker's default-domain track: 50 nested ranges in exactly 5 lanes (depth 0-4), level<k>
    // on lane k.
    int workerTracks = 0;
    for (const Track& t : r.tracks) {
        if (t.key.kind != EventKind::NvtxRange || t.key.domain != 0 || t.key.tid == t.key.pid)
            continue;
        ++workerTracks;
        EXPECT_EQ(t.laneCount(), 5u);
        for (size_t i = 0; i < t.size(); ++i) {
            std::string n(r.str(t.nameAt(i)));
            if (n.rfind("level", 0) == 0) {
                EXPECT_EQ(t.laneOf(i), static_cast<uint32_t>(n[5] - '0')) << n;
            }
        }
    }
    EXPECT_EQ(workerTracks, 8);
}

TEST_F(NvtxCapture, StartEndAcrossThreads) {
    ASSERT_TRUE(s_report);
    const Report& r = *s_report;
    int64_t pid = r.processes[0].pid;
    std::set<int64_t> endTids;
    for (int i = 0; i < 8; ++i) {
        auto ev = events(r, EventKind::NvtxRange, "cross-" + std::to_string(i));
        ASSERT_EQ(ev.size(), 1u) << i;
        EXPECT_EQ(ev[0].tid, pid);  // started on the main thread
        EXPECT_EQ(ev[0].track->intAt(cols::Nvtx::RangeType, ev[0].index),
                  static_cast<int64_t>(RangeType::StartEnd));
        int64_t endTid = ev[0].track->intAt(cols::Nvtx::EndTid, ev[0].index);
        EXPECT_NE(endTid, 0);
        EXPECT_NE(endTid, pid);
        endTids.insert(endTid);
        EXPECT_GE(ev[0].end, ev[0].start);
    }
    EXPECT_EQ(endTids.size(), 8u);  // each ended by a different worker
}

TEST_F(NvtxCapture, MarksWithCategory) {
    ASSERT_TRUE(s_report);
    const Report& r = *s_report;
    size_t marks = 0;
    for (int i = 0; i < 8; ++i) {
        auto ev = events(r, EventKind::NvtxMark, "mark-" + std::to_string(i));
        EXPECT_EQ(ev.size(), 3u);
        for (const auto& e : ev) EXPECT_EQ(e.track->intAt(cols::Nvtx::Category, e.index), 1);
        marks += ev.size();
    }
    EXPECT_EQ(marks, 24u);
    EXPECT_EQ(events(r, EventKind::NvtxMark).size(), 24u);
    bool compute = false, io = false;
    uint32_t alpha = domainId(r, r.processes[0].pid, "alpha");
    for (const auto& c : r.nvtxCategories) {
        if (c.domainId == 0 && c.category == 1 && c.name == "compute") compute = true;
        if (c.domainId == alpha && c.category == 2 && c.name == "io") io = true;
    }
    EXPECT_TRUE(compute);
    EXPECT_TRUE(io);
}

TEST_F(NvtxCapture, DomainsPayloadsColors) {
    ASSERT_TRUE(s_report);
    const Report& r = *s_report;
    int64_t pid = r.processes[0].pid;
    uint32_t alpha = domainId(r, pid, "alpha"), beta = domainId(r, pid, "beta");
    ASSERT_NE(alpha, UINT32_MAX);
    ASSERT_NE(beta, UINT32_MAX);
    ASSERT_NE(alpha, beta);
    auto u64 = events(r, EventKind::NvtxRange, "payload-u64");
    ASSERT_EQ(u64.size(), 8u);
    std::set<int64_t> values;
    for (const auto& e : u64) {
        EXPECT_EQ(e.domain, alpha);
        EXPECT_EQ(e.track->intAt(cols::Nvtx::PayloadType, e.index),
                  static_cast<int64_t>(PayloadType::U64));
        EXPECT_EQ(static_cast<uint32_t>(e.track->intAt(cols::Nvtx::Color, e.index)), 0xFF00FF00u);
        EXPECT_EQ(e.track->intAt(cols::Nvtx::Category, e.index), 2);
        values.insert(e.track->intAt(cols::Nvtx::Payload, e.index));
    }
    EXPECT_EQ(values, (std::set<int64_t>{1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007}));
    auto check = [&](const char* name, PayloadType type, std::set<int64_t> expected) {
        auto ev = events(r, EventKind::NvtxRange, name);
        ASSERT_EQ(ev.size(), 8u) << name;
        std::set<int64_t> got;
        for (const auto& e : ev) {
            EXPECT_EQ(e.track->intAt(cols::Nvtx::PayloadType, e.index), static_cast<int64_t>(type))
                << name;
            got.insert(e.track->intAt(cols::Nvtx::Payload, e.index));
        }
        EXPECT_EQ(got, expected) << name;
    };
    std::set<int64_t> i64, f64, u32, i32;
    for (int i = 0; i < 8; ++i) {
        i64.insert(-1 - i);
        double d = 0.5 + i;
        int64_t bits;
        std::memcpy(&bits, &d, 8);
        f64.insert(bits);
        u32.insert(7 + i);
        i32.insert(-7 - i);
    }
    float f = 1.25f;
    uint32_t fbits;
    std::memcpy(&fbits, &f, 4);
    check("payload-i64", PayloadType::I64, i64);
    check("payload-f64", PayloadType::F64, f64);
    check("payload-u32", PayloadType::U32, u32);
    check("payload-i32", PayloadType::I32, i32);
    check("payload-f32", PayloadType::F32, {static_cast<int64_t>(fbits)});
    auto registered = events(r, EventKind::NvtxRange, "beta-registered");
    EXPECT_EQ(registered.size(), 16u);
    for (const auto& e : registered) EXPECT_EQ(e.domain, beta);
}

TEST_F(NvtxCapture, TotalsAndKnownSleep) {
    ASSERT_TRUE(s_report);
    const Report& r = *s_report;
    // 400 nested + 1 sleep + 8 cross (default), 48 alpha, 16 beta.
    EXPECT_EQ(events(r, EventKind::NvtxRange).size(), 473u);
    auto sleep = events(r, EventKind::NvtxRange, "sleep-100ms");
    ASSERT_EQ(sleep.size(), 1u);
    int64_t d = sleep[0].end - sleep[0].start;
    EXPECT_GE(d, 100'000'000);
    EXPECT_LT(d, 2'000'000'000);  // loaded 2-core machines are slow, but not that slow
    // The usleep inside it is an OS runtime call of about the same length on the same thread.
    bool found = false;
    for (const auto& e : events(r, EventKind::OsRuntime))
        if (e.tid == sleep[0].tid && e.start >= sleep[0].start && e.end <= sleep[0].end &&
            e.end - e.start >= 99'000'000)
            found = true;
    EXPECT_TRUE(found);
    EXPECT_EQ(diagnostic(r, "nvtx.ranges_dropped"), 0);
    EXPECT_EQ(diagnostic(r, "nvtx.unterminated_ranges"), 0);
    EXPECT_EQ(diagnostic(r, "capture.stream_incomplete"), 0);
}

TEST_F(NvtxCapture, CpuMetricsAndScheduling) {
    ASSERT_TRUE(s_report);
    const Report& r = *s_report;
    bool cpu0 = false, rss = false;
    for (const auto& s : r.metricSeries) {
        if (s.name == "CPU 0 user" && s.source == "proc" && s.unit == "%") cpu0 = true;
        if (s.name == "Process tree resident memory" && s.unit == "bytes") rss = true;
    }
    EXPECT_TRUE(cpu0);
    EXPECT_TRUE(rss);
    if (diagnostic(r, "sched.unavailable") == 0) {
        auto running = events(r, EventKind::ThreadState);
        EXPECT_GT(running.size(), 8u);
        std::set<int64_t> tids;
        for (const auto& e : running) {
            EXPECT_GE(e.end, e.start);
            tids.insert(e.tid);
        }
        EXPECT_TRUE(tids.count(r.processes[0].pid));
    }
}

// Marks made in a SIGALRM handler while the interrupted thread makes its own (every 200 us): a
// handler that came between a record's reserve and commit was given the same space, and the
// two records mixed cut the rest of the buffer off ("mai"; 39,631 of 50,000 marks in 1 of 3
// runs). Every mark of the loop is there; each handler's mark is there or counted as refused.
TEST(NvtxSignalHandler, MarksInAHandlerNeverMixWithTheThreadsOwn) {
    for (int run = 0; run < 3; ++run) {
        SCOPED_TRACE("run " + std::to_string(run));
        CaptureDir dir;
        const std::string out = dir.file("handler.rep");
        int code = 0;
        const std::string text =
            profileNvtxOnly(out, "handler_marks", {"100000", "200"}, &code, {"-q", "true"});
        ASSERT_EQ(code, 0) << text;
        const size_t at = text.find("hits=");
        ASSERT_NE(at, std::string::npos) << text;
        const int hits = std::atoi(text.c_str() + at + 5);
        auto r = load(out);
        ASSERT_TRUE(r);
        std::map<std::string, size_t> byName;
        for (const auto& e : events(*r, EventKind::NvtxMark)) ++byName[e.name];
        EXPECT_EQ(byName["main"], 100000u);
        const int64_t refused = diagnostic(*r, "capture.handler_records_dropped");
        EXPECT_EQ(static_cast<int64_t>(byName["sig"]) + refused, hits);
        EXPECT_EQ(byName.size(), byName.count("sig") ? 2u : 1u) << "no cut or mixed names";
    }
}

// A SIGALRM handler that leaves with siglongjmp, over a loop of marks: one that interrupted a
// mark between its reserve and its commit never returned to it, and the thread's record mark
// stayed set: every later mark was refused (199,372 of 200,000 counted as made in a handler;
// and once the first buffer itself was lost, a jump out of its taking). Every completed mark
// is there now, and none is refused.
TEST(NvtxSignalHandler, AHandlerThatJumpsOutOfARecordLeavesTheThreadRecording) {
    constexpr int kMarks = 200000;
    for (int run = 0; run < 3; ++run) {
        SCOPED_TRACE("run " + std::to_string(run));
        CaptureDir dir;
        const std::string out = dir.file("jumps.rep");
        int code = 0;
        const std::string text = profileNvtxOnly(
            out, "handler_jumps", {std::to_string(kMarks), "100"}, &code, {"-q", "true"});
        ASSERT_EQ(code, 0) << text;
        const size_t at = text.find("jumps=");
        ASSERT_NE(at, std::string::npos) << text;
        const int jumps = std::atoi(text.c_str() + at + 6);
        EXPECT_GT(jumps, 0) << "the timer never fired: nothing was tested";
        auto r = load(out);
        ASSERT_TRUE(r);
        // A mark the jump cut after its commit and before the program counted it is made again.
        const size_t made = events(*r, EventKind::NvtxMark, "jump").size();
        EXPECT_GE(made, static_cast<size_t>(kMarks));
        EXPECT_LE(made, static_cast<size_t>(kMarks + jumps));
        EXPECT_EQ(diagnostic(*r, "capture.handler_records_dropped"), 0);
    }
}

// A handler that forks inside a record of its thread: the child, returning from the handler,
// finishes that record and commits it. It died of SIGSEGV (the commit went through the thread
// state the fork had cleared; and the record's space was the parent's shared buffer, unmapped
// in the child). Now the child lives on and records.
TEST(NvtxSignalHandler, AChildForkedInsideARecordFinishesItAndRecords) {
    CaptureDir dir;
    const std::string out = dir.file("fork.rep");
    int code = 0;
    const std::string text = profileNvtxOnly(out, "fork_in_handler", {}, &code, {"-q", "true"});
    ASSERT_EQ(code, 0) << text;
    EXPECT_NE(text.find("child exited 7"), std::string::npos) << text;
    auto r = load(out);
    ASSERT_TRUE(r);
    const auto child = events(*r, EventKind::NvtxMark, "child");
    ASSERT_EQ(child.size(), 1u);
    const auto parent =
        events(*r, EventKind::NvtxMark, "a-record-interrupted-by-a-handler-that-forks-0123456789");
    ASSERT_EQ(parent.size(), 1u) << "the interrupted record, once: the parent's";
    EXPECT_NE(child[0].pid, parent[0].pid);
}

}  // namespace
}  // namespace sl::test
