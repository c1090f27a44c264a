// openmp_sum and the event details of OpenMP events, on the hand-built report of
// tests/analysis/OpenMpFixtures.h (every expected value follows from the times listed there).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <unistd.h>

#include "model/analysis/EventQueryDetails.h"
#include "model/analysis/StatsReports.h"
#include "model/analysis/TableFormatter.h"
#include "model/rep/RepWriter.h"
#include "tests/analysis/Fixtures.h"
#include "tests/analysis/OpenMpFixtures.h"
#include "tests/analysis/StatsTestUtil.h"

namespace sl::analysis {
namespace {

using test::expectAbsent;  // tests/analysis/StatsTestUtil.h
using test::runCsv;

// 4230 ns in all (nested constructs each count their whole time).
constexpr const char* kSum =
    "Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
    "41.6,1760,2,880.0,880.0,880,880,0.0,implicit task\n"
    "21.3,900,1,900.0,900.0,900,900,0.0,parallel\n"
    "16.5,700,2,350.0,350.0,320,380,42.4,loop\n"
    "6.7,285,2,142.5,142.5,90,195,74.2,implicit barrier (parallel)\n"
    "5.9,250,2,125.0,125.0,100,150,35.4,implicit barrier (worksharing)\n"
    "4.3,180,2,90.0,90.0,80,100,14.1,barrier\n"
    "2.0,85,1,85.0,85.0,85,85,0.0,taskwait\n"
    "1.7,70,1,70.0,70.0,70,70,0.0,task\n";

TEST(OpenMpReports, SumByHand) {
    auto r = test::makeOpenMpReport();
    EXPECT_EQ(runCsv(*r, "openmp_sum"), kSum);
}

TEST(OpenMpReports, TimeWindowKeepsEventsInside) {
    auto r = test::makeOpenMpReport();
    StatsOptions o;
    o.start = 1600;  // the explicit barriers, the taskwait and its task; not the implicit barriers
    o.end = 1800;
    EXPECT_EQ(runCsv(*r, "openmp_sum", o),
              "Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "53.7,180,2,90.0,90.0,80,100,14.1,barrier\n"
              "25.4,85,1,85.0,85.0,85,85,0.0,taskwait\n"
              "20.9,70,1,70.0,70.0,70,70,0.0,task\n");
}

TEST(OpenMpReports, SkippedWithoutOpenMpData) {
    auto r = test::makeStatsReport();
    auto t = runReport(*r, "openmp_sum", {});
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->skipped, "does not contain OpenMP event data.");
}

TEST(OpenMpReports, RegisteredAndLoadsOnlyOpenMpTracks) {
    const ReportInfo* info = findReport("openmp_sum");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->title, "OpenMP Summary");
    EXPECT_FALSE(info->isDefault);
    EXPECT_EQ(kindsReadBy({"openmp_sum"}, false), KindSet{EventKind::OpenMp});
    EXPECT_EQ(bareKindsFor({"openmp_sum"}, false), KindSet{EventKind::OpenMp});
}

// Through a .rep opened as `sightline stats` opens it (only OpenMP tracks, bare).
TEST(OpenMpReports, SameFromRepReadForTheReport) {
    auto r = test::makeOpenMpReport();
    test::expectSameFromRep(*r, "openmp_reports", "openmp_sum", kSum);
}

// The event of `name` on the OpenMP track of thread `tid`.
EventRef findEvent(const Report& r, int64_t tid, std::string_view name) {
    return test::findEvent(r, EventKind::OpenMp, 100, tid, name);  // all in process 100
}

TEST(OpenMpReports, EventDetails) {
    auto r = test::makeOpenMpReport();
    const EventRef par = findEvent(*r, 100, "parallel");
    ASSERT_TRUE(par.valid());
    auto f = eventDetails(*r, par);
    EXPECT_EQ(detailValue(f, "Construct"), "parallel region");
    EXPECT_EQ(detailValue(f, "Parallel region"), "1");
    EXPECT_EQ(detailValue(f, "Parent task"), "1");
    EXPECT_EQ(detailValue(f, "Threads requested"), "2");
    EXPECT_EQ(detailValue(f, "Code address"), "0x401a2b");
    expectAbsent(f, {"Task", "Thread number", "Iterations", "Team size"});

    const EventRef implicit = findEvent(*r, 101, "implicit task");
    ASSERT_TRUE(implicit.valid());
    f = eventDetails(*r, implicit);
    EXPECT_EQ(detailValue(f, "Construct"), "implicit task");
    EXPECT_EQ(detailValue(f, "Task"), "3");
    EXPECT_EQ(detailValue(f, "Team size"), "2");
    EXPECT_EQ(detailValue(f, "Thread number"), "1");
    expectAbsent(f, {"Code address", "Threads requested", "Iterations"});

    const EventRef loop = findEvent(*r, 100, "loop");
    ASSERT_TRUE(loop.valid());
    f = eventDetails(*r, loop);
    EXPECT_EQ(detailValue(f, "Construct"), "worksharing (loop)");
    EXPECT_EQ(detailValue(f, "Parallel region"), "1");
    EXPECT_EQ(detailValue(f, "Task"), "2");
    EXPECT_EQ(detailValue(f, "Iterations"), "500");
    EXPECT_EQ(detailValue(f, "Code address"), "0x401b00");
    expectAbsent(f, {"Thread number"});

    const EventRef bar = findEvent(*r, 101, "implicit barrier (parallel)");
    ASSERT_TRUE(bar.valid());
    f = eventDetails(*r, bar);
    EXPECT_EQ(detailValue(f, "Construct"), "synchronization (implicit barrier, parallel)");
    expectAbsent(f, {"Iterations", "Count", "Thread number", "Code address"});

    const EventRef task = findEvent(*r, 100, "task");
    ASSERT_TRUE(task.valid());
    f = eventDetails(*r, task);
    EXPECT_EQ(detailValue(f, "Construct"), "explicit task");
    EXPECT_EQ(detailValue(f, "Task"), "5");
    expectAbsent(f, {"Parallel region"});
}

}  // namespace
}  // namespace sl::analysis
