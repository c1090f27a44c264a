// The result a detached report writer hands back to the launcher (DetachedFinish.h): what was
// written, the program's exit and signal, or the error, byte for byte.
#include "capture/launcher/DetachedFinish.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace sl::capture {
namespace {

TEST(DetachedFinish, AResultComesBackWhole) {
    ProfileResult r;
    r.exitCode = 143;
    r.signal = 15;
    r.reports = {"r0.rep", "with\nnewline and: colon.rep", ""};
    auto back = decodeResult(encodeResult(r));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->exitCode, 143);
    EXPECT_EQ(back->signal, 15);
    EXPECT_EQ(back->reports, r.reports);
}

TEST(DetachedFinish, AnErrorComesBackWhole) {
    Result<ProfileResult> e = makeError("cannot write r.rep: No space left on device\nsightline: kept in /tmp/x");
    auto back = decodeResult(encodeResult(e));
    ASSERT_FALSE(back);
    EXPECT_EQ(back.error(), e.error());
}

TEST(DetachedFinish, ACutOrForeignTextIsAnError) {
    ProfileResult r;
    r.reports = {"a.rep", "b.rep"};
    const std::string whole = encodeResult(r);
    for (size_t cut = 0; cut < whole.size(); ++cut) {
        auto back = decodeResult(whole.substr(0, cut));
        EXPECT_FALSE(back) << "cut at " << cut;
    }
    EXPECT_FALSE(decodeResult("2:ok1:x"));
    EXPECT_FALSE(decodeResult("99999999999999999999:ok"));
    EXPECT_FALSE(decodeResult("garbage"));
}

// The real fork: the work runs in a child leading a session of its own, and its result comes back.
TEST(DetachedFinish, TheWorkRunsInAnotherSessionAndItsResultIsReturned) {
    int endedInChild = 0, kept = 0;
    const pid_t parentSession = getsid(0);
    auto r = finishOutOfReach(
        [&]() -> Result<ProfileResult> {
            ProfileResult p;
            p.exitCode = getsid(0) != parentSession ? 7 : 1;  // the child leads a session of its own
            p.reports = {"x.rep"};
            return p;
        },
        [&] { ++kept; }, [&] { ++endedInChild; });
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->exitCode, 7);
    EXPECT_EQ(r->reports, std::vector<std::string>{"x.rep"});
    EXPECT_EQ(kept, 1);          // in the parent
    EXPECT_EQ(endedInChild, 0);  // in the child's memory, not ours
}

}  // namespace
}  // namespace sl::capture
