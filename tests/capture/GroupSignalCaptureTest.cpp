// A signal sent to the profiler's whole process group from outside (`kill -TERM -- -PGID`, a
// supervisor's stop-as-group, a batch system stopping every process of a job) reaches the
// program once, as without the profiler; one sent to the profiler alone is still sent on.
// Before, the profiler sent on every stop signal it had from outside, so a group signal ran the
// program's handlers twice (a second SIGTERM in a checkpoint-on-SIGTERM clean-up; a one-shot
// handler's second signal killed the program).
#include <gtest/gtest.h>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

struct Step {
    int afterMs;
    int sig;
    bool toGroup;  // kill(-pgid): the whole group the command leads
};

// Runs args as the leader of a process group of its own, sending `steps` in turn; returns the
// wait status, with what it printed (stdout and stderr) in *output.
int runAsGroup(const std::vector<std::string>& args, const std::vector<Step>& steps, std::string* output) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        std::vector<char*> argv;
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(121);
    }
    setpgid(pid, pid);  // before the first signal, whichever of the two runs first
    close(fds[1]);
    for (const Step& s : steps) {
        usleep(static_cast<useconds_t>(s.afterMs) * 1000);
        kill(s.toGroup ? -pid : pid, s.sig);
    }
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (output) *output = out;
    return st;
}

std::vector<std::string> profiled(const CaptureDir& dir, const std::string& name,
                                  const std::vector<std::string>& program) {
    std::vector<std::string> args = {SIGHTLINE_CLI, "profile", "-o", dir.file(name)};
    args.insert(args.end(), program.begin(), program.end());
    return args;
}

TEST(GroupSignal, SigtermToTheWholeGroupRunsEachHandlerOnce) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGTERM), "2.5", "2"};
    std::string out;
    int st = runAsGroup(program, {{1000, SIGTERM, true}}, &out);
    ASSERT_EQ(exitCodeOf(st), 1) << "without the profiler: " << out;
    ASSERT_NE(out.find("TERM counts: 1 1 1"), std::string::npos) << out;
    st = runAsGroup(profiled(dir, "group.rep", program), {{1200, SIGTERM, true}}, &out);
    EXPECT_EQ(exitCodeOf(st), 1) << out;
    EXPECT_NE(out.find("TERM counts: 1 1 1"), std::string::npos) << out;
    EXPECT_NE(out.find("not sent a second one"), std::string::npos) << out;
    auto r = load(dir.file("group.rep"));
    ASSERT_TRUE(r) << out;
    EXPECT_EQ(r->processes.size(), 3u);
}

// A program that takes the signal by waiting for it (sigtimedwait: a server's signal thread,
// Python's signal.sigwait) runs no handler: the wait notes it on the board, and it has the
// group's copy once (twice before).
TEST(GroupSignal, AProgramThatWaitsForTheSignalHasTheGroupsCopyOnce) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGTERM), "2.5", "2",
                                              "sigwait"};
    std::string out;
    ASSERT_EQ(exitCodeOf(runAsGroup(program, {{1000, SIGTERM, true}}, &out)), 1) << out;
    ASSERT_NE(out.find("TERM counts: 1 1 1"), std::string::npos) << "without the profiler: " << out;
    const int st = runAsGroup(profiled(dir, "sigwait.rep", program), {{1200, SIGTERM, true}}, &out);
    EXPECT_EQ(exitCodeOf(st), 1) << out;
    EXPECT_NE(out.find("TERM counts: 1 1 1"), std::string::npos) << out;
}

// signal(2)'s handler, SIGINT and SIGHUP: the same.
TEST(GroupSignal, OtherStopSignalsAndPlainHandlersToo) {
    CaptureDir dir;
    for (int sig : {SIGINT, SIGHUP}) {
        std::string out;
        const std::vector<std::string> program = {client("signal_count"), std::to_string(sig), "2", "0", "signal"};
        const int st = runAsGroup(profiled(dir, "stop" + std::to_string(sig) + ".rep", program),
                                  {{1000, sig, true}}, &out);
        EXPECT_EQ(exitCodeOf(st), 1) << "signal " << sig << ": " << out;
    }
}

// SA_RESETHAND: the handler runs once and the default comes back; a second copy ended the
// program by SIGTERM.
TEST(GroupSignal, OneShotHandlerSurvivesAGroupSignal) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGTERM), "2", "0", "oneshot"};
    std::string out;
    const int st = runAsGroup(profiled(dir, "oneshot.rep", program), {{1000, SIGTERM, true}}, &out);
    EXPECT_EQ(exitCodeOf(st), 1) << out;
    auto r = load(dir.file("oneshot.rep"));
    ASSERT_TRUE(r) << out;
    EXPECT_EQ(r->processes[0].exitCode, 1);
    EXPECT_EQ(r->processes[0].exitSignal, 0);
}

// Sent to the profiler alone, the program's first process gets it from the profiler, as it
// would without the profiler; its children do not (they went on to their end, and the first
// process waited for them).
TEST(GroupSignal, SigtermToTheProfilerAloneGoesToTheFirstProcess) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGTERM), "2.5", "2"};
    std::string out;
    ASSERT_EQ(exitCodeOf(runAsGroup(program, {{1000, SIGTERM, false}}, &out)), 1) << out;
    ASSERT_NE(out.find("TERM counts: 1 0 0"), std::string::npos) << "without the profiler: " << out;
    const int st = runAsGroup(profiled(dir, "alone.rep", program), {{1200, SIGTERM, false}}, &out);
    EXPECT_EQ(exitCodeOf(st), 1) << out;
    EXPECT_NE(out.find("TERM counts: 1 0 0"), std::string::npos) << out;
    EXPECT_EQ(out.find("not sent a second one"), std::string::npos) << out;
}

// A supervisor that stops its workers in its own order (tells them to finish their job and
// waits) keeps that order: the profiler sent SIGTERM to every process at once, and the workers,
// which keep the default disposition, were killed mid-job.
TEST(GroupSignal, SigtermToTheProfilerLeavesTheWorkersToTheirSupervisor) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGTERM), "10", "2",
                                              "supervisor"};
    std::string out;
    ASSERT_EQ(exitCodeOf(runAsGroup(program, {{1000, SIGTERM, false}}, &out)), 0) << out;
    ASSERT_NE(out.find("supervisor: workers 0 0"), std::string::npos) << "without the profiler: " << out;
    const int st = runAsGroup(profiled(dir, "supervisor.rep", program), {{1200, SIGTERM, false}}, &out);
    EXPECT_EQ(exitCodeOf(st), 0) << out;
    EXPECT_NE(out.find("supervisor: workers 0 0"), std::string::npos) << out;
    auto r = load(dir.file("supervisor.rep"));
    ASSERT_TRUE(r) << out;
    ASSERT_EQ(r->processes.size(), 3u);
    for (const auto& p : r->processes) EXPECT_EQ(p.exitSignal, 0) << p.pid;
}

// The processes the first one leaves running get the signal when it ends (a script's
// background jobs), except one it passed the signal on to already: a second copy ran its
// handler twice.
TEST(GroupSignal, TheRestOfTheTreeIsNotSentWhatTheFirstProcessPassedOn) {
    CaptureDir dir;
    const std::string counter = client("signal_count") + " " + std::to_string(SIGTERM) + " 2.5";
    std::string out;
    const int st = runAsGroup(profiled(dir, "rest.rep",
                                       {"/bin/sh", "-c",
                                        counter + " & child=$!; trap 'kill -TERM $child; exit 0' TERM; wait"}),
                              {{1200, SIGTERM, false}}, &out);
    EXPECT_EQ(exitCodeOf(st), 0) << out;
    // The child printed after the shell ended; the profiler waited for it.
    EXPECT_NE(out.find("TERM counts: 1"), std::string::npos) << out;
    EXPECT_EQ(out.find("TERM counts: 2"), std::string::npos) << out;
}

// A supervisor that passes the stop on to its worker as another signal (save and exit on
// SIGUSR1) and ends first: the worker, and the `sleep` of its save, are left to finish, as
// without the profiler (a review found the worker's sleep killed by the rest's SIGTERM).
TEST(GroupSignal, AWorkerToldToStopWithAnotherSignalFinishesItsSave) {
    CaptureDir dir;
    const std::vector<std::string> program = {
        "/bin/sh", "-c",
        "( trap 'echo worker saving; sleep 5.5; echo worker saved; exit 0' USR1; "
        "while :; do sleep 0.1; done ) & w=$!; "
        "trap 'kill -USR1 $w; exit 0' TERM; while :; do sleep 0.1; done"};
    std::string out;
    ASSERT_EQ(exitCodeOf(runAsGroup(program, {{800, SIGTERM, false}}, &out)), 0) << out;
    ASSERT_NE(out.find("worker saved"), std::string::npos) << "without the profiler: " << out;
    const int st = runAsGroup(profiled(dir, "told.rep", program), {{1000, SIGTERM, false}}, &out);
    EXPECT_EQ(exitCodeOf(st), 0) << out;
    EXPECT_NE(out.find("worker saved"), std::string::npos) << out;
    EXPECT_EQ(out.find("Terminated"), std::string::npos) << out;
}

// The same when the worker has the signal blocked as the first process ends (a critical
// section): the signal waits, and the worker was sent SIGTERM and killed before its save.
TEST(GroupSignal, AWorkerToldWhileItBlocksTheSignalIsLeftToFinish) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGTERM), "0.3", "0",
                                              "teller"};
    for (int run = 0; run < 3; ++run) {
        std::string out;
        const int st = runAsGroup(profiled(dir, "teller" + std::to_string(run) + ".rep", program),
                                  {{1000, SIGTERM, false}}, &out);
        EXPECT_EQ(exitCodeOf(st), 0) << out;
        EXPECT_NE(out.find("worker saved"), std::string::npos) << "run " << run << ": " << out;
    }
}

// A stop the first process handled, after which it ended normally (a REPL's KeyboardInterrupt,
// a script's trap): what it left running runs on, as after a normal end (its background job
// was killed by the stop it had handled).
TEST(GroupSignal, AHandledStopIsNotSentToTheRestWhenTheFirstProcessEndsNormally) {
    CaptureDir dir;
    const std::vector<std::string> program = {
        "/bin/sh", "-c",
        "(sleep 1.5; echo background done) & trap 'echo handled' TERM; i=0; "
        "while [ $i -lt 10 ]; do sleep 0.1; i=$((i+1)); done; exit 0"};
    std::string out;
    ASSERT_EQ(exitCodeOf(runAsGroup(program, {{500, SIGTERM, false}}, &out)), 0) << out;
    ASSERT_NE(out.find("background done"), std::string::npos) << "without the profiler: " << out;
    const int st = runAsGroup(profiled(dir, "handled.rep", program), {{700, SIGTERM, false}}, &out);
    EXPECT_EQ(exitCodeOf(st), 0) << out;
    EXPECT_NE(out.find("handled"), std::string::npos) << out;
    EXPECT_NE(out.find("background done"), std::string::npos) << out;
}

// Two stops 100 ms apart to a program that handles them reach it twice, as without the
// profiler (the second was taken as the same stop sent twice, as `timeout` sends it).
TEST(GroupSignal, TwoCloseStopsReachAProgramThatHandlesThemTwice) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGINT), "2.5", "0"};
    std::string out;
    ASSERT_EQ(exitCodeOf(runAsGroup(program, {{1000, SIGINT, false}, {100, SIGINT, false}}, &out)), 2) << out;
    const int st =
        runAsGroup(profiled(dir, "close.rep", program), {{1200, SIGINT, false}, {100, SIGINT, false}}, &out);
    EXPECT_EQ(exitCodeOf(st), 2) << out;
    EXPECT_NE(out.find("INT counts: 2"), std::string::npos) << out;
}

// SIGUSR1, SIGUSR2 and SIGALRM are sent on to the first process; sent to the whole group from
// outside (Slurm's --signal=USR1@60 signals every process of the job step; a trainer's
// requeue-on-SIGUSR1 handler then ran twice), the first process had it already.
TEST(GroupSignal, Usr1ToTheWholeGroupRunsEachHandlerOnce) {
    CaptureDir dir;
    for (int sig : {SIGUSR1, SIGALRM}) {
        const std::vector<std::string> program = {client("signal_count"), std::to_string(sig), "2.5", "2"};
        const std::string name = std::string(sigabbrev_np(sig)) + " counts: 1 1 1";
        std::string out;
        ASSERT_EQ(exitCodeOf(runAsGroup(program, {{1000, sig, true}}, &out)), 1) << out;
        ASSERT_NE(out.find(name), std::string::npos) << "without the profiler: " << out;
        const int st = runAsGroup(profiled(dir, "usr" + std::to_string(sig) + ".rep", program),
                                  {{1200, sig, true}}, &out);
        EXPECT_EQ(exitCodeOf(st), 1) << out;
        EXPECT_NE(out.find(name), std::string::npos) << out;
    }
}

// Sent to the profiler alone, the first process has it once (and its children, as without the
// profiler, not at all).
TEST(GroupSignal, Usr2ToTheProfilerAloneReachesTheFirstProcessOnce) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGUSR2), "2.5", "1"};
    std::string out;
    const int st = runAsGroup(profiled(dir, "usr2.rep", program), {{1200, SIGUSR2, false}}, &out);
    EXPECT_EQ(exitCodeOf(st), 1) << out;
    EXPECT_NE(out.find("USR2 counts: 1 0"), std::string::npos) << out;
}

// Two sent to the profiler 30 ms apart reach the program twice, as without the profiler: the
// profiler's own copy of the first, which the program had a moment before, was taken as the
// program having the second.
TEST(GroupSignal, TwoUsr1ToTheProfilerCloseTogetherReachTheProgramTwice) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGUSR1), "2.5", "0"};
    std::string out;
    ASSERT_EQ(exitCodeOf(runAsGroup(program, {{1000, SIGUSR1, false}, {30, SIGUSR1, false}}, &out)), 2) << out;
    const int st = runAsGroup(profiled(dir, "twice.rep", program), {{1200, SIGUSR1, false}, {30, SIGUSR1, false}},
                              &out);
    EXPECT_EQ(exitCodeOf(st), 2) << out;
    EXPECT_NE(out.find("USR1 counts: 2"), std::string::npos) << out;
}

// A process of the program signalling the first process with the same signal (a child
// notifying its parent every 20 ms) is not the sender of the profiler's copy: the outside
// copies still arrive (each was taken as the group's, and none reached the program).
TEST(GroupSignal, TheProgramsOwnSignalsDoNotHideTheOnesFromOutside) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGUSR1), "2.5", "0",
                                              "notified"};
    std::string out;
    const int st = runAsGroup(profiled(dir, "notified.rep", program),
                              {{1000, SIGUSR1, false}, {400, SIGUSR1, false}, {400, SIGUSR1, false}}, &out);
    EXPECT_EQ(exitCodeOf(st), 3) << out;
    EXPECT_NE(out.find("USR1 outside: 3"), std::string::npos) << out;
}

// `timeout` signals its child and then its group, microseconds apart. Without the profiler the
// program is that child and has two copies, usually merged into one delivery (mpirun takes
// two as "quit now" and skips its clean-up). With the profiler, the program has the group's
// copy and is not sent a second one milliseconds later, where the two could no longer merge.
TEST(GroupSignal, ToTheProfilerAndThenTheGroupReachesTheProgramOnce) {
    CaptureDir dir;
    const std::vector<std::string> program = {client("signal_count"), std::to_string(SIGTERM), "2.5", "1"};
    std::string out;
    const int st = runAsGroup(profiled(dir, "timeout.rep", program),
                              {{1200, SIGTERM, false}, {0, SIGTERM, true}}, &out);
    EXPECT_EQ(exitCodeOf(st), 1) << out;
    EXPECT_NE(out.find("TERM counts: 1 1"), std::string::npos) << out;
}

}  // namespace
}  // namespace sl::test
