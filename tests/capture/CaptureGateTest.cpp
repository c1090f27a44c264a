// The capture switch of --capture-range=nvtx (capture/common/GateState.h): the launcher's
// GateFile and a process's CaptureGate over one shared file, without any traced program.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "capture/common/CaptureGate.h"
#include "capture/common/GateFile.h"
#include "tests/capture/CaptureTestUtil.h"

namespace sl::capture {
namespace {

// Each case runs in a forked child: CaptureGate's mapping is per process and never undone.
template <class F>
void inChild(F body) {
    pid_t pid = fork();
    if (pid == 0) {
        body();
        _exit(::testing::Test::HasFailure() ? 1 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 0);
}

TEST(CaptureGate, AlwaysOnWithoutAGateFile) {
    test::CaptureDir dir;
    inChild([&] {
        EXPECT_FALSE(CaptureGate::attach(dir.path().c_str()));
        EXPECT_FALSE(CaptureGate::present());
        EXPECT_TRUE(CaptureGate::isOn());
        EXPECT_TRUE(CaptureGate::covers(12345));
        int64_t t = 0;
        EXPECT_EQ(CaptureGate::tryOpen(1, &t), 0u);
    });
}

TEST(CaptureGate, StopOpensOneWindow) {
    test::CaptureDir dir;
    GateFile gate;
    ASSERT_EQ(gate.create(dir.path(), 1, true), "");
    EXPECT_NE(gate.create(dir.path(), 1, true), "");  // exists already: a clear error
    inChild([&] {
        ASSERT_TRUE(CaptureGate::attach(dir.path().c_str()));
        EXPECT_TRUE(CaptureGate::shutdownAtEnd());
        EXPECT_FALSE(CaptureGate::isOn());
        EXPECT_FALSE(CaptureGate::covers(100));
        int64_t t1 = 0, t2 = 0;
        ASSERT_EQ(CaptureGate::tryOpen(42, &t1), 1u);
        EXPECT_GT(t1, 0);
        EXPECT_TRUE(CaptureGate::isOn());
        EXPECT_EQ(CaptureGate::tryOpen(43, &t2), 0u);  // one is open
        EXPECT_TRUE(CaptureGate::covers(t1));
        EXPECT_TRUE(CaptureGate::covers(t1 + 1'000'000'000));  // open: no end yet
        EXPECT_FALSE(CaptureGate::covers(t1 - 1));
        EXPECT_FALSE(CaptureGate::close(2, t1 + 10));  // not the open window
        EXPECT_TRUE(CaptureGate::close(1, t1 + 10));
        EXPECT_FALSE(CaptureGate::close(1, t1 + 20));  // idempotent
        EXPECT_FALSE(CaptureGate::isOn());
        EXPECT_TRUE(CaptureGate::covers(t1 + 10));
        EXPECT_FALSE(CaptureGate::covers(t1 + 11));
        EXPECT_EQ(CaptureGate::tryOpen(42, &t2), 0u);  // stop: over
    });
    uint64_t opened = 0;
    auto w = gate.windows(&opened);  // the launcher sees what the child did
    ASSERT_EQ(opened, 1u);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].end - w[0].start, 10);
    EXPECT_EQ(w[0].pid, 42);
}

// cudaProfilerStart in two processes (two ranks): the window is held by both and closes at the
// last one's stop. With one window per stop, the second rank's start opened nothing and its work
// after the first rank's stop was dropped (found by a review).
TEST(CaptureGate, JoinedWindowClosesAtTheLastHoldersLeave) {
    test::CaptureDir dir;
    GateFile gate;
    ASSERT_EQ(gate.create(dir.path(), 1, false), "");
    inChild([&] {
        ASSERT_TRUE(CaptureGate::attach(dir.path().c_str()));
        int64_t t1 = 0, t2 = 0, t3 = 0;
        ASSERT_EQ(CaptureGate::join(10, &t1), 1u);
        ASSERT_EQ(CaptureGate::join(11, &t2), 1u);  // the same window, a second holder
        EXPECT_FALSE(CaptureGate::leave(1, t2 + 5));  // one holder left: still open
        EXPECT_TRUE(CaptureGate::isOn());
        EXPECT_TRUE(CaptureGate::covers(t2 + 1'000'000));
        EXPECT_TRUE(CaptureGate::leave(1, t2 + 50));  // the last: closed
        EXPECT_FALSE(CaptureGate::isOn());
        EXPECT_FALSE(CaptureGate::leave(1, t2 + 60));
        EXPECT_EQ(CaptureGate::join(12, &t3), 0u);  // stop: over
    });
    uint64_t opened = 0;
    auto w = gate.windows(&opened);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].pid, 10);
    EXPECT_GT(w[0].end, w[0].start);
}

TEST(CaptureGate, RepeatTwoAcrossProcesses) {
    test::CaptureDir dir;
    GateFile gate;
    ASSERT_EQ(gate.create(dir.path(), 2, false), "");
    // Window 1 opened by one process, closed by it; window 2 by another; then over.
    for (int64_t pid : {7, 8})
        inChild([&] {
            ASSERT_TRUE(CaptureGate::attach(dir.path().c_str()));
            EXPECT_FALSE(CaptureGate::shutdownAtEnd());
            int64_t t = 0;
            uint32_t n = CaptureGate::tryOpen(pid, &t);
            EXPECT_EQ(n, static_cast<uint32_t>(pid - 6));
            EXPECT_TRUE(CaptureGate::close(n, t + 5));
        });
    inChild([&] {
        ASSERT_TRUE(CaptureGate::attach(dir.path().c_str()));
        int64_t t = 0;
        EXPECT_EQ(CaptureGate::tryOpen(9, &t), 0u);
        EXPECT_FALSE(CaptureGate::isOn());
    });
    uint64_t opened = 0;
    auto w = gate.windows(&opened);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(opened, 2u);
    EXPECT_EQ(w[0].pid, 7);
    EXPECT_EQ(w[1].pid, 8);
    EXPECT_LE(w[0].end, w[1].start);
}

TEST(CaptureGate, DamagedFileIsNotUsed) {
    test::CaptureDir dir;
    {
        FILE* f = std::fopen(dir.file(kGateFileName).c_str(), "w");
        ASSERT_TRUE(f);
        std::fputs("not a gate", f);
        std::fclose(f);
    }
    inChild([&] {
        EXPECT_FALSE(CaptureGate::attach(dir.path().c_str()));
        EXPECT_TRUE(CaptureGate::isOn());
    });
}

}  // namespace
}  // namespace sl::capture
