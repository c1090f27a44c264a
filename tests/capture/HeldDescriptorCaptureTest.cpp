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

// What a Python script prints, run plainly and under `sightline profile <extra> -o rep`.
struct PlainAndTraced {
    std::string plain, traced;
    int plainCode = -1, tracedCode = -1;
};
PlainAndTraced runPlainAndTraced(const std::string& script, const std::string& rep,
                                 std::vector<std::string> extra = {}) {
    PlainAndTraced r;
    r.plain = runCapturingStdout({SIGHTLINE_PYTHON, "-c", script}, &r.plainCode);
    std::vector<std::string> args = {SIGHTLINE_CLI, "profile", "-q", "true", "-s", "none"};
    args.insert(args.end(), extra.begin(), extra.end());
    for (const std::string& a : {std::string("-o"), rep, std::string(SIGHTLINE_PYTHON),
                                 std::string("-c"), script})
        args.push_back(a);
    r.traced = runCapturingStdout(args, &r.tracedCode);
    return r;
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

// Calls on a number the program never opened that the module holds (1000, its buffer arena)
// fail with EBADF as without us: os.ftruncate(1000, 0) killed Python with SIGBUS in our
// buffers, write/pwrite/lseek corrupted them, set_inheritable leaked them to children.
TEST(HeldDescriptors, CallsOnOurNumbersFailAsOnAFreeNumber) {
    if (std::string(SIGHTLINE_PYTHON).empty()) GTEST_SKIP() << "no python3";
    CaptureDir dir;
    const std::string script =
        "import os, errno, time\n"
        "calls = [lambda: os.ftruncate(1000, 0), lambda: os.write(1000, b\"x\"),\n"
        "         lambda: os.pwrite(1000, b\"x\", 0), lambda: os.lseek(1000, 0, 0),\n"
        "         lambda: os.fstat(1000), lambda: os.read(1000, 1), lambda: os.fsync(1000),\n"
        "         lambda: os.set_inheritable(1000, True), lambda: os.dup(1000)]\n"
        "out = []\n"
        "for call in calls:\n"
        "    try:\n"
        "        call(); out.append('ok')\n"
        "    except OSError as e:\n"
        "        out.append(errno.errorcode[e.errno])\n"
        "time.sleep(0.05)\n"
        "print(str.join(chr(32), out))\n";  // no single quote: the helper quotes with them
    const PlainAndTraced run = runPlainAndTraced(script, dir.file("c.rep"), {"-t", "osrt"});
    ASSERT_EQ(run.plainCode, 0) << run.plain;
    EXPECT_EQ(run.tracedCode, 0) << run.traced;
    EXPECT_EQ(run.traced, run.plain);
    auto r = load(dir.file("c.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "capture.write_failed"), 0);
    EXPECT_EQ(diagnostic(*r, "capture.stream_unreadable"), 0);
    bool sleep = false;
    for (const auto& e : events(*r, EventKind::OsRuntime))
        if (e.end - e.start >= 40'000'000) sleep = true;
    EXPECT_TRUE(sleep);
}

// Bulk closes and failed dup2s behave as without us: close_range(0, 0) closed nothing when the
// range started at 0 (our numbers were split out of it), and a dup2 from a bad descriptor onto
// ours left an untracked copy of our file at that number.
TEST(HeldDescriptors, BulkClosesAndFailedDup2sAreTheProgramsAsWithoutUs) {
    if (std::string(SIGHTLINE_PYTHON).empty()) GTEST_SKIP() << "no python3";
    CaptureDir dir;
    const std::string script =
        "import ctypes, errno, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def state(fd):\n"
        "    try:\n"
        "        os.fstat(fd); return chr(111)\n"  // "o": open
        "    except OSError as e:\n"
        "        return errno.errorcode[e.errno]\n"
        "out = [str(libc.close_range(0, 0, 0)), state(0)]\n"
        "try:\n"
        "    os.dup2(9999, 1000)\n"
        "except OSError as e:\n"
        "    out.append(errno.errorcode[e.errno])\n"
        "out.append(state(1000))\n"
        "print(str.join(chr(32), out))\n";
    const PlainAndTraced run = runPlainAndTraced(script, dir.file("b.rep"));
    ASSERT_EQ(run.plainCode, 0) << run.plain;
    EXPECT_EQ(run.plain, "0 EBADF EBADF EBADF\n");
    EXPECT_EQ(run.tracedCode, 0) << run.traced;
    EXPECT_EQ(run.traced, run.plain);
}

// The stat family (statx and fstatat with AT_EMPTY_PATH: Rust's File::metadata; __fxstat:
// binaries built against glibc before 2.33), the *at calls with 1000 as the directory,
// sendfile/splice/copy_file_range/tee, flock, fchdir, fstatfs, syncfs: each answers as for a
// free number (the old module let sendfile and splice read our stream at its write offset).
TEST(HeldDescriptors, StatCopyAndDirectoryCallsOnOurNumbersFailAsOnAFreeNumber) {
    CaptureDir dir;
    int plainCode = -1, tracedCode = -1;
    const std::string plain = runCapturingStdout({client("held_fds"), "calls"}, &plainCode);
    ASSERT_EQ(plainCode, 0) << plain;
    EXPECT_NE(plain.find("statx_empty=EBADF"), std::string::npos) << plain;
    EXPECT_NE(plain.find("fstatat_absolute=ok"), std::string::npos) << plain;
    const std::string traced =
        runCapturingStdout({SIGHTLINE_CLI, "profile", "-q", "true", "-s", "none", "-o",
                            dir.file("s.rep"), client("held_fds"), "calls"},
                           &tracedCode);
    EXPECT_EQ(tracedCode, 0) << traced;
    EXPECT_EQ(traced, plain);
    auto r = load(dir.file("s.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "capture.write_failed"), 0);
}

// A program at its descriptor limit before its first records were written (the stream is
// made with the first block): the stream is made anyway (the arena gives its descriptor back)
// and every range is in the report; before, most were lost and the report said 23 KiB.
TEST(HeldDescriptors, ProgramAtItsDescriptorLimitLosesNoRecords) {
    CaptureDir dir;
    const long ranges = 300000;
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-s", "none", "-o", dir.file("f.rep"), "/bin/sh",
         "-c", "ulimit -n 100 && exec " + client("held_fds") + " fill " + std::to_string(ranges)},
        &code);
    ASSERT_EQ(code, 0) << out;
    EXPECT_NE(out.find("ranges=300000"), std::string::npos) << out;
    auto r = load(dir.file("f.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(events(*r, EventKind::NvtxRange, "r").size(), static_cast<size_t>(ranges));
    EXPECT_EQ(diagnostic(*r, "capture.write_failed"), 0);
}

}  // namespace
}  // namespace sl::test
