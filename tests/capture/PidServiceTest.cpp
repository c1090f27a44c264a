// The launcher's pid service (capture/launcher/PidService.h) answers a process with its pid and
// its parent's as the launcher sees them, at the session directory's socket or, where that path
// is out of reach, at its abstract address; a process that cannot reach it gets no answer (and
// falls back to /proc) instead of waiting.
#include "capture/launcher/PidService.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>
#include <string>

#include "capture/common/PidQuery.h"
#include "tests/capture/CaptureTestUtil.h"

namespace sl::capture {
namespace {

TEST(PidService, AnswersWithThePeersPidAndParent) {
    test::CaptureDir dir;
    PidService service(dir.path());
    ASSERT_TRUE(service.running()) << service.problem();
    struct stat procSelf;
    ASSERT_EQ(lstat("/proc/self", &procSelf), 0);
    EXPECT_EQ(service.procDevice(), std::to_string(static_cast<uint64_t>(procSelf.st_dev)));
    PidAnswer a;
    ASSERT_TRUE(askLauncherForPids(dir.path().c_str(), a));
    EXPECT_EQ(a.pid, getpid());
    EXPECT_EQ(a.parentPid, getppid());
    // A forked child asks for itself: the peer is whoever connected.
    const pid_t child = fork();
    if (child == 0) {
        PidAnswer c;
        _exit(askLauncherForPids(dir.path().c_str(), c) && c.pid == getpid() && c.parentPid == getppid() ? 0 : 1);
    }
    int st = 0;
    ASSERT_EQ(waitpid(child, &st, 0), child);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
    EXPECT_EQ(service.answered(), 2u);
    // Which child, which thread: in our own namespace the innermost pid is the pid itself.
    const pid_t sleeper = fork();
    if (sleeper == 0) {
        pause();
        _exit(0);
    }
    EXPECT_EQ(askLauncherForChild(dir.path().c_str(), sleeper), sleeper);
    EXPECT_EQ(askLauncherForChild(dir.path().c_str(), 999999999), 0);  // not a child of ours
    kill(sleeper, SIGKILL);
    ASSERT_EQ(waitpid(sleeper, &st, 0), sleeper);
    int64_t threadTid = 0, seen = 0;
    std::thread t([&] {
        threadTid = gettid();
        seen = askLauncherForThread(dir.path().c_str(), threadTid);
    });
    t.join();
    EXPECT_EQ(seen, threadTid);
}

TEST(PidService, NoServiceNoAnswerAndNoWait) {
    test::CaptureDir dir;
    PidAnswer a;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(askLauncherForPids(dir.path().c_str(), a));  // no socket
    {
        PidService gone(dir.path());
        ASSERT_TRUE(gone.running());
    }
    EXPECT_FALSE(askLauncherForPids(dir.path().c_str(), a));  // the launcher ended
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(400));
    // A session directory too long for a socket address: the abstract address still answers.
    const std::string deep = dir.path() + "/" + std::string(120, 'd') + "/sightline-session-Ab12Cd";
    PidService tooLong(deep);
    ASSERT_TRUE(tooLong.running()) << tooLong.problem();
    ASSERT_TRUE(askLauncherForPids(deep.c_str(), a));
    EXPECT_EQ(a.pid, getpid());
}

}  // namespace
}  // namespace sl::capture
