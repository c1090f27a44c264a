// The profiler stopped from outside and killed before its report is written: mpirun sends
// SIGTERM to the process group of each rank it started (the profiler and its rank) and SIGKILL
// to all of them as soon as the first has ended, so the first profiler to finish had the others
// killed in the middle of their reports; `timeout -k` and a batch system's grace period do the
// same to a slow one. The report is made by a process out of the job's reach
// (capture/launcher/DetachedFinish.h), whole: it was lost, a `.rep.tmp-PID` file left.
#include <dirent.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "capture/launcher/OrphanReaper.h"
#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

// A child of `parent` that leads a session of its own (the report writer), or 0.
pid_t writerOf(pid_t parent) {
    DIR* d = opendir("/proc");
    if (!d) return 0;
    pid_t found = 0;
    while (dirent* e = readdir(d)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
        if (pid <= 0) continue;
        std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
        std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t close = stat.rfind(')');
        if (close == std::string::npos) continue;
        char state = 0;
        long ppid = 0, pgrp = 0, session = 0;
        if (std::sscanf(stat.c_str() + close + 1, " %c %ld %ld %ld", &state, &ppid, &pgrp, &session) == 4 &&
            ppid == parent && session == pid) {
            found = pid;
            break;
        }
    }
    closedir(d);
    return found;
}

bool waitFor(const std::function<bool()>& done, double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

TEST(KilledProfiler, TheReportIsWrittenWhenTheJobsKillerComesDuringIt) {
    CaptureDir dir;
    const std::string report = dir.file("killed.rep");
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t profiler = fork();
    if (profiler == 0) {
        setpgid(0, 0);  // as mpirun's child: the leader of a group of its own, the rank in it
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        const std::string program = client("flood") + " 1 300000; exec sleep 60";
        execl(SIGHTLINE_CLI, SIGHTLINE_CLI, "profile", "-q", "true", "-o", report.c_str(), "/bin/sh", "-c",
              program.c_str(), static_cast<char*>(nullptr));
        _exit(121);
    }
    setpgid(profiler, profiler);
    close(fds[1]);
    std::string out;
    char buf[256];
    while (out.find("seconds=") == std::string::npos) {  // the ranges are recorded
        const ssize_t n = read(fds[0], buf, sizeof buf);
        ASSERT_GT(n, 0) << out;
        out.append(buf, static_cast<size_t>(n));
    }
    kill(-profiler, SIGTERM);  // the job's stop: the profiler and the program at once
    // Killed as soon as the report is being made: a process making it out of the job's process
    // group, or the report's temporary file, whichever comes first (before, the profiler made
    // it itself, and was killed in the middle of writing it).
    const auto tmpExists = [&] {
        for (const auto& e : std::filesystem::directory_iterator(dir.path()))
            if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
        return false;
    };
    bool writer = false;
    ASSERT_TRUE(waitFor([&] { return (writer = writerOf(profiler) != 0) || tmpExists(); }, 20));
    kill(-profiler, SIGKILL);
    int st = 0;
    waitpid(profiler, &st, 0);
    close(fds[0]);
    ASSERT_TRUE(waitFor([&] { return access(report.c_str(), F_OK) == 0; }, 15))
        << (writer ? "the writer made no report" : "killed while it wrote the report itself: lost");
    auto r = load(report);
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::NvtxRange, "r").size(), 300000u);
    EXPECT_TRUE(waitFor([&] { return !tmpExists(); }, 10)) << "its temporary file was left";
}

// The report made out of reach still names the profiler as the tree's parent: the first
// process's parent, and not the adopter of an orphan, which goes where it would without the
// profiler (a review found the report writer's pid in both).
TEST(KilledProfiler, AReportMadeAfterAStopFromOutsideNamesTheProfilerAsTheTreesParent) {
    CaptureDir dir;
    const std::string report = dir.file("parent.rep");
    const pid_t profiler = fork();
    if (profiler == 0) {
        execl(SIGHTLINE_CLI, SIGHTLINE_CLI, "profile", "-q", "true", "-s", "none", "-o", report.c_str(),
              "/bin/sh", "-c", "(sleep 0.2; exec sleep 30) & exit 0", static_cast<char*>(nullptr));
        _exit(121);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    kill(profiler, SIGTERM);
    int st = 0;
    waitpid(profiler, &st, 0);
    auto r = load(report);
    ASSERT_TRUE(r);
    ASSERT_FALSE(r->processes.empty());
    EXPECT_EQ(r->processes[0].parentPid, profiler);
    ASSERT_EQ(r->reparents.size(), 1u);
    EXPECT_EQ(r->reparents[0].toPid, sl::capture::orphanReaper());
    EXPECT_NE(r->reparents[0].toPid, profiler);
}

}  // namespace
}  // namespace sl::test
