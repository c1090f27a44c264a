// A stop signal the program handles and survives (a JVM's thread dump on SIGQUIT, a server's
// reload on SIGHUP, a REPL's KeyboardInterrupt, "press Ctrl+C again") is the program's own:
// the next one is passed on like the first, not turned into the profiler's SIGKILL, and the
// capture goes on until the program ends. Before, the second stop signal killed the program
// (exit 137, shutdown hooks lost), and the session ended at the first one while its events
// went on (cpu_util_sum above 100%).
#include <gtest/gtest.h>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

TEST(HandledStop, ASecondStopAfterAHandledOneIsPassedOnNotKilled) {
    CaptureDir dir;
    for (int sig : {SIGTERM, SIGINT}) {
        const std::string out = dir.file("twice" + std::to_string(sig) + ".rep");
        const int st = runSignalled({SIGHTLINE_CLI, "profile", "-q", "true", "-o", out, client("signal_count"),
                                     std::to_string(sig), "2.5"},
                                    {{800, sig}, {500, sig}});
        EXPECT_EQ(exitCodeOf(st), 2) << "signal " << sig << ": both reached the handler, and the program "
                                        "ended by itself";
        auto r = load(out);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->processes[0].exitCode, 2);
        EXPECT_EQ(r->processes[0].exitSignal, 0);
    }
}

TEST(HandledStop, TheSessionLastsUntilTheProgramEnds) {
    CaptureDir dir;
    const std::string out = dir.file("session.rep");
    const int st = runSignalled({SIGHTLINE_CLI, "profile", "-q", "true", "-o", out, client("signal_count"),
                                 std::to_string(SIGTERM), "2.0"},
                                {{500, SIGTERM}});
    ASSERT_EQ(exitCodeOf(st), 1);
    auto r = load(out);
    ASSERT_TRUE(r);
    EXPECT_GE(r->session.durationNs, 1'700'000'000) << "the program ran 2 s, 1.5 s of it after the signal";
    EXPECT_GE(r->session.durationNs, r->processes[0].end - r->processes[0].start);
}

// --duration still ends the capture after a stop signal the program handled and survived.
TEST(HandledStop, DurationStillAppliesAfterAHandledStop) {
    CaptureDir dir;
    const std::string out = dir.file("duration.rep");
    const int st = runSignalled({SIGHTLINE_CLI, "profile", "-q", "true", "-d", "2", "-o", out, client("signal_count"),
                                 std::to_string(SIGTERM), "4"},
                                {{800, SIGTERM}});
    EXPECT_GE(exitCodeOf(st), 1);
    auto r = load(out);
    ASSERT_TRUE(r);
    EXPECT_LT(r->session.durationNs, 3'000'000'000) << "the capture ended at the 2 s duration";
}

// The trampoline in front of the program's handlers (SignalInterpose.cpp) changes nothing the
// program can see: each case exits as it does without the profiler.
TEST(HandledStop, HandlersBehindTheTrampolineBehaveAsTheProgramsOwn) {
    CaptureDir dir;
    const std::string term = std::to_string(SIGTERM);
    struct Case {
        std::vector<std::string> args;
        int code;
    };
    const Case cases[] = {
        {{term, "0", "0", "siginfo-dfl"}, 128 + SIGTERM},  // SA_SIGINFO kept with SIG_DFL: the default
        {{term, "0", "0", "siginfo-ign"}, 0},               // ... with SIG_IGN: ignored
        {{term, "1", "0", "race"}, 0},                      // switched on one thread, raised on another
        {{term, "0", "0", "vfork-oneshot"}, 1},             // a vfork child's SA_RESETHAND is its own
    };
    int n = 0;
    for (const Case& c : cases) {
        std::vector<std::string> program = {client("signal_count")};
        program.insert(program.end(), c.args.begin(), c.args.end());
        ASSERT_EQ(exitCodeOf(runProcess(program)), c.code) << "without the profiler: " << c.args.back();
        std::vector<std::string> args = {SIGHTLINE_CLI, "profile", "-q", "true", "-o",
                                         dir.file("t" + std::to_string(n++) + ".rep")};
        args.insert(args.end(), program.begin(), program.end());
        EXPECT_EQ(exitCodeOf(runProcess(args)), c.code) << c.args.back();
    }
    // SA_RESETHAND: after its delivery sigaction reads back SIG_DFL with the flags kept (98:
    // it read flags 0).
    const int st = runSignalled({SIGHTLINE_CLI, "profile", "-q", "true", "-o", dir.file("oneshot.rep"),
                                 client("signal_count"), term, "1.5", "0", "oneshot"},
                                {{600, SIGTERM}});
    EXPECT_EQ(exitCodeOf(st), 1);
}

}  // namespace
}  // namespace sl::test
