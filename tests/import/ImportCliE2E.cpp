// End to end: the real `sightline import` binary on fixtures and on bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "ImportTestUtil.h"
#include "model/rep/RepReader.h"

namespace sl::test {
namespace {

struct CliRun {
    int exitCode = -1;
    std::string output;  // stdout and stderr
};

CliRun run(const std::string& args) {
    CliRun r;
    const std::string cmd = std::string(SIGHTLINE_CLI) + " " + args + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
    const int status = pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

std::string q(const std::string& s) {
    return "'" + s + "'";
}

TEST(ImportCli, ImportsNsysExportAndKinetoTrace) {
    TempDir dir;
    const std::string out = dir.file("saxpy.rep");
    CliRun a = run("import " + q(fixture("pipit_saxpy_mpi_cuda.sqlite")) + " -o " + q(out));
    ASSERT_EQ(a.exitCode, 0) << a.output;
    EXPECT_NE(a.output.find("Imported 7,169 events (nsys-sqlite)"), std::string::npos) << a.output;
    auto r = readReport(out);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ((*r)->eventCount(EventKind::Kernel), 5u);
    EXPECT_EQ((*r)->eventCount(EventKind::CudaApi), 57u);
    EXPECT_EQ((*r)->eventCount(EventKind::NvtxRange), 22u);

    const std::string out2 = dir.file("resnet.rep");
    CliRun b =
        run("import " + q(fixture("kineto_resnet50_legacy_2021.json.gz")) + " -o " + q(out2));
    ASSERT_EQ(b.exitCode, 0) << b.output;
    auto k = readReport(out2);
    ASSERT_TRUE(k.ok()) << k.error();
    EXPECT_EQ((*k)->eventCount(EventKind::Kernel), 8772u);
    EXPECT_EQ((*k)->session.source, "kineto-json");
    // `sightline info` reads the result.
    CliRun info = run("info " + q(out2));
    EXPECT_EQ(info.exitCode, 0);
    EXPECT_NE(info.output.find("kineto-json"), std::string::npos);
}

TEST(ImportCli, DefaultOutputNameAndNoOverwrite) {
    TempDir dir;
    const std::string input = dir.file("step.pt.trace.json.gz");
    std::filesystem::copy_file(fixture("hta_compare_base.json.gz"), input);
    CliRun a = run("import -q " + q(input));
    ASSERT_EQ(a.exitCode, 0) << a.output;
    EXPECT_EQ(a.output, "");
    EXPECT_TRUE(std::filesystem::exists(dir.file("step.rep")));
    CliRun again = run("import " + q(input));
    EXPECT_NE(again.exitCode, 0);
    EXPECT_NE(again.output.find("already exists"), std::string::npos);
    CliRun forced = run("import -f " + q(input));
    EXPECT_EQ(forced.exitCode, 0) << forced.output;
}

// Each bad input: a one-line error, a non-zero exit, and nothing left in the output directory.
void expectCleanFailure(const TempDir& inputs, const std::string& input,
                        const std::string& expected) {
    TempDir outDir;
    CliRun r = run("import " + q(input) + " -o " + q(outDir.file("out.rep")));
    EXPECT_NE(r.exitCode, 0) << input;
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_EQ(outDir.entries(), 0u) << "output left behind for " << input;
    (void)inputs;
}

TEST(ImportCli, BadInputFailsCleanly) {
    TempDir dir;
    expectCleanFailure(dir, dir.file("missing.json"), "no such file");
    expectCleanFailure(dir, dir.path().string(), "is a directory");
    expectCleanFailure(dir, dir.write("notes.txt", "hello, world\n"), "not a supported trace");
    std::ifstream in(fixture("kineto_resnet50_legacy_2021.json.gz"), std::ios::binary);
    const std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    expectCleanFailure(dir, dir.write("cut.json.gz", gz.substr(0, gz.size() - 1000)),
                       "truncated gzip");
    expectCleanFailure(dir, dir.write("bad.json", "{\"traceEvents\": [{\"ph\": }]}"), "at byte");
    const std::string db = dir.file("other.sqlite");
    ASSERT_EQ(run("import " + q(fixture("hta_compare_base.json.gz")) + " -o " + q(db)).exitCode, 0);
    // A Sightline report is SQLite but not an nsys export: refused with its own message.
    expectCleanFailure(dir, db, "already a Sightline report");
    std::ofstream(dir.file("plain.sqlite"), std::ios::binary)
        << std::string("SQLite format 3\0", 16) << std::string(1000, '\0');
    CliRun r = run("import " + q(dir.file("plain.sqlite")) + " -o " + q(dir.file("never.rep")));
    EXPECT_NE(r.exitCode, 0);
    EXPECT_FALSE(std::filesystem::exists(dir.file("never.rep")));
}

}  // namespace
}  // namespace sl::test
