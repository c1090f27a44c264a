// Resource limits the program runs under are the program's (issue #15): a file-size limit
// (`ulimit -f`) must not kill a traced program with SIGXFSZ, and what the capture could not
// keep under it is counted in the report; a low descriptor limit must not stop the profiler.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

// Runs `script` with /bin/sh; its stdout (and stderr) and exit code.
std::string runScript(const CaptureDir& dir, const std::string& name, const std::string& script,
                      int* code) {
    const std::string path = dir.file(name);
    std::ofstream(path) << script;
    return runCapturingStdout({"/bin/sh", path}, code);
}

// `program` (a shell command line) run after the shell command `limit` (`ulimit ...`), plainly
// and under `sightline profile -q true <profileArgs>`; each one's output and exit code.
struct PlainAndTraced {
    std::string plain, traced;
    int plainCode = -1, tracedCode = -1;
};
PlainAndTraced runUnderLimit(const CaptureDir& dir, const std::string& limit,
                             const std::string& program, const std::string& profileArgs) {
    PlainAndTraced r;
    r.plain = runScript(dir, "plain.sh", limit + "\nexec " + program + "\n", &r.plainCode);
    r.traced = runScript(dir, "traced.sh",
                         limit + "\nexec '" + std::string(SIGHTLINE_CLI) + "' profile -q true " +
                             profileArgs + " " + program + "\n",
                         &r.tracedCode);
    return r;
}

std::string reasonOf(const Report& r, const std::string& name) {
    for (const auto& d : r.diagnostics)
        if (d.name == name) return d.reason;
    return {};
}

// Under `ulimit -f 100` every traced process died of SIGXFSZ at its start (exit 153): its
// buffer arena, a sparse file of 520 MiB, was sized past the limit. The program now runs as
// without the profiler, and is in the report under its name.
TEST(Limits, ProgramUnderAFileSizeLimitRunsAsWithoutUs) {
    CaptureDir dir;
    const std::string program =
        "/bin/sh -c \"echo hi > " + dir.file("out") + "; cat " + dir.file("out") + "; exit 3\"";
    const PlainAndTraced run = runUnderLimit(dir, "ulimit -f 100", program,
                                             "-s none -o " + dir.file("f.rep") + " 2>" + dir.file("err"));
    ASSERT_EQ(run.plainCode, 3) << run.plain;
    ASSERT_EQ(run.plain, "hi\n");
    EXPECT_EQ(run.tracedCode, 3) << run.traced;
    EXPECT_EQ(run.traced, run.plain);
    auto r = load(dir.file("f.rep"));
    ASSERT_TRUE(r);
    const Process* p = processWithExit(*r, 3);
    ASSERT_NE(p, nullptr);
    // Buffers of an eighth of the limit: the first block, with the announcement, fits (a full
    // 256 KiB buffer did not, and the process showed as never traced).
    EXPECT_EQ(p->name, "sh");
    EXPECT_EQ(diagnostic(*r, "capture.processes_untraced"), 0);
}

// A program ended by SIGXFSZ under a small file-size limit: the module flushes its buffers as
// for the other fatal signals (SIGXFSZ was missing from its list and the report said the
// process was untraced), and what does not fit under the limit is counted as lost.
TEST(Limits, ProgramEndedBySigxfszKeepsItsRecords) {
    CaptureDir dir;
    for (const char* blocks : {"400", "100"}) {  // dash's 512-byte blocks: 200 KiB, 50 KiB
        SCOPED_TRACE(std::string("ulimit -f ") + blocks);
        const std::string rep = dir.file(std::string("x") + blocks + ".rep");
        int code = -1;
        const std::string out = runScript(
            dir, "xfsz.sh",
            "ulimit -f " + std::string(blocks) + "\nexec '" + std::string(SIGHTLINE_CLI) +
                "' profile -q true -s none -o " + rep + " " + client("crash_client") + " xfsz 2>" +
                dir.file("err") + "\n",
            &code);
        EXPECT_EQ(code, 128 + SIGXFSZ) << out;
        auto r = load(rep);
        ASSERT_TRUE(r);
        ASSERT_EQ(r->processes.size(), 1u);
        EXPECT_EQ(r->processes[0].exitSignal, SIGXFSZ);
        EXPECT_EQ(diagnostic(*r, "capture.processes_untraced"), 0);
        // Buffers of an eighth of the limit fit an arena under it: the records are there, or
        // those past the limit counted as lost (before, with no arena and the heap's buffers
        // written at the signal, the smaller limit kept none).
        const size_t ranges = events(*r, EventKind::NvtxRange, "before-crash").size();
        if (std::string(blocks) == "400") {
            EXPECT_EQ(ranges, 1000u);
        } else {
            EXPECT_GT(ranges, 500u);
            EXPECT_TRUE(ranges == 1000u || diagnostic(*r, "capture.write_failed") >= 1) << ranges;
        }
    }
}

// Under a limit of 1,000 KiB, 200,000 ranges (about 8 MB of stream) do not fit: the program
// runs to its end, the blocks past the limit are counted as lost with the limit named, the
// others are in the report.
TEST(Limits, RecordsPastAFileSizeLimitAreCountedAsLost) {
    CaptureDir dir;
    int code = -1;
    const std::string out = runScript(
        dir, "flood.sh",
        "ulimit -f 2000\nexec '" + std::string(SIGHTLINE_CLI) + "' profile -s none -o " +
            dir.file("l.rep") + " " + client("flood") + " 1 200000 2>" + dir.file("err") + "\n",
        &code);
    ASSERT_EQ(code, 0) << out;
    EXPECT_NE(out.find("ranges=200000"), std::string::npos) << out;
    auto r = load(dir.file("l.rep"));
    ASSERT_TRUE(r);
    const size_t kept = events(*r, EventKind::NvtxRange).size();
    EXPECT_GT(kept, 0u);
    EXPECT_LT(kept, 200000u);
    EXPECT_GT(diagnostic(*r, "capture.write_failed"), 0);
    EXPECT_NE(reasonOf(*r, "capture.write_failed").find("ulimit -f"), std::string::npos)
        << reasonOf(*r, "capture.write_failed");
    std::ifstream err(dir.file("err"));
    std::string said((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
    // Before the program starts (dash counts `ulimit -f` in 512-byte blocks: 1000 KiB).
    EXPECT_NE(said.find("warning: file-size limit 1000 KiB (ulimit -f 1000)"), std::string::npos)
        << said;
}

// A low descriptor limit (`ulimit -Sn 13`): the profiler could not make its pipes ("cannot
// create a pipe") and the program never ran. It raises its own soft limit within the hard one
// and gives the program the limit it was started with.
TEST(Limits, ProgramUnderALowDescriptorLimitRunsWithThatLimit) {
    CaptureDir dir;
    std::ofstream(dir.file("data")) << "data\n";
    const std::string program = "/bin/sh -c \"ulimit -Sn; cat " + dir.file("data") + "\"";
    const PlainAndTraced run = runUnderLimit(dir, "ulimit -Sn 13", program, "-o " + dir.file("n.rep"));
    ASSERT_EQ(run.plainCode, 0) << run.plain;
    ASSERT_EQ(run.plain, "13\ndata\n");
    EXPECT_EQ(run.tracedCode, 0) << run.traced;
    EXPECT_EQ(run.traced, run.plain);
    EXPECT_TRUE(load(dir.file("n.rep")));
}

// Under a very small descriptor limit (`ulimit -n 16`, below 24) the module's files took the
// lowest free numbers: the program's first open returned 4, not 3. They take the top two now.
TEST(Limits, UnderAVerySmallDescriptorLimitTheProgramsNumbersStartAtThree) {
    if (std::string(SIGHTLINE_PYTHON).empty()) GTEST_SKIP() << "no python3";
    CaptureDir dir;
    const std::string program = std::string(SIGHTLINE_PYTHON) +
                                " -c \"import os; print(os.open('/dev/null', os.O_RDONLY))\"";
    const PlainAndTraced run =
        runUnderLimit(dir, "ulimit -Sn 16", program, "-s none -o " + dir.file("d.rep"));
    ASSERT_EQ(run.plainCode, 0) << run.plain;
    EXPECT_EQ(run.tracedCode, 0) << run.traced;
    EXPECT_EQ(run.traced, run.plain);
}

// An address-space limit (`ulimit -v`, or the program's own setrlimit(RLIMIT_AS)) counts every
// mapping: the module's 512 MiB buffer arena and 14 MiB of Python tables left a program under 64
// MiB no room (pthread_create failed with EAGAIN, malloc at once) and said nothing. Now the
// buffers take a thirty-second of the limit (the arena gives back its untaken slots when the
// program lowers it) and the Python tables are mapped only when used: the program can allocate
// nearly what it can without the profiler, and the report says the buffers were limited.
TEST(Limits, ProgramUnderAnAddressSpaceLimitKeepsItsRoom) {
    CaptureDir dir;
    const std::string client = test::client("address_space");
    for (const std::string& program : {"/bin/sh -c \"ulimit -v 65536; exec " + client + "\"",
                                      client + " 64"}) {
        SCOPED_TRACE(program);
        const std::string rep = dir.file("as.rep");
        const PlainAndTraced run = runUnderLimit(dir, "", program, "-f true -s none -o " + rep);
        ASSERT_EQ(run.plainCode, 0) << run.plain;
        ASSERT_EQ(run.tracedCode, 0) << "the program's thread could not start: " << run.traced;
        const long plain = std::atol(run.plain.c_str()), traced = std::atol(run.traced.c_str());
        EXPECT_GT(plain, 30) << run.plain;
        EXPECT_GE(traced, plain - 6) << "MiB the program could allocate: " << run.traced;
        auto r = load(rep);
        ASSERT_TRUE(r);
        EXPECT_NE(reasonOf(*r, "capture.buffers_limited").find("64 MiB"), std::string::npos);
    }
}

}  // namespace
}  // namespace sl::test
