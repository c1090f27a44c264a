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

}  // namespace
}  // namespace sl::test
