// OpenMP events in the exports: the nsys SQLite tables (OPENMP_EVENT_KIND_PARALLEL, _TASK,
// _WORKSHARE, _SYNC_REGION and the ENUM_OPENMP_* tables) and the Chrome trace's "openmp"
// slices, on the report of tests/analysis/OpenMpFixtures.h.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/export/ChromeTraceExporter.h"
#include "model/export/NsysTables.h"
#include "model/export/SqliteExporter.h"
#include "tests/analysis/Fixtures.h"
#include "tests/analysis/OpenMpFixtures.h"
#include "tests/export/ExportTestUtil.h"

namespace sl::exporter {
namespace {

using namespace test;  // query, columnsOf, Rows, linesWith: tests/export/ExportTestUtil.h

// Tid of a globalTid and the event's name through StringIds.
constexpr const char* kWho = "e.globalTid & 0xFFFFFF, s.value";
constexpr const char* kFrom = " AS e JOIN StringIds AS s ON s.id = e.nameId ORDER BY e.start";

TEST(OpenMpExport, SqliteTablesAsNsys) {
    test::TempDir dir;
    auto r = test::makeOpenMpReport();
    const std::string db = dir.file("o.sqlite");
    ASSERT_TRUE(exportSqlite(*r, db).ok());
    EXPECT_EQ(columnsOf(db, "OPENMP_EVENT_KIND_PARALLEL"),
              "start,end,eventClass,globalTid,correlationId,nameId,eventKind,parallelId,parentTaskId");
    EXPECT_EQ(columnsOf(db, "OPENMP_EVENT_KIND_TASK"),
              "start,end,eventClass,globalTid,correlationId,nameId,eventKind,parallelId,taskId,kind");
    EXPECT_EQ(columnsOf(db, "OPENMP_EVENT_KIND_WORKSHARE"),
              "start,end,eventClass,globalTid,correlationId,nameId,eventKind,kind,parallelId,taskId,count");
    EXPECT_EQ(columnsOf(db, "OPENMP_EVENT_KIND_SYNC_REGION"),
              "start,end,eventClass,globalTid,correlationId,nameId,eventKind,parallelId,taskId,kind");
    // Times from the session start (1000); eventClass 78 (TRACE_PROCESS_EVENT_OPENMP); eventKind
    // nsys's ENUM_OPENMP_EVENT_KIND id of the table.
    EXPECT_EQ(query(db, std::string("SELECT e.start, e.end, e.eventClass, ") + kWho +
                            ", e.correlationId, e.eventKind, e.parallelId, e.parentTaskId FROM OPENMP_EVENT_KIND_PARALLEL" +
                            kFrom),
              (Rows{{"100", "1000", "78", "100", "parallel", "NULL", "28", "1", "1"}}));
    EXPECT_EQ(query(db, std::string("SELECT e.start, e.end, ") + kWho +
                            ", e.eventKind, e.parallelId, e.taskId, e.kind FROM OPENMP_EVENT_KIND_TASK" + kFrom),
              (Rows{{"110", "990", "100", "implicit task", "31", "1", "2", "2"},
                    {"115", "995", "101", "implicit task", "31", "1", "3", "2"},
                    {"710", "780", "100", "task", "31", "NULL", "5", "4"}}));
    EXPECT_EQ(query(db, std::string("SELECT e.start, e.end, ") + kWho +
                            ", e.eventKind, e.kind, e.parallelId, e.taskId, e.count FROM OPENMP_EVENT_KIND_WORKSHARE" + kFrom),
              (Rows{{"120", "500", "100", "loop", "36", "1", "1", "2", "500"},
                    {"130", "450", "101", "loop", "36", "1", "1", "3", "500"}}));
    EXPECT_EQ(query(db, std::string("SELECT e.start, e.end, ") + kWho +
                            ", e.eventKind, e.parallelId, e.taskId, e.kind FROM OPENMP_EVENT_KIND_SYNC_REGION" + kFrom),
              (Rows{{"450", "600", "101", "implicit barrier (worksharing)", "30", "1", "3", "8"},
                    {"500", "600", "100", "implicit barrier (worksharing)", "30", "1", "2", "8"},
                    {"600", "700", "100", "barrier", "30", "1", "2", "3"},
                    {"620", "700", "101", "barrier", "30", "1", "3", "3"},
                    {"705", "790", "100", "taskwait", "30", "1", "2", "5"},
                    {"800", "995", "101", "implicit barrier (parallel)", "30", "1", "3", "9"},
                    {"900", "990", "100", "implicit barrier (parallel)", "30", "1", "2", "9"}}));
    // The same globalTid as ThreadNames.
    EXPECT_EQ(query(db, "SELECT count(*) FROM OPENMP_EVENT_KIND_SYNC_REGION e JOIN ThreadNames t ON t.globalTid = e.globalTid"),
              (Rows{{"7"}}));
}

TEST(OpenMpExport, SqliteEnumTablesJoin) {
    test::TempDir dir;
    auto r = test::makeOpenMpReport();
    const std::string db = dir.file("o.sqlite");
    ASSERT_TRUE(exportSqlite(*r, db).ok());
    for (const char* t : {"ENUM_OPENMP_EVENT_KIND", "ENUM_OPENMP_WORK", "ENUM_OPENMP_SYNC_REGION", "ENUM_OPENMP_TASK_FLAG"})
        EXPECT_EQ(columnsOf(db, t), "id,name,label") << t;
    EXPECT_EQ(query(db, "SELECT id, name FROM ENUM_OPENMP_EVENT_KIND WHERE id IN (28, 30, 31, 36) ORDER BY id"),
              (Rows{{"28", "OPENMP_EVENT_KIND_PARALLEL"},
                    {"30", "OPENMP_EVENT_KIND_SYNC_REGION"},
                    {"31", "OPENMP_EVENT_KIND_TASK"},
                    {"36", "OPENMP_EVENT_KIND_WORKSHARE"}}));
    EXPECT_EQ(query(db, "SELECT DISTINCT k.label FROM OPENMP_EVENT_KIND_WORKSHARE e JOIN ENUM_OPENMP_WORK k ON k.id = e.kind"),
              (Rows{{"Loop region"}}));
    EXPECT_EQ(query(db, "SELECT k.label, count(*) FROM OPENMP_EVENT_KIND_SYNC_REGION e "
                        "JOIN ENUM_OPENMP_SYNC_REGION k ON k.id = e.kind GROUP BY k.id ORDER BY k.id"),
              (Rows{{"Explicit barrier", "2"},
                    {"Taskwait", "1"},
                    {"Implicit barrier (worksharing)", "2"},
                    {"Implicit barrier (parallel)", "2"}}));
    EXPECT_EQ(query(db, "SELECT k.label, count(*) FROM OPENMP_EVENT_KIND_TASK e "
                        "JOIN ENUM_OPENMP_TASK_FLAG k ON k.id = e.kind GROUP BY k.id ORDER BY k.id"),
              (Rows{{"Implicit task", "2"}, {"Explicit task", "1"}}));
    EXPECT_EQ(query(db, "SELECT name FROM ENUM_NSYS_EVENT_CLASS WHERE id = 78"), (Rows{{"TRACE_PROCESS_EVENT_OPENMP"}}));
}

TEST(OpenMpExport, SqliteTimeWindowAndNoTablesWithoutData) {
    test::TempDir dir;
    auto r = test::makeOpenMpReport();
    ExportOptions o;
    o.start = 1600;
    o.end = 1800;
    const std::string db = dir.file("w.sqlite");
    ASSERT_TRUE(exportSqlite(*r, db, o).ok());
    EXPECT_EQ(query(db, "SELECT count(*) FROM OPENMP_EVENT_KIND_SYNC_REGION"), (Rows{{"3"}}));
    EXPECT_EQ(query(db, "SELECT count(*) FROM OPENMP_EVENT_KIND_TASK"), (Rows{{"1"}}));
    // Empty tables are still there (OpenMP was traced).
    test::expectEmptyTables(db, {"OPENMP_EVENT_KIND_PARALLEL", "OPENMP_EVENT_KIND_WORKSHARE"});

    test::expectNoTablesLike(*test::makeStatsReport(), dir, "%OPENMP%");
}

TEST(OpenMpExport, ChromeTraceSlicesWithArgs) {
    test::TempDir dir;
    auto r = test::makeOpenMpReport();
    const std::string path = dir.file("o.json");
    ASSERT_TRUE(exportChromeTrace(*r, path).ok());
    const std::string text = test::slurp(path);
    std::vector<std::string> expected = {
        R"j({"ph":"X","cat":"openmp","name":"parallel","pid":100,"tid":100,"ts":0.100,"dur":0.900,"args":{"construct":"parallel region","parallel_id":1,"task_id":1,"count":2,"code_ptr":"0x401a2b"}})j",
        R"j({"ph":"X","cat":"openmp","name":"implicit task","pid":100,"tid":100,"ts":0.110,"dur":0.880,"args":{"construct":"implicit task","kind":2,"parallel_id":1,"task_id":2,"count":2,"index":0}})j",
        R"j({"ph":"X","cat":"openmp","name":"loop","pid":100,"tid":100,"ts":0.120,"dur":0.380,"args":{"construct":"worksharing (loop)","kind":1,"parallel_id":1,"task_id":2,"count":500,"code_ptr":"0x401b00"}})j",
        R"j({"ph":"X","cat":"openmp","name":"implicit barrier (worksharing)","pid":100,"tid":100,"ts":0.500,"dur":0.100,"args":{"construct":"synchronization (implicit barrier, worksharing)","kind":8,"parallel_id":1,"task_id":2}})j",
        R"j({"ph":"X","cat":"openmp","name":"barrier","pid":100,"tid":100,"ts":0.600,"dur":0.100,"args":{"construct":"synchronization (explicit barrier)","kind":3,"parallel_id":1,"task_id":2,"code_ptr":"0x401c00"}})j",
        R"j({"ph":"X","cat":"openmp","name":"taskwait","pid":100,"tid":100,"ts":0.705,"dur":0.085,"args":{"construct":"synchronization (taskwait)","kind":5,"parallel_id":1,"task_id":2}})j",
        R"j({"ph":"X","cat":"openmp","name":"task","pid":100,"tid":100,"ts":0.710,"dur":0.070,"args":{"construct":"explicit task","kind":4,"task_id":5}})j",
        R"j({"ph":"X","cat":"openmp","name":"implicit barrier (parallel)","pid":100,"tid":100,"ts":0.900,"dur":0.090,"args":{"construct":"synchronization (implicit barrier, parallel)","kind":9,"parallel_id":1,"task_id":2}})j",
        R"j({"ph":"X","cat":"openmp","name":"implicit task","pid":100,"tid":101,"ts":0.115,"dur":0.880,"args":{"construct":"implicit task","kind":2,"parallel_id":1,"task_id":3,"count":2,"index":1}})j",
        R"j({"ph":"X","cat":"openmp","name":"loop","pid":100,"tid":101,"ts":0.130,"dur":0.320,"args":{"construct":"worksharing (loop)","kind":1,"parallel_id":1,"task_id":3,"count":500,"code_ptr":"0x401b00"}})j",
        R"j({"ph":"X","cat":"openmp","name":"implicit barrier (worksharing)","pid":100,"tid":101,"ts":0.450,"dur":0.150,"args":{"construct":"synchronization (implicit barrier, worksharing)","kind":8,"parallel_id":1,"task_id":3}})j",
        R"j({"ph":"X","cat":"openmp","name":"barrier","pid":100,"tid":101,"ts":0.620,"dur":0.080,"args":{"construct":"synchronization (explicit barrier)","kind":3,"parallel_id":1,"task_id":3,"code_ptr":"0x401c00"}})j",
        R"j({"ph":"X","cat":"openmp","name":"implicit barrier (parallel)","pid":100,"tid":101,"ts":0.800,"dur":0.195,"args":{"construct":"synchronization (implicit barrier, parallel)","kind":9,"parallel_id":1,"task_id":3}})j",
    };
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(linesWith(text, "\"cat\":\"openmp\""), expected);
    test::expectJsonEventCount(path, "openmp", 13);
}

}  // namespace
}  // namespace sl::exporter
