// End to end: job control through the profiler, in a user's interactive shell. The shell waits
// for `sightline`, not the program: the profiler must stop when the program stops and only
// then, and continue it when it is continued, so that the shell shows what it would without the
// profiler. The program's output markers are computed ($((1+1))), so that the typed command
// line, which the terminal echoes, does not match them.
#include <gtest/gtest.h>

#include "tests/capture/CaptureTestUtil.h"
#include "tests/capture/TerminalSession.h"

namespace sl::test {
namespace {

// `sightline profile -q true -f true -o <rep> ` as typed at the prompt.
std::string profileCommand(const std::string& rep) {
    return std::string("'") + SIGHTLINE_CLI + "' profile -q true -f true -o '" + rep + "' ";
}

// The shell's $? of the last foreground job, shown as "rc=N;".
bool lastExitCodeIs(TerminalSession& t, int code) {
    t.type("echo rc=$((0+$?))\\;\n");
    return t.waitFor("rc=" + std::to_string(code) + ";");
}

// A program that stops itself (`kill -STOP $$`, as a program giving a shell back its
// terminal): the shell took the prompt back without the profiler; with it, it hung, waiting
// for a profiler that waited for the program.
TEST(JobControl, ProgramThatStopsItselfGivesTheShellItsPrompt) {
    TerminalSession t;
    if (!t.ok()) GTEST_SKIP() << "no pty or no /bin/bash";
    CaptureDir dir;
    t.type(profileCommand(dir.file("stop.rep")) +
           "sh -c 'kill -STOP $$; echo resumed-$((1+1))'\n");
    ASSERT_TRUE(t.waitFor("Stopped")) << t.shown();
    t.type("fg\n");
    ASSERT_TRUE(t.waitFor("resumed-2")) << t.shown();
    EXPECT_TRUE(lastExitCodeIs(t, 0)) << t.shown();
    auto r = load(dir.file("stop.rep"));
    ASSERT_TRUE(r) << t.shown();
    EXPECT_EQ(r->processes[0].exitCode, 0);
}

// Ctrl+Z to a program that ignores SIGTSTP: without the profiler the job is not stopped and
// ends by itself; the profiler stopped alone, and the shell said "Stopped" (then rc 148).
TEST(JobControl, CtrlZToAProgramThatIgnoresItDoesNotStopTheJob) {
    TerminalSession t;
    if (!t.ok()) GTEST_SKIP() << "no pty or no /bin/bash";
    CaptureDir dir;
    t.type(profileCommand(dir.file("ignored.rep")) +
           "sh -c 'trap \"\" TSTP; echo ready-$((2+2)); sleep 1.5; echo done-$((1+1))'\n");
    ASSERT_TRUE(t.waitFor("ready-4")) << t.shown();
    t.type("\x1a");
    ASSERT_TRUE(t.waitFor("done-2")) << t.shown();
    EXPECT_TRUE(lastExitCodeIs(t, 0)) << t.shown();
    EXPECT_EQ(t.shown().find("Stopped"), std::string::npos) << t.shown();
    EXPECT_TRUE(load(dir.file("ignored.rep"))) << t.shown();
}

// Ctrl+Z stops the job, program and profiler, and fg continues both: the program's output,
// exit code and report as without the stop.
TEST(JobControl, CtrlZStopsTheJobAndFgContinuesIt) {
    TerminalSession t;
    if (!t.ok()) GTEST_SKIP() << "no pty or no /bin/bash";
    CaptureDir dir;
    // The sleep is started before "ready": dash starts a command with vfork, and a Ctrl+Z that
    // finds the child between vfork and exec stops the child and leaves dash waiting for it,
    // unstoppable (state D), with or without the profiler.
    t.type(profileCommand(dir.file("ctrlz.rep")) +
           "sh -c 'sleep 1 & echo ready-$((2+2)); wait; echo done-$((1+1)); exit 3'\n");
    ASSERT_TRUE(t.waitFor("ready-4")) << t.shown();
    t.type("\x1a");
    ASSERT_TRUE(t.waitFor("Stopped")) << t.shown();
    // Stopped: nothing more from the program until fg.
    EXPECT_EQ(t.since(1500).find("done-2"), std::string::npos) << t.shown();
    t.type("fg\n");
    ASSERT_TRUE(t.waitFor("done-2")) << t.shown();
    EXPECT_TRUE(lastExitCodeIs(t, 3)) << t.shown();
    auto r = load(dir.file("ctrlz.rep"));
    ASSERT_TRUE(r) << t.shown();
    EXPECT_EQ(r->processes[0].exitCode, 3);
}

// A background job that reads the terminal is stopped by it (SIGTTIN, to the program and the
// profiler); fg gives it the terminal, and what is typed reaches the program.
TEST(JobControl, BackgroundReadStopsTheJobAndFgGivesItTheTerminal) {
    TerminalSession t;
    if (!t.ok()) GTEST_SKIP() << "no pty or no /bin/bash";
    CaptureDir dir;
    t.type(profileCommand(dir.file("ttin.rep")) + "sh -c 'read x; echo got-$x-$((1+1))' &\n");
    bool stopped = false;
    for (int i = 0; i < 40 && !stopped; ++i) {  // the shell says it at a prompt
        t.type("jobs\n");
        stopped = t.waitFor("Stopped", 500);
    }
    ASSERT_TRUE(stopped) << t.shown();
    t.type("fg\n");
    t.since(500);
    t.type("hello\n");
    ASSERT_TRUE(t.waitFor("got-hello-2")) << t.shown();
    EXPECT_TRUE(lastExitCodeIs(t, 0)) << t.shown();
    EXPECT_TRUE(load(dir.file("ttin.rep"))) << t.shown();
}

// Under `stty tostop` a background job that writes to the terminal is stopped (SIGTTOU to its
// process group). The program here never does, but the profiler's "capture running" line did:
// the job, the program with it, stood "Stopped (tty output)" until someone typed fg.
TEST(JobControl, BackgroundJobUnderTostopStopsForTheProgramsWritesOnly) {
    TerminalSession t;
    if (!t.ok()) GTEST_SKIP() << "no pty or no /bin/bash";
    CaptureDir dir;
    t.type("stty tostop\n");
    t.type(std::string("'") + SIGHTLINE_CLI + "' profile -f true -o '" + dir.file("tostop.rep") +
           "' sh -c 'echo ran-$((1+1)) > " + dir.file("out") + "' &\n");
    bool done = false, stopped = false;
    for (int i = 0; i < 40 && !done && !stopped; ++i) {  // the shell says either at a prompt
        t.type("jobs\n");
        const std::string seen = t.since(500);
        done = seen.find("Done") != std::string::npos;
        stopped = seen.find("Stopped") != std::string::npos;
    }
    EXPECT_FALSE(stopped) << t.shown();
    EXPECT_TRUE(done) << t.shown();
    t.type("cat '" + dir.file("out") + "'\n");
    EXPECT_TRUE(t.waitFor("ran-2")) << t.shown();
    EXPECT_TRUE(load(dir.file("tostop.rep"))) << t.shown();
    // The program's own write stops the job, the profiler with it (it blocks SIGTTOU for its
    // lines: it once stayed running, so the shell said "Running" and fg never continued the
    // program), and fg continues both.
    t.type(std::string("'") + SIGHTLINE_CLI + "' profile -q true -f true -o '" +
           dir.file("writes.rep") + "' sh -c 'echo wrote-$((2+2))' &\n");
    stopped = false;
    for (int i = 0; i < 40 && !stopped; ++i) {
        t.type("jobs\n");
        stopped = t.since(500).find("Stopped") != std::string::npos;
    }
    EXPECT_TRUE(stopped) << t.shown();
    t.type("fg\n");
    EXPECT_TRUE(t.waitFor("wrote-4")) << t.shown();
    EXPECT_TRUE(lastExitCodeIs(t, 0)) << t.shown();
    t.type("stty -tostop\n");
    EXPECT_TRUE(load(dir.file("writes.rep"))) << t.shown();
}

// After Ctrl+Z, SIGCONT to the profiler alone (kill -CONT <its pid>, not the job's group, which
// fg and bg signal) continues the program too, as the same signal to the program would have
// without the profiler. The program's stop is left to it.
TEST(JobControl, ContinuingTheProfilerContinuesTheProgram) {
    TerminalSession t;
    if (!t.ok()) GTEST_SKIP() << "no pty or no /bin/bash";
    CaptureDir dir;
    // One process (exec): the continue reaches the whole program.
    t.type(profileCommand(dir.file("cont.rep")) +
           "sh -c 'echo ready-$((2+2)); exec sleep 1.5'\n");
    ASSERT_TRUE(t.waitFor("ready-4")) << t.shown();
    t.type("\x1a");
    ASSERT_TRUE(t.waitFor("Stopped")) << t.shown();
    t.type("kill -CONT $(jobs -p)\n");  // the job's first process: sightline
    bool done = false;
    for (int i = 0; i < 40 && !done; ++i) {  // the shell says it at a prompt
        t.type("\n");
        done = t.waitFor("Done", 500);
    }
    EXPECT_TRUE(done) << t.shown();
    EXPECT_TRUE(load(dir.file("cont.rep"))) << t.shown();
}

// A program stopped and continued directly (kill -STOP, then kill -CONT, of the program: a
// user pausing a job, htop) while the profiler is not a terminal's foreground job: the profiler
// stopped with it and nothing continued it (timeout's 124, no report). It stops with the
// program only as a terminal's foreground job, which the shell continues.
TEST(JobControl, ProgramStoppedAndContinuedDirectlyInTheBackground) {
    CaptureDir dir;
    int code = 0;
    const std::string out = runCapturingStdout(
        {"/usr/bin/timeout", "20", "/bin/sh", "-c",
         "\"$0\" profile -q true -f true -o \"$1\" /bin/sh -c \"echo \\$\\$ > $2; sleep 2; "
         "exit 5\" & sleep 0.7; kill -STOP $(cat \"$2\"); sleep 0.5; kill -CONT $(cat \"$2\"); "
         "wait $!; echo rc=$?",
         SIGHTLINE_CLI, dir.file("bg.rep"), dir.file("pid")},
        &code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_NE(out.find("rc=5"), std::string::npos) << out;
    EXPECT_TRUE(load(dir.file("bg.rep"))) << out;
}

}  // namespace
}  // namespace sl::test
