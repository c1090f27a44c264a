// Programs doing what a profiler's module must survive unchanged (issue #15): thousands of
// short threads, NVTX used wrongly, calls the kernel only allows a single-threaded process.
// Each runs the real `sightline profile` on a client of tests/clients.
#include <gtest/gtest.h>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

// Buffers of ended threads waited for a writer that only a living thread's hand-over starts:
// after about a thousand threads (the budget's worth of buffers) everything later was dropped,
// with a diagnostic telling the user to raise SIGHTLINE_BUFFER_MB although at most two threads
// ever lived at once.
TEST(ProgramMisuse, ThousandsOfShortThreadsLoseNothingAfterThem) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("c.rep"), {"-s", "none"}, {client("thread_churn"), "3000"}), 0);
    auto r = load(dir.file("c.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::NvtxRange, "late-thread-range").size(), 1u);
    EXPECT_EQ(diagnostic(*r, "events.dropped"), 0);
    EXPECT_EQ(diagnostic(*r, "nvtx.ranges_dropped"), 0);
    EXPECT_EQ(diagnostic(*r, "metadata.dropped"), 0);
}

// A pop without a push returned 0 (NVTX: negative for an error), and a made-up registered
// string handle was dereferenced: the program died of SIGSEGV where it runs on without a tool.
TEST(ProgramMisuse, NvtxUsedWronglyIsAnsweredAsNvtxDocumentsWithoutACrash) {
    int plainCode = -1, tracedCode = -1;
    const std::string plain = runCapturingStdout({client("nvtx_misuse")}, &plainCode);
    ASSERT_EQ(plainCode, 0) << plain;
    CaptureDir dir;
    const std::string traced = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-o", dir.file("m.rep"), client("nvtx_misuse")},
        &tracedCode);
    EXPECT_EQ(tracedCode, 0) << traced;
    EXPECT_EQ(traced, plain);
    auto r = load(dir.file("m.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::NvtxRange, "inner").size(), 1u);
}

// unshare(CLONE_NEWUSER) needs a single-threaded caller: the module's writer thread, started
// once a buffer filled, made it fail with EINVAL. (The thread itself is still there to see in
// /proc/self/task while it writes: docs/capture.md.)
TEST(ProgramMisuse, UnshareOfAUserNamespaceAnswersAsWithoutTheProfiler) {
    int plainCode = -1, tracedCode = -1;
    const std::string plain = runCapturingStdout({client("single_threaded_calls")}, &plainCode);
    ASSERT_EQ(plainCode, 0) << plain;
    CaptureDir dir;
    for (const char* trace : {"nvtx", "nvtx,osrt"}) {
        const std::string traced = runCapturingStdout(
            {SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-t", trace, "-o",
             dir.file("u.rep"), client("single_threaded_calls")},
            &tracedCode);
        EXPECT_EQ(tracedCode, 0) << traced;
        EXPECT_EQ(traced, plain) << trace;
        auto r = load(dir.file("u.rep"));
        ASSERT_TRUE(r);
        EXPECT_EQ(events(*r, EventKind::NvtxRange, "fill").size(), 200000u) << trace;
    }
}

}  // namespace
}  // namespace sl::test
