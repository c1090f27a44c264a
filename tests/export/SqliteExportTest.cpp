// The SQLite export answers the queries of the nsys documentation's SQLite examples (top
// kernels through StringIds on demangledName; runtime calls joined to kernels by
// correlationId) and agrees with the stats reports.
#include "model/export/SqliteExporter.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "model/analysis/StatsReports.h"
#include "model/export/NsysTables.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/rep/Sqlite.h"
#include "tests/unit/TestUtil.h"
#include "tests/analysis/Fixtures.h"

namespace sl::exporter {
namespace {

namespace fs = std::filesystem;

using test::TempDir;  // tests/unit/TestUtil.h

std::vector<std::vector<std::string>> query(const std::string& db, const std::string& sql) {
    sqlite::Db d;
    EXPECT_TRUE(d.openReadOnly(db).ok());
    sqlite::Stmt s(d, sql);
    EXPECT_TRUE(s.valid()) << s.prepareError() << " in " << sql;
    std::vector<std::vector<std::string>> rows;
    while (s.valid() && s.step()) {
        std::vector<std::string> row;
        for (int i = 0; i < s.columnCount(); ++i) row.emplace_back(s.isNull(i) ? "NULL" : std::string(s.text(i)));
        rows.push_back(row);
    }
    return rows;
}

using Rows = std::vector<std::vector<std::string>>;

TEST(SqliteExport, TopKernelsThroughStringIds) {
    TempDir dir;
    auto r = test::makeStatsReport();
    auto stats = exportSqlite(*r, dir.file("a.sqlite"));
    ASSERT_TRUE(stats.ok()) << stats.error();
    // The nsys documentation's example: kernel names from StringIds, by total time.
    EXPECT_EQ(query(dir.file("a.sqlite"),
                    "SELECT names.value AS name, sum(k.end - k.start) AS total, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                    "JOIN StringIds AS names ON k.demangledName = names.id GROUP BY 1 ORDER BY 2 DESC"),
              (Rows{{"kA", "1000", "4"}, {"kB", "180", "3"}}));
    EXPECT_EQ(query(dir.file("a.sqlite"),
                    "SELECT s.value, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName GROUP BY 1"),
              (Rows{{"kA", "4"}, {"kB", "3"}}));
}

TEST(SqliteExport, RuntimeJoinedToKernelsByCorrelationId) {
    TempDir dir;
    auto r = test::makeStatsReport();
    ASSERT_TRUE(exportSqlite(*r, dir.file("a.sqlite")).ok());
    const Rows rows = query(dir.file("a.sqlite"),
                            "SELECT r.start, r.end, k.start, names.value, r.eventClass, "
                            "(r.globalTid >> 24) & 0x00FFFFFF, r.globalTid & 0x00FFFFFF, "
                            "k.globalPid == (r.globalTid & 0xFFFFFFFFFF000000) "
                            "FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN CUPTI_ACTIVITY_KIND_KERNEL AS k "
                            "ON k.correlationId = r.correlationId JOIN StringIds AS names ON r.nameId = names.id "
                            "ORDER BY r.start");
    ASSERT_EQ(rows.size(), 7u);
    // Session start 1000: the first launch is [1000, 1010] and its kernel starts at 1015.
    EXPECT_EQ(rows[0], (std::vector<std::string>{"1000", "1010", "1015", "cudaLaunchKernel_v7000", "0", "7", "8", "1"}));
    EXPECT_EQ(rows[6][0], "7000");
}

TEST(SqliteExport, EnumsThreadsNvtxAndMetadata) {
    TempDir dir;
    auto r = test::makeStatsReport();
    ASSERT_TRUE(exportSqlite(*r, dir.file("a.sqlite")).ok());
    const std::string db = dir.file("a.sqlite");
    EXPECT_EQ(query(db, "SELECT e.label, count(*), sum(m.bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY m "
                        "JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind GROUP BY 1 ORDER BY 1"),
              (Rows{{"Device-to-Host", "1", "500000"}, {"Host-to-Device", "2", "2000000"}}));
    EXPECT_EQ(query(db, "SELECT label FROM ENUM_CUDA_MEM_KIND WHERE id = 1"), (Rows{{"Pinned"}}));
    // Event types resolved by name, as scripts written for nsys exports do.
    EXPECT_EQ(query(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = "
                        "(SELECT id FROM ENUM_NSYS_EVENT_TYPE WHERE name = 'NvtxPushPopRange')"),
              (Rows{{"2"}}));
    EXPECT_EQ(query(db, "SELECT text FROM NVTX_EVENTS WHERE eventType = "
                        "(SELECT id FROM ENUM_NSYS_EVENT_TYPE WHERE name = 'NvtxDomainCreate')"),
              (Rows{{"disk"}}));
    EXPECT_EQ(query(db, "SELECT s.value, t.globalTid & 0xFFFFFF FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId"),
              (Rows{{"main", "8"}}));
    EXPECT_EQ(query(db, "SELECT pid, name, globalPid >> 24 & 0xFFFFFF FROM PROCESSES"), (Rows{{"7", "app", "7"}}));
    EXPECT_EQ(query(db, "SELECT eventType, text, count(*), sum(end - start) FROM NVTX_EVENTS GROUP BY 1, 2 ORDER BY 1"),
              (Rows{{"59", "step", "2", "4000"}, {"60", "io", "1", "500"}, {"75", "disk", "1", "NULL"}}));
    EXPECT_EQ(query(db, "SELECT s.value, count(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId GROUP BY 1 ORDER BY 1"),
              (Rows{{"disk", "1"}, {"io", "1"}, {"step", "2"}}));
    EXPECT_EQ(query(db, "SELECT s.value, count(*) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId GROUP BY 1"),
              (Rows{{"read", "2"}, {"write", "1"}}));
    EXPECT_EQ(query(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE bytes = 64"), (Rows{{"1"}}));
    EXPECT_EQ(query(db, "SELECT name, id, cuDevice FROM TARGET_INFO_GPU"), (Rows{{"Test GPU", "0", "0"}}));
    EXPECT_EQ(query(db, "SELECT count(*) FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'"), (Rows{{"1"}}));
    EXPECT_EQ(query(db, "SELECT count(*) FROM TARGET_INFO_SESSION_START_TIME"), (Rows{{"1"}}));
    EXPECT_EQ(query(db, "SELECT count(*) FROM TARGET_INFO_CUDA_DEVICE"), (Rows{{"1"}}));
}

TEST(SqliteExport, TablesRegexTimesAndOverwrite) {
    TempDir dir;
    auto r = test::makeStatsReport();
    ExportOptions o;
    o.tablesRegex = "^(CUPTI_ACTIVITY_KIND_KERNEL|StringIds)$";
    o.start = 2000;  // absolute: keep the first two kernels ([2015, 2115] and [3015, 3215])
    o.end = 3500;
    auto stats = exportSqlite(*r, dir.file("a.sqlite"), o);
    ASSERT_TRUE(stats.ok()) << stats.error();
    ASSERT_EQ(stats->tables.size(), 2u);
    EXPECT_EQ(stats->tables[0].first, "CUPTI_ACTIVITY_KIND_KERNEL");
    EXPECT_EQ(stats->tables[0].second, 2u);
    EXPECT_EQ(query(dir.file("a.sqlite"), "SELECT count(*) FROM sqlite_master WHERE type = 'table'"), (Rows{{"2"}}));
    auto again = exportSqlite(*r, dir.file("a.sqlite"), o);
    ASSERT_FALSE(again.ok());
    EXPECT_NE(again.error().find("already exists"), std::string::npos);
    o.overwrite = true;
    o.tablesRegex = "(";
    auto bad = exportSqlite(*r, dir.file("a.sqlite"), o);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("regular expression"), std::string::npos);
}

TEST(SqliteExport, KernelTableWrittenInParallelGivesTheSameDatabase) {
    TempDir dir;
    GeneratorOptions g;
    g.events = 20'000;
    auto r = generateReport(g);
    ExportOptions serial, parallel;
    serial.parallelKernelRows = UINT64_MAX;
    parallel.parallelKernelRows = 0;
    auto a = exportSqlite(*r, dir.file("serial.sqlite"), serial);
    auto b = exportSqlite(*r, dir.file("parallel.sqlite"), parallel);
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_TRUE(b.ok()) << b.error();
    EXPECT_EQ(a->rows, b->rows);
    EXPECT_EQ(a->tables.size(), b->tables.size());
    EXPECT_FALSE(std::filesystem::exists(dir.file("parallel.sqlite.tmp-kernels")));
    for (const char* sql : {"SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid",
                            "SELECT name, sql FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'",
                            "SELECT count(*) FROM sqlite_master", "SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_RUNTIME"})
        EXPECT_EQ(query(dir.file("serial.sqlite"), sql), query(dir.file("parallel.sqlite"), sql)) << sql;
    // With a table filter that leaves the kernels out, no side file is used at all.
    parallel.tablesRegex = "^StringIds$";
    auto c = exportSqlite(*r, dir.file("strings.sqlite"), parallel);
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_EQ(c->tables.size(), 1u);
}

TEST(SqliteExport, GlobalIdsAsNsysEncodesThem) {
    EXPECT_EQ(globalPid(1230493), 302119223558144);  // values from a real nsys export
    EXPECT_EQ(globalTid(1230493, 1230499), 302119224788643);
}

TEST(SqliteExport, KernelSummaryAgreesWithSqlGroupBy) {
    TempDir dir;
    GeneratorOptions g;
    g.events = 20'000;
    g.seed = 5;
    auto r = generateReport(g);
    ASSERT_TRUE(exportSqlite(*r, dir.file("g.sqlite")).ok());
    auto t = analysis::runReport(*r, "cuda_gpu_kern_sum", {});
    ASSERT_TRUE(t.ok());
    const Rows sql = query(dir.file("g.sqlite"),
                           "SELECT sum(k.end - k.start), count(*), min(k.end - k.start), max(k.end - k.start), s.value "
                           "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
                           "GROUP BY s.value ORDER BY 1 DESC, 2, 5");
    ASSERT_EQ(sql.size(), t->rowCount());
    const auto& c = t->columns;
    for (size_t i = 0; i < sql.size(); ++i) {
        EXPECT_EQ(sql[i][0], std::to_string(c[1].ints[i]));
        EXPECT_EQ(sql[i][1], std::to_string(c[2].ints[i]));
        EXPECT_EQ(sql[i][2], std::to_string(c[5].ints[i]));
        EXPECT_EQ(sql[i][3], std::to_string(c[6].ints[i]));
        EXPECT_EQ(sql[i][4], c[8].texts[i]);
    }
}

}  // namespace
}  // namespace sl::exporter
