// sample_sum (flat CPU profile) on a hand-built report with exact numbers (see
// SampleFixtures.h), in every output format, with a time window, and on the imported nsys
// fixture against counts computed from its SAMPLING_CALLCHAINS table with SQL.
#include <gtest/gtest.h>

#include <sstream>

#include "model/analysis/StatsReports.h"
#include "model/analysis/TableFormatter.h"
#include "model/core/ReportBuilder.h"
#include "tests/analysis/SampleFixtures.h"
#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#endif

namespace sl::analysis {
namespace {

std::string render(const Report& r, const StatsOptions& o, TableFormat f) {
    auto t = runReport(r, "sample_sum", o);
    if (!t) return "ERROR: " + t.error();
    if (!t->skipped.empty()) return "SKIPPED: " + t->skipped;
    std::ostringstream out;
    writeTable(out, *t, {f, "ns"});
    return out.str();
}

TEST(SampleSum, FlatProfileOfHandBuiltReport) {
    auto r = test::makeSampleReport();
    // 12 samples. Self: square 4, sqrt 3, compute 2, recurse 2, libm+0x1234 1, main 0.
    // Total: main 12, compute 10 (S1-S4), square 4, sqrt 4 (S2, S4), recurse 2 (recursion
    // counted once per sample), 0x1234 1. Ties on self order by total.
    EXPECT_EQ(render(*r, {}, TableFormat::Csv),
              "Self Samples,Self (%),Total Samples,Total (%),Function,Module\n"
              "4,33.3,4,33.3,square,/usr/bin/app\n"
              "3,25.0,4,33.3,sqrt,/usr/lib/libm.so.6\n"
              "2,16.7,10,83.3,compute,/usr/bin/app\n"
              "2,16.7,2,16.7,recurse,/usr/bin/app\n"
              "1,8.3,1,8.3,0x1234,/usr/lib/libm.so.6\n"
              "0,0.0,12,100.0,main,/usr/bin/app\n");
}

TEST(SampleSum, ByModule) {
    auto r = test::makeSampleReport();
    // Self: app = square 4 + compute 2 + recurse 2, libm = sqrt 3 + 0x1234 1. Total: app is on
    // every stack (main); libm on S2 x3 and S4 x1.
    auto t = runReport(*r, "sample_sum:module", {});
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->title, "CPU Sample Summary (by module)");
    std::ostringstream out;
    writeTable(out, *t, {TableFormat::Csv, "ns"});
    EXPECT_EQ(out.str(),
              "Self Samples,Self (%),Total Samples,Total (%),Module\n"
              "8,66.7,12,100.0,/usr/bin/app\n"
              "4,33.3,4,33.3,/usr/lib/libm.so.6\n");
}

TEST(SampleSum, TimeWindowCountsOnlySamplesInside) {
    auto r = test::makeSampleReport();
    StatsOptions o;
    o.start = 500;  // S2 x3 (500-700) and S3 x2 (800, 900)
    o.end = 900;
    EXPECT_EQ(render(*r, o, TableFormat::Tsv),
              "Self Samples\tSelf (%)\tTotal Samples\tTotal (%)\tFunction\tModule\n"
              "3\t60.0\t3\t60.0\tsqrt\t/usr/lib/libm.so.6\n"
              "2\t40.0\t5\t100.0\tcompute\t/usr/bin/app\n"
              "0\t0.0\t5\t100.0\tmain\t/usr/bin/app\n");
    o.start = 1'500;  // after the last sample: a table with no rows, not a skip
    o.end = 2'000;
    auto t = runReport(*r, "sample_sum", o);
    ASSERT_TRUE(t.ok());
    EXPECT_TRUE(t->skipped.empty());
    EXPECT_EQ(t->rowCount(), 0u);
}

TEST(SampleSum, JsonAndColumnFormats) {
    auto r = test::makeSampleReport();
    const std::string json = render(*r, {}, TableFormat::Json);
    EXPECT_NE(json.find("\"Self Samples\": 4"), std::string::npos) << json;
    EXPECT_NE(json.find("\"Function\": \"square\""), std::string::npos) << json;
    const std::string column = render(*r, {}, TableFormat::Column);
    EXPECT_NE(column.find("Self (%)"), std::string::npos) << column;
    EXPECT_NE(column.find("100.0"), std::string::npos) << column;
}

TEST(SampleSum, SkippedWithoutSamplesAndRejectsArguments) {
    Report empty;
    EXPECT_EQ(render(empty, {}, TableFormat::Csv), "SKIPPED: does not contain CPU sampling data.");
    auto r = test::makeSampleReport();
    auto t = runReport(*r, "sample_sum:base", {});
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error(), "report 'sample_sum' does not take the argument 'base'");
}

TEST(SampleSum, SamplesWithEmptyStackGetTheirOwnRow) {
    ReportBuilder b;
    const uint32_t exe = b.intern("/bin/x"), f = b.intern("f");
    const uint32_t s = b.stackId({b.frameId({f, exe, 16})}), none = b.stackId({});
    b.add(CpuSampleEvent{1, 1, 10, s, f, 0});
    b.add(CpuSampleEvent{1, 1, 20, none, 0, 0});
    b.add(CpuSampleEvent{1, 1, 30, none, 0, 0});
    auto r = b.finish();
    EXPECT_EQ(render(*r, {}, TableFormat::Csv),
              "Self Samples,Self (%),Total Samples,Total (%),Function,Module\n"
              "1,33.3,1,33.3,f,/bin/x\n"
              "2,66.7,2,66.7,[no call stack],\n");
}

#ifdef SIGHTLINE_HAVE_IMPORT
TEST(SampleSum, ImportedNsysFixtureMatchesSqlCounts) {
    auto imported =
        importFile(std::string(SIGHTLINE_TEST_DATA) + "/import/pipit_saxpy_mpi_cuda.sqlite");
    ASSERT_TRUE(imported.ok()) << imported.error();
    auto t = runReport(**imported, "sample_sum", {});
    ASSERT_TRUE(t.ok());
    ASSERT_GE(t->rowCount(), 8u);
    // Self: COUNT(*) of stackDepth 0 rows per (symbol, module); total: COUNT(DISTINCT id) per
    // (symbol, module), unresolved symbols named by printf('0x%x', originalIP).
    const std::vector<std::tuple<int64_t, int64_t, std::string>> expected = {
        {2980, 3568, "main"},
        {492, 492, "std::abs(double)"},
        {240, 260, "cxip_cq_progress"},
        {233, 454, "MPIR_Wait_impl"},
        {167, 172, "MPIDI_SHMI_progress"},
        {162, 162, "0x7fd99b3515d4"},
        {150, 261, "ofi_cq_readfrom"},
        {82, 82, "0x7ffcf926f858"}};
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(t->columns[0].ints[i], std::get<0>(expected[i])) << i;
        EXPECT_EQ(t->columns[2].ints[i], std::get<1>(expected[i])) << i;
        EXPECT_EQ(t->columns[4].texts[i], std::get<2>(expected[i])) << i;
    }
    EXPECT_EQ(t->columns[5].texts[5], "/usr/lib64/libcuda.so.525.105.17");
    int64_t self = 0;
    for (int64_t v : t->columns[0].ints) self += v;
    EXPECT_EQ(self, 5451);  // every sample has exactly one leaf
    EXPECT_NEAR(t->columns[1].reals[0], 2980.0 * 100.0 / 5451.0, 1e-9);
    // Per module (SQL: self = COUNT(*) at stackDepth 0, total = COUNT(DISTINCT id) per module).
    auto m = runReport(**imported, "sample_sum:module", {});
    ASSERT_TRUE(m.ok());
    ASSERT_GE(m->rowCount(), 4u);
    const std::vector<std::tuple<int64_t, int64_t, std::string>> modules = {
        {3472, 3943, "/global/u2/o/ocankur/apps/chatterbug/saxpy-mpi-cuda/saxpy-mpi-cuda"},
        {632, 662, "/opt/cray/libfabric/1.15.2.0/lib64/libfabric.so.1.18.2"},
        {613, 650, "/usr/lib64/libcuda.so.525.105.17"},
        {456, 632, "/opt/cray/pe/mpich/8.1.25/ofi/nvidia/20.7/lib/libmpi_nvidia.so.12.0.0"}};
    for (size_t i = 0; i < modules.size(); ++i) {
        EXPECT_EQ(m->columns[0].ints[i], std::get<0>(modules[i])) << i;
        EXPECT_EQ(m->columns[2].ints[i], std::get<1>(modules[i])) << i;
        EXPECT_EQ(m->columns[4].texts[i], std::get<2>(modules[i])) << i;
    }
}
#endif

}  // namespace
}  // namespace sl::analysis
