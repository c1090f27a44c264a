// The rows of processes and threads say when each lived and what it was called (issue #15),
// for the cases a user's report got wrong: a forked child's late first record, an exec from a
// thread that is not the main one, a main thread renamed through /proc, a child of a raw clone3.
// Each runs the real `sightline profile` on tests/clients/thread_rows.
#include <gtest/gtest.h>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

const Thread* threadOf(const Report& r, int64_t pid, int64_t tid) {
    for (const auto& t : r.threads)
        if (t.pid == pid && t.tid == tid) return &t;
    return nullptr;
}

std::shared_ptr<Report> profiled(const CaptureDir& dir, const std::string& mode, int code) {
    const int exit = profile(dir.file(mode + ".rep"), {"-s", "none"}, {client("thread_rows"), mode});
    EXPECT_EQ(exit, code) << mode;
    return load(dir.file(mode + ".rep"));
}

// The child's thread row began at its first record (150 ms late), after its own calls.
TEST(ThreadRows, ForkedChildsThreadStartsAtTheFork) {
    CaptureDir dir;
    auto r = profiled(dir, "fork-late", 0);
    ASSERT_TRUE(r);
    const auto ranges = events(*r, EventKind::NvtxRange, "child-late-range");
    ASSERT_EQ(ranges.size(), 1u);
    const Thread* t = threadOf(*r, ranges[0].pid, ranges[0].pid);
    ASSERT_NE(t, nullptr);
    EXPECT_LE(t->start, ranges[0].start - 100'000'000) << "the child's row starts at its range";
    const Process* p = processWithExit(*r, 3);
    ASSERT_NE(p, nullptr);
    EXPECT_LE(t->start - p->start, 20'000'000);
}

// The kernel's exit of the old main thread at the exec ended the row of the main thread's id,
// which the new image goes on under; the thread that exec'd had no end.
TEST(ThreadRows, ExecFromAThreadKeepsTheMainThreadsRowForTheNewImage) {
    CaptureDir dir;
    auto r = profiled(dir, "exec-from-thread", 4);
    ASSERT_TRUE(r);
    const auto later = events(*r, EventKind::NvtxRange, "new-image-range");
    const auto before = events(*r, EventKind::NvtxRange, "main-range");
    ASSERT_EQ(later.size(), 1u);
    ASSERT_EQ(before.size(), 1u);
    const int64_t pid = later[0].pid;
    EXPECT_EQ(later[0].tid, pid);
    const Thread* main = threadOf(*r, pid, pid);
    ASSERT_NE(main, nullptr);
    EXPECT_LE(main->start, before[0].start);
    EXPECT_GE(main->end, later[0].end);
    bool execerEnds = false;
    for (const auto& t : r->threads)
        if (t.pid == pid && t.tid != pid && t.name == "execer")
            execerEnds = t.end != kUnknownTime && t.end <= later[0].start;
    EXPECT_TRUE(execerEnds);
}

// A write to /proc/self/comm passes no interposer, and the main thread records no end of its
// own: the row kept the program's name.
TEST(ThreadRows, MainThreadRenamedThroughProcHasItsName) {
    CaptureDir dir;
    auto r = profiled(dir, "comm-main", 0);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->processes.size(), 1u);
    const Thread* t = threadOf(*r, r->processes[0].pid, r->processes[0].pid);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->name, "renamed-main");
}

// The child of a raw clone3 runs its parent's image until it execs; it had no name at all and
// was counted untraced with the one cause that was not used.
TEST(ThreadRows, ChildOfARawClone3HasItsParentsName) {
    CaptureDir dir;
    auto r = profiled(dir, "raw-clone3", 0);
    ASSERT_TRUE(r);
    const Process* child = processWithExit(*r, 14);
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->name, "thread_rows");
    EXPECT_NE(untracedReason(*r).find("clone3"), std::string::npos) << untracedReason(*r);
}

// Threads still alive when main returns die with the process without recording an end, and
// those not yet scheduled record nothing: with context switches off they were missing, with
// them on they were nameless rows without times, and the others had no end.
TEST(ThreadRows, ThreadsAliveAtTheExitEndWithTheirProcessUnderTheirNames) {
    CaptureDir dir;
    for (const bool switches : {false, true}) {
        SCOPED_TRACE(switches ? "context switches" : "no context switches");
        const std::string rep = dir.file(switches ? "sw.rep" : "nosw.rep");
        std::vector<std::string> options{"-s", "none"};
        if (!switches) options.insert(options.end(), {"--cpuctxsw", "none"});
        ASSERT_EQ(profile(rep, options, {client("thread_rows"), "alive-at-exit"}), 0);
        auto r = load(rep);
        ASSERT_TRUE(r);
        ASSERT_EQ(r->processes.size(), 1u);
        const Process& p = r->processes[0];
        int sleepers = 0, others = 0;
        for (const auto& t : r->threads) {
            if (t.pid != p.pid) continue;
            (t.name == "sleeper" ? sleepers : others) += 1;
            if (t.tid == p.pid) continue;
            EXPECT_EQ(t.name == "sleeper" || t.name == "thread_rows", true) << t.name;
            EXPECT_NE(t.start, kUnknownTime) << t.tid;
            EXPECT_NE(t.end, kUnknownTime) << t.tid;
        }
        EXPECT_EQ(sleepers, 4);
        EXPECT_EQ(others, 3);  // main and the two that may never have run
    }
}

// An exec ends the other threads while the process goes on: they ended with the new image
// (hundreds of milliseconds late) before, found by a review.
TEST(ThreadRows, ThreadsAliveAtAnExecEndAtTheExec) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("x.rep"), {"-s", "none", "--cpuctxsw", "none"},
                      {client("thread_rows"), "exec-with-threads"}),
              4);
    auto r = load(dir.file("x.rep"));
    ASSERT_TRUE(r);
    const auto later = events(*r, EventKind::NvtxRange, "new-image-range");
    ASSERT_EQ(later.size(), 1u);
    int sleepers = 0;
    for (const auto& t : r->threads) {
        if (t.name != "sleeper") continue;
        ++sleepers;
        EXPECT_NE(t.end, kUnknownTime);
        EXPECT_LT(t.end, later[0].start) << "ended with the new image, not at the exec";
    }
    EXPECT_EQ(sleepers, 2);
}

// OS runtime calls still blocked when their process ended or their thread was cancelled were
// not recorded at all (a call is recorded as it returns): the threads showed as idle.
TEST(ThreadRows, CallsStillBlockedAtTheEndAreRecordedAndCounted) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("x.rep"), {"-s", "none"}, {client("blocked_calls"), "exit"}), 0);
    auto r = load(dir.file("x.rep"));
    ASSERT_TRUE(r);
    for (const char* call : {"read", "pthread_mutex_lock"}) {
        const auto calls = events(*r, EventKind::OsRuntime, call);
        bool blocked = false;
        for (const auto& c : calls) blocked = blocked || c.end - c.start >= 150'000'000;
        EXPECT_TRUE(blocked) << call << ": " << calls.size() << " calls";
    }
    EXPECT_EQ(diagnostic(*r, "osrt.calls_unfinished"), 2);

    ASSERT_EQ(profile(dir.file("c.rep"), {"-s", "none"}, {client("blocked_calls"), "cancel"}), 0);
    auto c = load(dir.file("c.rep"));
    ASSERT_TRUE(c);
    const auto sleeps = events(*c, EventKind::OsRuntime, "sleep");
    ASSERT_EQ(sleeps.size(), 1u);
    EXPECT_GE(sleeps[0].end - sleeps[0].start, 80'000'000);
    EXPECT_LT(sleeps[0].end - sleeps[0].start, 2'000'000'000);
    EXPECT_EQ(diagnostic(*c, "osrt.calls_unfinished"), 1);
}

}  // namespace
}  // namespace sl::test
