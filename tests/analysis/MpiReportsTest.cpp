// mpi_event_sum, mpi_event_trace and the event details of MPI calls, on the hand-built report
// of tests/analysis/MpiFixtures.h (every expected value follows from the times listed there).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <unistd.h>

#include "model/analysis/EventQueryDetails.h"
#include "model/analysis/StatsReports.h"
#include "model/analysis/TableFormatter.h"
#include "model/rep/RepWriter.h"
#include "model/util/Format.h"
#include "tests/analysis/Fixtures.h"
#include "tests/analysis/MpiFixtures.h"
#include "tests/analysis/StatsTestUtil.h"

namespace sl::analysis {
namespace {

using test::expectAbsent;  // tests/analysis/StatsTestUtil.h
using test::runCsv;

// Total 1381 ns over all calls; ties (MPI_Recv and MPI_Wait, 80 ns once each) by name.
constexpr const char* kSum =
    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
    "36.2,500,2,250.0,250.0,200,300,70.7,MPI_Init\n"
    "27.5,380,2,190.0,190.0,180,200,14.1,MPI_Allreduce\n"
    "10.9,150,2,75.0,75.0,50,100,35.4,MPI_Finalize\n"
    "5.8,80,1,80.0,80.0,80,80,0.0,MPI_Recv\n"
    "5.8,80,1,80.0,80.0,80,80,0.0,MPI_Wait\n"
    "4.0,55,2,27.5,27.5,25,30,3.5,MPI_Bcast\n"
    "3.6,50,1,50.0,50.0,50,50,0.0,MPI_Send\n"
    "2.9,40,1,40.0,40.0,40,40,0.0,MPI_Ibarrier\n"
    "2.2,30,1,30.0,30.0,30,30,0.0,MPI_Waitall\n"
    "0.7,10,1,10.0,10.0,10,10,0.0,MPI_Isend\n"
    "0.4,5,1,5.0,5.0,5,5,0.0,MPI_Irecv\n"
    "0.1,1,1,1.0,1.0,1,1,0.0,MPI_Initialized\n";

// By start; point-to-point rows have Tag, PeerRank, Size (sent, or received for receives);
// collectives RootRank (rooted ones), CollSendSize, CollRecvSize; process 300 has no rank.
constexpr const char* kTrace =
    "Kind,Start (ns),End (ns),Duration (ns),Event,Pid,Tid,Tag,Rank,PeerRank,RootRank,Size,CollSendSize,CollRecvSize\n"
    "other,50,350,300,MPI_Init,200,200,,1,,,,,\n"
    "other,100,300,200,MPI_Init,100,100,,0,,,,,\n"
    "p2p,380,460,80,MPI_Recv,200,200,7,1,0,,4096,,\n"
    "p2p,400,450,50,MPI_Send,100,100,7,0,1,,4096,,\n"
    "p2p,490,495,5,MPI_Irecv,200,200,8,1,0,,1024,,\n"
    "p2p,500,510,10,MPI_Isend,100,100,8,0,1,,1024,,\n"
    "startwait,502,532,30,MPI_Waitall,200,200,,1,,,,,\n"
    "startwait,520,600,80,MPI_Wait,100,100,,0,,,,,\n"
    "collective,650,690,40,MPI_Ibarrier,100,101,,0,,,,0,0\n"
    "collective,700,900,200,MPI_Allreduce,100,100,,0,,,,800,800\n"
    "collective,720,900,180,MPI_Allreduce,200,200,,1,,,,800,800\n"
    "collective,1000,1030,30,MPI_Bcast,100,100,,0,,0,,64,0\n"
    "collective,1005,1030,25,MPI_Bcast,200,200,,1,,0,,0,64\n"
    "other,2000,2100,100,MPI_Finalize,100,100,,0,,,,,\n"
    "other,2010,2060,50,MPI_Finalize,200,200,,1,,,,,\n"
    "other,3000,3001,1,MPI_Initialized,300,300,,,,,,,\n";

TEST(MpiReports, EventSumByHand) {
    auto r = test::makeMpiReport();
    EXPECT_EQ(runCsv(*r, "mpi_event_sum"), kSum);
}

TEST(MpiReports, EventTraceByHand) {
    auto r = test::makeMpiReport();
    EXPECT_EQ(runCsv(*r, "mpi_event_trace"), kTrace);
}

TEST(MpiReports, TimeWindowKeepsCallsInside) {
    auto r = test::makeMpiReport();
    StatsOptions o;
    o.start = 1600;  // MPI_Wait [1520, 1600] starts before: out
    o.end = 2100;
    EXPECT_EQ(runCsv(*r, "mpi_event_sum", o),
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "80.0,380,2,190.0,190.0,180,200,14.1,MPI_Allreduce\n"
              "11.6,55,2,27.5,27.5,25,30,3.5,MPI_Bcast\n"
              "8.4,40,1,40.0,40.0,40,40,0.0,MPI_Ibarrier\n");
    const std::string trace = runCsv(*r, "mpi_event_trace", o);
    EXPECT_EQ(std::count(trace.begin(), trace.end(), '\n'), 6);  // header + 5 calls
    EXPECT_NE(trace.find("collective,650,690,40,MPI_Ibarrier"), std::string::npos);
}

TEST(MpiReports, SkippedWithoutMpiData) {
    auto r = test::makeStatsReport();
    for (const char* name : {"mpi_event_sum", "mpi_event_trace"}) {
        auto t = runReport(*r, name, {});
        ASSERT_TRUE(t.ok()) << name;
        EXPECT_EQ(t->skipped, "does not contain MPI trace data.") << name;
    }
}

TEST(MpiReports, RegisteredAndLoadOnlyMpiTracks) {
    for (const char* name : {"mpi_event_sum", "mpi_event_trace"}) {
        const ReportInfo* info = findReport(name);
        ASSERT_NE(info, nullptr) << name;
        EXPECT_FALSE(info->isDefault) << name;
        EXPECT_EQ(kindsReadBy({name}, false), KindSet{EventKind::Mpi}) << name;
    }
    // The summary reads only start, end and name; the trace every column.
    EXPECT_EQ(bareKindsFor({"mpi_event_sum"}, false), KindSet{EventKind::Mpi});
    EXPECT_EQ(bareKindsFor({"mpi_event_trace"}, false), KindSet{});
    EXPECT_EQ(bareKindsFor({"mpi_event_sum", "mpi_event_trace"}, false), KindSet{});
}

// Through a .rep opened as `sightline stats` opens it (only MPI tracks, bare for the summary):
// the same tables, ranks included.
TEST(MpiReports, SameFromRepReadForTheReport) {
    auto r = test::makeMpiReport();
    test::expectSameFromRep(*r, "mpi_reports", "mpi_event_sum", kSum);
    test::expectSameFromRep(*r, "mpi_reports", "mpi_event_trace", kTrace);
}

// The event of `name` on the MPI track of (pid, tid).
EventRef findCall(const Report& r, int64_t pid, int64_t tid, std::string_view name) {
    return test::findEvent(r, EventKind::Mpi, pid, tid, name);
}

TEST(MpiReports, EventDetails) {
    auto r = test::makeMpiReport();
    const EventRef send = findCall(*r, 100, 100, "MPI_Send");
    ASSERT_TRUE(send.valid());
    auto f = eventDetails(*r, send);
    EXPECT_EQ(detailValue(f, "Call class"), "p2p");
    EXPECT_EQ(detailValue(f, "Peer rank"), "1");
    EXPECT_EQ(detailValue(f, "Tag"), "7");
    EXPECT_EQ(detailValue(f, "Bytes sent"), formatBytes(4096) + " (4096 B)");
    EXPECT_EQ(detailValue(f, "Communicator"), "0x44000000");
    EXPECT_EQ(detailValue(f, "MPI rank"), "0 of 2");
    expectAbsent(f, {"Root rank", "Bytes received", "Request"});

    const EventRef bcast = findCall(*r, 200, 200, "MPI_Bcast");
    ASSERT_TRUE(bcast.valid());
    f = eventDetails(*r, bcast);
    EXPECT_EQ(detailValue(f, "Call class"), "collective");
    EXPECT_EQ(detailValue(f, "Root rank"), "0");
    EXPECT_EQ(detailValue(f, "Bytes received"), "64 B");  // in bytes already: said once
    EXPECT_EQ(detailValue(f, "Communicator"), "0x55d0c0ffee00");
    EXPECT_EQ(detailValue(f, "MPI rank"), "1 of 2");
    expectAbsent(f, {"Peer rank", "Tag", "Bytes sent", "Request"});

    const EventRef wait = findCall(*r, 100, 100, "MPI_Wait");
    ASSERT_TRUE(wait.valid());
    f = eventDetails(*r, wait);
    EXPECT_EQ(detailValue(f, "Call class"), "startwait");
    EXPECT_EQ(detailValue(f, "Request"), "0xa1");
    expectAbsent(f, {"Communicator", "Peer rank", "Tag", "Root rank", "Bytes sent"});

    const EventRef unranked = findCall(*r, 300, 300, "MPI_Initialized");
    ASSERT_TRUE(unranked.valid());
    f = eventDetails(*r, unranked);
    EXPECT_EQ(detailValue(f, "Call class"), "other");
    expectAbsent(f, {"MPI rank"});
}

}  // namespace
}  // namespace sl::analysis
