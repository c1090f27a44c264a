// End to end: CPU samples of an nsys export through the real `sightline` binary: import,
// info (samples and stacks counts), stats -r sample_sum (formats, --filter-time), export.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>

#include "ImportTestUtil.h"

namespace sl::test {
namespace {

struct CliResult {
    int exitCode = -1;
    std::string out;  // stdout and stderr
};

CliResult sightline(const std::string& args) {
    CliResult r;
    const std::string cmd = std::string(SIGHTLINE_CLI) + " " + args + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int status = pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

TEST(SamplesCli, ImportInfoStatsAndExport) {
    TempDir dir;
    const std::string rep = dir.file("saxpy.rep");
    CliResult imp =
        sightline("import '" + fixture("pipit_saxpy_mpi_cuda.sqlite") + "' -o '" + rep + "'");
    ASSERT_EQ(imp.exitCode, 0) << imp.out;

    CliResult info = sightline("info '" + rep + "'");
    ASSERT_EQ(info.exitCode, 0) << info.out;
    EXPECT_NE(info.out.find("CPU samples                         5,451 in 1 tracks"),
              std::string::npos)
        << info.out;
    EXPECT_NE(info.out.find("Call stacks                           571 distinct, of 532 frames"),
              std::string::npos)
        << info.out;
    CliResult json = sightline("info --format json '" + rep + "'");
    EXPECT_NE(json.out.find("\"cpu_sample\": 5451\n"), std::string::npos) << json.out;
    EXPECT_NE(json.out.find("\"call_stacks\": 571,\n    \"stack_frames\": 532\n"),
              std::string::npos)
        << json.out;

    CliResult csv = sightline("stats -r sample_sum -f csv '" + rep + "'");
    ASSERT_EQ(csv.exitCode, 0) << csv.out;
    EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')),
              "Self Samples,Self (%),Total Samples,Total (%),Function,Module");
    EXPECT_NE(csv.out.find("\n2980,54.7,3568,65.5,main,/global/u2/o/ocankur/apps/chatterbug/"
                           "saxpy-mpi-cuda/saxpy-mpi-cuda\n"),
              std::string::npos)
        << csv.out;
    // The first 100 ms hold the samples of start-up only (none of main's loop).
    CliResult window = sightline("stats -r sample_sum -f csv --filter-time 0/100ms '" + rep + "'");
    ASSERT_EQ(window.exitCode, 0) << window.out;
    EXPECT_EQ(window.out.find(",main,"), std::string::npos) << window.out;
    // 9 samples there; do_lookup_x is the leaf of 3 (SQL: start < 100000000 AND stackDepth = 0).
    EXPECT_NE(window.out.find("\n3,33.3,"), std::string::npos) << window.out;
    EXPECT_NE(window.out.find(",do_lookup_x,/lib64/ld-2.31.so\n"), std::string::npos) << window.out;
    // --filter-nvtx: the MPI_Init range holds 138 samples (SQL: start BETWEEN the range's start
    // and end); 12 of them in one unresolved address of the PTX JIT compiler.
    CliResult nvtx =
        sightline("stats -r sample_sum -f csv --filter-nvtx MPI_Init@MPI '" + rep + "'");
    ASSERT_EQ(nvtx.exitCode, 0) << nvtx.out;
    EXPECT_NE(
        nvtx.out.find(
            "\n12,8.7,12,8.7,0x7fd940ad11ef,/usr/lib64/libnvidia-ptxjitcompiler.so.525.105.17\n"),
        std::string::npos)
        << nvtx.out;
    int64_t selfSum = 0;
    for (size_t line = nvtx.out.find('\n'); line != std::string::npos && line + 1 < nvtx.out.size();
         line = nvtx.out.find('\n', line + 1))
        selfSum += std::atoll(nvtx.out.c_str() + line + 1);
    EXPECT_EQ(selfSum, 138);
    CliResult column = sightline("stats -r sample_sum '" + rep + "'");
    EXPECT_NE(column.out.find("** CPU Sample Summary (flat profile) (sample_sum):"),
              std::string::npos)
        << column.out;
    CliResult list = sightline("stats --help-reports");
    EXPECT_NE(list.out.find("sample_sum"), std::string::npos) << list.out;

    CliResult exp =
        sightline("export --type sqlite -o '" + dir.file("re.sqlite") + "' '" + rep + "'");
    ASSERT_EQ(exp.exitCode, 0) << exp.out;
    CliResult again = sightline("stats -r sample_sum -f csv '" + dir.file("re.sqlite") + "'");
    ASSERT_EQ(again.exitCode, 0) << again.out;
    EXPECT_EQ(again.out, csv.out);  // our own export, imported again, gives the same profile

    // diff: the third table compares shares per function; a run against itself changes nothing.
    CliResult diff =
        sightline("diff -r samples -f csv '" + rep + "' '" + dir.file("re.sqlite") + "'");
    ASSERT_EQ(diff.exitCode, 0) << diff.out;
    EXPECT_NE(diff.out.find("\nSelf Samples A,Self Samples B,Self A (%),Self B (%),Self Delta "
                            "(%),Total A (%),Total B (%),"
                            "Presence,Function,Module\n2980,2980,54.7,54.7,0.0,65.5,65.5,both,main,"
                            "saxpy-mpi-cuda\n"),
              std::string::npos)
        << diff.out;
    EXPECT_EQ(diff.out.find("only "), std::string::npos) << diff.out;
    CliResult kernelsOnly = sightline("diff -r kernels -f json '" + rep + "' '" + rep + "'");
    EXPECT_EQ(kernelsOnly.out.find("\"samples\""), std::string::npos) << kernelsOnly.out;
    CliResult bad = sightline("diff -r sample '" + rep + "' '" + rep + "'");
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(
        bad.out.find("--report: 'sample' is not a valid value (expected a comma-separated list "
                     "of kernels, api, nvtx, memops, samples, rules and all); did you mean 'samples'?"),
        std::string::npos)
        << bad.out;
}

}  // namespace
}  // namespace sl::test
