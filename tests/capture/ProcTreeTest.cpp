// ProcTree's parent reading (capture/launcher/ProcTree.h): isDescendantOf is what the launcher's
// stop-signal handler asks to tell a signal the traced program sent to its own process group
// from one sent to the profiler, so it must read /proc/<pid>/stat right for any process name
// and say "no" for what is gone or outside the tree.
#include "capture/launcher/ProcTree.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <ctime>

namespace sl::capture {
namespace {

TEST(ProcTree, ParentAndDescendantsThroughAnyProcessName) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t child = fork();
    if (child == 0) {
        // A name with the characters that break naive parsing of /proc/<pid>/stat.
        prctl(PR_SET_NAME, "a) b (c) 1 2", 0, 0, 0);
        const pid_t grandchild = fork();
        if (grandchild == 0) {
            prctl(PR_SET_NAME, ") S 1 )", 0, 0, 0);
            close(ready[0]);
            [[maybe_unused]] ssize_t w = write(ready[1], "g", 1);
            pause();
            _exit(0);
        }
        pause();
        _exit(0);
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    close(ready[0]);
    const auto below = descendantsOf(getpid());
    ASSERT_EQ(below.size(), 2u);
    const int64_t grandchild = below[0] == child ? below[1] : below[0];
    EXPECT_EQ(parentOf(child), getpid());
    EXPECT_EQ(parentOf(grandchild), child);
    EXPECT_TRUE(isDescendantOf(child, getpid()));
    EXPECT_TRUE(isDescendantOf(grandchild, getpid()));
    EXPECT_TRUE(isDescendantOf(grandchild, child));
    EXPECT_FALSE(isDescendantOf(child, grandchild));
    EXPECT_FALSE(isDescendantOf(getpid(), child));
    EXPECT_FALSE(isDescendantOf(getppid(), getpid()));  // our parent is not below us
    EXPECT_FALSE(isDescendantOf(1, getpid()));
    // A zombie keeps its parent until it is reaped; then it is below nothing.
    kill(static_cast<pid_t>(grandchild), SIGKILL);
    kill(child, SIGKILL);
    siginfo_t info{};
    ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
    EXPECT_TRUE(isDescendantOf(child, getpid()));
    int st = 0;
    ASSERT_EQ(waitpid(child, &st, 0), child);
    EXPECT_FALSE(isDescendantOf(child, getpid()));
    EXPECT_EQ(parentOf(child), 0);
}

// An import asks whether a process of a kept session still runs: a zombie does not, nor a
// process whose start is not the one recorded (its pid was taken again since).
TEST(ProcTree, RunsSinceTellsZombiesAndReusedPidsFromRunningProcesses) {
    EXPECT_TRUE(runsSince(getpid(), 0));
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const int64_t nowNs = now.tv_sec * 1'000'000'000ll + now.tv_nsec;
    EXPECT_FALSE(runsSince(getpid(), nowNs + 3'600'000'000'000ll));  // "started" in an hour
    const pid_t child = fork();
    if (child == 0) _exit(0);
    usleep(100000);  // a zombie until waited for
    EXPECT_FALSE(runsSince(child, 0));
    int st;
    waitpid(child, &st, 0);
    EXPECT_FALSE(runsSince(child, 0));
}

}  // namespace
}  // namespace sl::capture
