// CPU samples in `diff`: shares per function on each side and the change in percentage points,
// on the hand-built sample report (A, 12 samples, see SampleFixtures.h) and a smaller B.
#include <gtest/gtest.h>

#include <sstream>

#include "model/analysis/SampleDiff.h"
#include "model/analysis/TableFormatter.h"
#include "model/core/ReportBuilder.h"
#include "tests/analysis/SampleFixtures.h"

namespace sl::analysis {
namespace {

// B, 8 samples: square < compute < main x1, sqrt(libm) < compute < main x3, newfn < main x4.
// The module paths differ from A's (another machine): functions match by module file name.
std::shared_ptr<Report> makeB() {
    ReportBuilder b;
    const uint32_t app = b.intern("/opt/build/app"), libm = b.intern("/lib64/libm.so.6");
    const uint32_t main = b.frameId({b.intern("main"), app, 0x2000});
    const uint32_t compute = b.frameId({b.intern("compute"), app, 0x2100});
    const uint32_t square = b.frameId({b.intern("square"), app, 0x2200});
    const uint32_t sqrtF = b.frameId({b.intern("sqrt"), libm, 0x3000});
    const uint32_t newfn = b.frameId({b.intern("newfn"), app, 0x2400});
    const uint32_t s1 = b.stackId({square, compute, main}), s2 = b.stackId({sqrtF, compute, main});
    const uint32_t s3 = b.stackId({newfn, main});
    b.add(CpuSampleEvent{9, 9, 10, s1, 0, 0});
    for (int64_t t : {20, 30, 40}) b.add(CpuSampleEvent{9, 9, t, s2, 0, 0});
    for (int64_t t : {50, 60, 70, 80}) b.add(CpuSampleEvent{9, 9, t, s3, 0, 0});
    return b.finish();
}

TEST(SampleDiff, SharesAndChangePerFunction) {
    auto a = test::makeSampleReport();
    auto b = makeB();
    std::ostringstream out;
    writeTable(out, diffSamplesTable(*a, *b), {TableFormat::Csv, "ns"});
    // Self shares A (of 12) -> B (of 8): newfn 0 -> 50, square 33.3 -> 12.5, compute 16.7 -> 0,
    // recurse 16.7 -> 0 (only A), sqrt 25 -> 37.5, 0x1234 8.3 -> 0 (only A), main 0 -> 0.
    EXPECT_EQ(out.str(),
              "Self Samples A,Self Samples B,Self A (%),Self B (%),Self Delta (%),Total A "
              "(%),Total B (%),Presence,Function,Module\n"
              "0,4,0.0,50.0,50.0,0.0,50.0,only B,newfn,app\n"
              "4,1,33.3,12.5,-20.8,33.3,12.5,both,square,app\n"
              "2,0,16.7,0.0,-16.7,83.3,50.0,both,compute,app\n"
              "2,0,16.7,0.0,-16.7,16.7,0.0,only A,recurse,app\n"
              "3,3,25.0,37.5,12.5,33.3,37.5,both,sqrt,libm.so.6\n"
              "1,0,8.3,0.0,-8.3,8.3,0.0,only A,0x1234,libm.so.6\n"
              "0,0,0.0,0.0,0.0,100.0,100.0,both,main,app\n");
}

TEST(SampleDiff, ReportWithoutSamplesIsAnEmptySide) {
    auto a = test::makeSampleReport();
    Report none;
    EXPECT_FALSE(hasCpuSamples(none));
    EXPECT_TRUE(hasCpuSamples(*a));
    const Table t = diffSamplesTable(none, *a);
    ASSERT_EQ(t.rowCount(), 6u);
    for (size_t i = 0; i < t.rowCount(); ++i) EXPECT_EQ(t.columns[7].texts[i], "only B");
    EXPECT_EQ(diffSamplesTable(none, none).rowCount(), 0u);
}

}  // namespace
}  // namespace sl::analysis
