// Texts longer than the capture keeps (NVTX messages and registered strings at 64 KiB, wide NVTX
// messages at 4 KiB of UTF-8, command lines at 64 KiB) are cut at a character's start and the
// report says so; shorter ones, 16 KiB and 4 KiB cuts before, are kept whole (issue #15).
#include <gtest/gtest.h>

#include <string>

#include "model/util/Utf8.h"
#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

bool validUtf8(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
        const size_t n = utf8SequenceLength(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string reasonOf(const Report& r, const std::string& name) {
    for (const auto& d : r.diagnostics)
        if (d.name == name) return d.reason;
    return {};
}

// The length of the one range whose text starts with `c`, or -1.
int64_t lengthOfRangeStartingWith(const Report& r, char c, std::string* text = nullptr) {
    int64_t found = -1;
    for (const auto& e : events(r, EventKind::NvtxRange))
        if (!e.name.empty() && e.name[0] == c) {
            if (found >= 0) return -2;
            found = static_cast<int64_t>(e.name.size());
            if (text) *text = e.name;
        }
    return found;
}

TEST(TextLimits, LongNvtxMessagesAreKeptToTheLimitAndCountedWhenCut) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("l.rep"), {"-s", "none"}, {client("nvtx_text"), "long"}), 0);
    auto r = load(dir.file("l.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(lengthOfRangeStartingWith(*r, 'a'), 20000);  // cut at 4,096 before
    EXPECT_EQ(lengthOfRangeStartingWith(*r, 'b'), 65536);
    EXPECT_EQ(lengthOfRangeStartingWith(*r, 'r'), 65536);  // registered
    std::string checks;
    EXPECT_EQ(lengthOfRangeStartingWith(*r, '\xE2', &checks), 21845 * 3);
    EXPECT_TRUE(validUtf8(checks));
    std::string wide;
    const int64_t wideBytes = lengthOfRangeStartingWith(*r, '\xC3', &wide);
    EXPECT_EQ(wideBytes, 4096);  // 2,048 whole characters
    EXPECT_TRUE(validUtf8(wide));
    EXPECT_EQ(diagnostic(*r, "capture.texts_cut"), 5);
    bool rockets = false;  // the wide domain name: 16,384 whole characters (was 4,096 bytes)
    for (const auto& d : r->nvtxDomains) rockets = rockets || d.name.size() == 65536;
    EXPECT_TRUE(rockets);
    EXPECT_NE(reasonOf(*r, "capture.texts_cut").find("65,536 bytes"), std::string::npos)
        << reasonOf(*r, "capture.texts_cut");
    EXPECT_EQ(diagnostic(*r, "nvtx.ranges_dropped"), 0);
}

TEST(TextLimits, LongCommandLinesAreKeptTo64KiBAndNamedWhenCut) {
    CaptureDir dir;
    const std::string a(20000, 'x');
    ASSERT_EQ(profile(dir.file("a.rep"), {"-s", "none"}, {"/bin/true", a}), 0);
    auto r = load(dir.file("a.rep"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->processes.size(), 1u);
    EXPECT_EQ(r->processes[0].commandLine, "/bin/true " + a);  // cut at 16,384 before
    EXPECT_EQ(diagnostic(*r, "capture.command_lines_cut"), 0);

    const std::string b(50000, 'y');  // "/bin/true" and three of them: 150,012 bytes
    ASSERT_EQ(profile(dir.file("b.rep"), {"-s", "none"}, {"/bin/true", b, b, b}), 0);
    r = load(dir.file("b.rep"));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->processes.size(), 1u);
    const size_t kept = r->processes[0].commandLine.size();
    EXPECT_GT(kept, 60000u);
    EXPECT_LE(kept, 65536u);
    EXPECT_EQ(diagnostic(*r, "capture.command_lines_cut"), 1);
    const std::string reason = reasonOf(*r, "capture.command_lines_cut");
    EXPECT_NE(reason.find("of 150,012 bytes"), std::string::npos) << reason;
}

}  // namespace
}  // namespace sl::test
