// The descriptors the injection module holds (its stream and buffer arena, at 1000 and up) are
// the program's numbers to take: it gets the number it asks for, its file never receives our
// bytes, and we lose no record (issue #15; capture/common/HeldFile.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

namespace fs = std::filesystem;

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// bash's `exec 1000>log` (bash saves a number in use with close-on-exec set as one of its
// own and puts it back after `exec`: the script's writes went into our arena), a child that
// inherits 1000 across exec, a Python child writing to it, and closing it: the files hold
// exactly what they hold without sightline, and the shell and its children are recorded.
TEST(HeldDescriptors, BashRedirectionsOntoOurNumbersWorkAsWithoutUs) {
    CaptureDir dir;
    const std::string script =
        "exec 1000>log1000; echo hi >&1000; bash -c 'echo child >&1000';"
        "exec 1001>log1001; echo x >&1001; exec 1001>&-; echo bye >&1000; exec 1000>&-;"
        "echo after 2>/dev/null >&1000; echo rc=$? >log-rc";
    const std::string plain = dir.file("plain"), traced = dir.file("traced");
    fs::create_directories(plain);
    fs::create_directories(traced);
    ASSERT_EQ(exitCodeOf(runProcess({"/bin/bash", "-c", script}, plain)), 0);
    ASSERT_EQ(profile(dir.file("b.rep"), {"-t", "osrt", "-s", "none"}, {"/bin/bash", "-c", script},
                      traced),
              0);
    for (const char* name : {"log1000", "log1001", "log-rc"}) {
        const std::string want = contents(plain + "/" + name);
        EXPECT_FALSE(want.empty()) << name;
        EXPECT_EQ(contents(traced + "/" + name), want) << name;
    }
    auto r = load(dir.file("b.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "capture.write_failed"), 0);
    int shells = 0;
    for (const auto& p : r->processes) shells += p.name == "bash";
    EXPECT_EQ(shells, 2);
}

// Raw dup3 onto 1000..1007 (no interposer sees it) while ranges are recorded: our blocks and
// fallocate calls must not reach the program's file, our closes must not close its numbers,
// and every range is in the report (the stream and arena are opened again by their paths).
TEST(HeldDescriptors, NumbersTakenWithRawSystemCallsKeepTheProgramsFileAndOurRecords) {
    CaptureDir dir;
    const std::string file = dir.file("taken.txt");
    const long ranges = 300000;  // many blocks, and arena slots grown past their first pages
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-s", "none", "-o", dir.file("t.rep"),
         client("held_fds"), file, std::to_string(ranges)},
        &code);
    ASSERT_EQ(code, 0) << out;
    EXPECT_NE(out.find("kept=8"), std::string::npos) << out;
    std::string want = "start\n";
    for (int n = 1000; n < 1008; ++n) want += std::to_string(n) + "\n";
    const std::string got = contents(file);
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(got == want) << "the program's file holds bytes it did not write";
    auto r = load(dir.file("t.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::NvtxRange, "r").size(), static_cast<size_t>(ranges));
    EXPECT_EQ(diagnostic(*r, "capture.write_failed"), 0);
}

}  // namespace
}  // namespace sl::test
