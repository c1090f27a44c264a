// MPI calls in the exports: the nsys SQLite tables (MPI_RANKS and one table per call class)
// and the Chrome trace's "mpi" slices, on the report of tests/analysis/MpiFixtures.h.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/export/ChromeTraceExporter.h"
#include "model/export/NsysTables.h"
#include "model/export/SqliteExporter.h"
#include "tests/analysis/Fixtures.h"
#include "tests/analysis/MpiFixtures.h"
#include "tests/analysis/StatsTestUtil.h"
#include "tests/export/ExportTestUtil.h"
#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#endif

namespace sl::exporter {
namespace {

using namespace test;  // query, columnsOf, Rows, linesWith: tests/export/ExportTestUtil.h

// Pid and tid of a globalTid, and the call's name through StringIds.
constexpr const char* kWho = "(e.globalTid >> 24) & 0xFFFFFF, e.globalTid & 0xFFFFFF, s.value";
constexpr const char* kFrom = " AS e JOIN StringIds AS s ON s.id = e.textId ORDER BY e.start";
const std::string kComm0 = std::to_string(test::kMpiComm0);  // 1140850688
const std::string kComm1 = std::to_string(test::kMpiComm1);  // 94355079556608

TEST(MpiExport, SqliteRanksOnePerThreadOfRankedProcesses) {
    test::TempDir dir;
    auto r = test::makeMpiReport();
    const std::string db = dir.file("m.sqlite");
    ASSERT_TRUE(exportSqlite(*r, db).ok());
    EXPECT_EQ(columnsOf(db, "MPI_RANKS"), "globalTid,rank");
    EXPECT_EQ(query(db, "SELECT (globalTid >> 24) & 0xFFFFFF, globalTid & 0xFFFFFF, rank FROM MPI_RANKS ORDER BY 1, 2"),
              (Rows{{"100", "100", "0"}, {"100", "101", "0"}, {"200", "200", "1"}}));
    // The same globalTid as ThreadNames and the event tables.
    EXPECT_EQ(query(db, "SELECT count(*) FROM MPI_RANKS r JOIN ThreadNames t ON t.globalTid = r.globalTid"),
              (Rows{{"3"}}));
    EXPECT_EQ(query(db, "SELECT count(*), sum(r.rank) FROM MPI_P2P_EVENTS e JOIN MPI_RANKS r ON r.globalTid = e.globalTid"),
              (Rows{{"4", "2"}}));
    EXPECT_EQ(query(db, "SELECT globalTid FROM MPI_RANKS WHERE globalTid & 0xFFFFFF = 101"),
              (Rows{{std::to_string(globalTid(100, 101))}}));
}

TEST(MpiExport, SqliteEventTablesByClass) {
    test::TempDir dir;
    auto r = test::makeMpiReport();
    const std::string db = dir.file("m.sqlite");
    ASSERT_TRUE(exportSqlite(*r, db).ok());
    EXPECT_EQ(columnsOf(db, "MPI_P2P_EVENTS"), "start,end,globalTid,textId,commHandle,tag,remoteRank,size,requestHandle");
    EXPECT_EQ(columnsOf(db, "MPI_COLLECTIVES_EVENTS"),
              "start,end,globalTid,textId,commHandle,rootRank,size,recvSize,requestHandle");
    EXPECT_EQ(columnsOf(db, "MPI_START_WAIT_EVENTS"), "start,end,globalTid,textId,requestHandle");
    EXPECT_EQ(columnsOf(db, "MPI_OTHER_EVENTS"), "start,end,globalTid,textId");
    // Times from the session start (1000); size: bytes sent, or received for a receive.
    EXPECT_EQ(query(db, std::string("SELECT e.start, e.end, ") + kWho +
                            ", e.commHandle, e.tag, e.remoteRank, e.size, e.requestHandle FROM MPI_P2P_EVENTS" + kFrom),
              (Rows{{"380", "460", "200", "200", "MPI_Recv", kComm1, "7", "0", "4096", "NULL"},
                    {"400", "450", "100", "100", "MPI_Send", kComm0, "7", "1", "4096", "NULL"},
                    {"490", "495", "200", "200", "MPI_Irecv", kComm1, "8", "0", "1024", "178"},
                    {"500", "510", "100", "100", "MPI_Isend", kComm0, "8", "1", "1024", "161"}}));
    EXPECT_EQ(query(db, std::string("SELECT e.start, e.end, ") + kWho +
                            ", e.commHandle, e.rootRank, e.size, e.recvSize, e.requestHandle FROM MPI_COLLECTIVES_EVENTS" +
                            kFrom),
              (Rows{{"650", "690", "100", "101", "MPI_Ibarrier", kComm0, "NULL", "0", "0", "195"},
                    {"700", "900", "100", "100", "MPI_Allreduce", kComm0, "NULL", "800", "800", "NULL"},
                    {"720", "900", "200", "200", "MPI_Allreduce", kComm1, "NULL", "800", "800", "NULL"},
                    {"1000", "1030", "100", "100", "MPI_Bcast", kComm0, "0", "64", "0", "NULL"},
                    {"1005", "1030", "200", "200", "MPI_Bcast", kComm1, "0", "0", "64", "NULL"}}));
    EXPECT_EQ(query(db, std::string("SELECT e.start, e.end, ") + kWho + ", e.requestHandle FROM MPI_START_WAIT_EVENTS" + kFrom),
              (Rows{{"502", "532", "200", "200", "MPI_Waitall", "178"},
                    {"520", "600", "100", "100", "MPI_Wait", "161"}}));
    EXPECT_EQ(query(db, std::string("SELECT e.start, e.end, ") + kWho + " FROM MPI_OTHER_EVENTS" + kFrom),
              (Rows{{"50", "350", "200", "200", "MPI_Init"},
                    {"100", "300", "100", "100", "MPI_Init"},
                    {"2000", "2100", "100", "100", "MPI_Finalize"},
                    {"2010", "2060", "200", "200", "MPI_Finalize"},
                    {"3000", "3001", "300", "300", "MPI_Initialized"}}));
}

TEST(MpiExport, SqliteTimeWindowAndNoMpiTablesWithoutData) {
    test::TempDir dir;
    auto r = test::makeMpiReport();
    ExportOptions o;
    o.start = 1600;
    o.end = 2100;
    const std::string db = dir.file("w.sqlite");
    ASSERT_TRUE(exportSqlite(*r, db, o).ok());
    EXPECT_EQ(query(db, "SELECT count(*) FROM MPI_COLLECTIVES_EVENTS"), (Rows{{"5"}}));
    // Empty tables of the other classes are still there (MPI was traced).
    test::expectEmptyTables(db, {"MPI_P2P_EVENTS", "MPI_START_WAIT_EVENTS", "MPI_OTHER_EVENTS"});

    test::expectNoTablesLike(*test::makeStatsReport(), dir, "MPI%");
}

TEST(MpiExport, ChromeTraceSlicesWithArgs) {
    test::TempDir dir;
    auto r = test::makeMpiReport();
    const std::string path = dir.file("m.json");
    ASSERT_TRUE(exportChromeTrace(*r, path).ok());
    const std::string text = test::slurp(path);
    std::vector<std::string> expected = {
        R"({"ph":"X","cat":"mpi","name":"MPI_Init","pid":100,"tid":100,"ts":0.100,"dur":0.200,"args":{"class":"other"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Send","pid":100,"tid":100,"ts":0.400,"dur":0.050,"args":{"class":"p2p","peer":1,"tag":7,"bytes":4096,"comm":"0x44000000"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Isend","pid":100,"tid":100,"ts":0.500,"dur":0.010,"args":{"class":"p2p","peer":1,"tag":8,"bytes":1024,"comm":"0x44000000","request":"0xa1"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Wait","pid":100,"tid":100,"ts":0.520,"dur":0.080,"args":{"class":"startwait","request":"0xa1"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Ibarrier","pid":100,"tid":101,"ts":0.650,"dur":0.040,"args":{"class":"collective","comm":"0x44000000","request":"0xc3"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Allreduce","pid":100,"tid":100,"ts":0.700,"dur":0.200,"args":{"class":"collective","bytes":800,"recv_bytes":800,"comm":"0x44000000"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Bcast","pid":100,"tid":100,"ts":1.000,"dur":0.030,"args":{"class":"collective","root":0,"bytes":64,"comm":"0x44000000"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Finalize","pid":100,"tid":100,"ts":2.000,"dur":0.100,"args":{"class":"other"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Init","pid":200,"tid":200,"ts":0.050,"dur":0.300,"args":{"class":"other"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Recv","pid":200,"tid":200,"ts":0.380,"dur":0.080,"args":{"class":"p2p","peer":0,"tag":7,"recv_bytes":4096,"comm":"0x55d0c0ffee00"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Irecv","pid":200,"tid":200,"ts":0.490,"dur":0.005,"args":{"class":"p2p","peer":0,"tag":8,"recv_bytes":1024,"comm":"0x55d0c0ffee00","request":"0xb2"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Waitall","pid":200,"tid":200,"ts":0.502,"dur":0.030,"args":{"class":"startwait","request":"0xb2"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Allreduce","pid":200,"tid":200,"ts":0.720,"dur":0.180,"args":{"class":"collective","bytes":800,"recv_bytes":800,"comm":"0x55d0c0ffee00"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Bcast","pid":200,"tid":200,"ts":1.005,"dur":0.025,"args":{"class":"collective","root":0,"recv_bytes":64,"comm":"0x55d0c0ffee00"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Finalize","pid":200,"tid":200,"ts":2.010,"dur":0.050,"args":{"class":"other"}})",
        R"({"ph":"X","cat":"mpi","name":"MPI_Initialized","pid":300,"tid":300,"ts":3.000,"dur":0.001,"args":{"class":"other"}})",
    };
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(linesWith(text, "\"cat\":\"mpi\""), expected);
    EXPECT_EQ(linesWith(text, "process_labels"),
              (std::vector<std::string>{R"({"ph":"M","name":"process_labels","pid":100,"args":{"labels":"MPI rank 0"}})",
                                        R"({"ph":"M","name":"process_labels","pid":200,"args":{"labels":"MPI rank 1"}})"}));
    test::expectJsonEventCount(path, "mpi", 16);
}

#ifdef SIGHTLINE_HAVE_IMPORT
// The nsys importer reads the tables back to the same calls (class, sizes, ranks, handles).
TEST(MpiExport, NsysImporterReadsTheExportBack) {
    test::TempDir dir;
    auto r = test::makeMpiReport();
    ASSERT_TRUE(exportSqlite(*r, dir.file("rt.sqlite")).ok());
    auto back = importFile(dir.file("rt.sqlite"));
    ASSERT_TRUE(back.ok()) << back.error();
    const Report& b = **back;
    EXPECT_EQ(b.eventCount(EventKind::Mpi), 16u);
    for (const char* t : {"MPI_RANKS", "MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS", "MPI_START_WAIT_EVENTS", "MPI_OTHER_EVENTS"})
        EXPECT_EQ(b.diagnosticCount(std::string("nsys.unmapped_table.") + t), 0) << t;
    ASSERT_NE(b.findProcess(100), nullptr);
    ASSERT_NE(b.findProcess(300), nullptr);
    EXPECT_EQ(b.findProcess(100)->mpiRank, 0);
    EXPECT_EQ(b.findProcess(200)->mpiRank, 1);
    EXPECT_EQ(b.findProcess(300)->mpiRank, -1);
    EXPECT_EQ(test::runCsv(b, "mpi_event_trace"), test::runCsv(*r, "mpi_event_trace"));
    EXPECT_EQ(test::runCsv(b, "mpi_event_sum"), test::runCsv(*r, "mpi_event_sum"));
    // And out again: the same tables.
    ASSERT_TRUE(exportSqlite(b, dir.file("rt2.sqlite")).ok());
    for (const char* t : {"MPI_RANKS", "MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS", "MPI_START_WAIT_EVENTS", "MPI_OTHER_EVENTS"}) {
        // textId through StringIds (the string ids of the two reports differ).
        std::string cols = columnsOf(dir.file("rt.sqlite"), t);
        if (auto at = cols.find("textId"); at != std::string::npos)
            cols.replace(at, 6, "(SELECT value FROM StringIds WHERE id = textId)");
        const std::string sql = "SELECT " + cols + " FROM " + t + " ORDER BY 1, 2";
        EXPECT_EQ(query(dir.file("rt2.sqlite"), sql), query(dir.file("rt.sqlite"), sql)) << t;
    }
}
#endif

}  // namespace
}  // namespace sl::exporter
