// The .rep metadata schema declared once (model/rep/RepSchema.h, issue #23): FORMAT.md's tables,
// the DDL of files written before, the typed INSERT/SELECT rows and the reader's handling of
// tables and columns an older file lacks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "TestUtil.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepSchema.h"
#include "model/rep/RepWriter.h"
#include "model/rep/TableIo.h"

namespace sl {
namespace {

using namespace repschema;

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// "CREATE TABLE x(a INTEGER,\n  b TEXT);" -> "CREATE TABLE x(a INTEGER, b TEXT)"
std::string normalized(std::string sql) {
    std::string out;
    for (char c : sql) {
        if (c == '\n' || c == '\t') c = ' ';
        if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
        out += c;
    }
    while (!out.empty() && (out.back() == ';' || out.back() == ' ')) out.pop_back();
    return out;
}

std::string schemaSql(const sqlite::Db& db, std::string_view name) {
    sqlite::Stmt st(db, "SELECT sql FROM sqlite_master WHERE name = ?");
    st.bind(1, name);
    return st.step() ? std::string(st.text(0)) : std::string();
}

// FORMAT.md's table section is what the descriptors generate. SIGHTLINE_UPDATE_FORMAT_DOC=1
// rewrites it instead (scripts/update-format-doc.sh).
TEST(RepSchemaDoc, FormatMdTablesMatchTheDescriptors) {
    const std::string path = SIGHTLINE_TEST_DATA "/../../model/FORMAT.md";
    std::string text = readFile(path);
    const std::string begin = "<!-- tables:generated begin -->\n",
                      end = "<!-- tables:generated end -->";
    const size_t a = text.find(begin), b = text.find(end);
    ASSERT_NE(a, std::string::npos) << path;
    ASSERT_NE(b, std::string::npos) << path;
    const std::string current = text.substr(a + begin.size(), b - a - begin.size());
    const std::string generated = markdownTables();
    if (std::getenv("SIGHTLINE_UPDATE_FORMAT_DOC")) {
        text.replace(a + begin.size(), b - a - begin.size(), generated);
        std::ofstream(path) << text;
        return;
    }
    EXPECT_EQ(current, generated)
        << "model/FORMAT.md's tables are out of date: run scripts/update-format-doc.sh";
}

// The descriptors describe the files format-1 writers wrote (a capture from an H200, committed
// before this schema existed): same tables, columns, types and constraints, same indexes.
TEST(RepSchema, DescriptorsGenerateTheDdlOfFilesWrittenBefore) {
    sqlite::Db db;
    ASSERT_TRUE(db.openReadOnly(SIGHTLINE_TEST_DATA "/gpu/cuda_workload_h200.rep").ok());
    for (const TableDef* t : kTables) {
        SCOPED_TRACE(std::string(t->name));
        const std::string sql = schemaSql(db, t->name);
        if (sql.empty() && t->optional) continue;  // added after this capture was written
        EXPECT_EQ(normalized(sql), normalized(createTableSql(*t)));
    }
    for (const IndexDef& i : kIndexes)
        EXPECT_EQ(normalized(schemaSql(db, i.name)), normalized(createIndexSql(i)));
}

TEST(RepSchema, GeneratedStatementsNameEveryColumn) {
    EXPECT_EQ(insertSql(kThreads),
              "INSERT INTO threads(tid, pid, name, start_ns, end_ns) VALUES(?,?,?,?,?)");
    const std::string present[] = {"tid", "pid", "name", "start_ns"};
    EXPECT_EQ(selectSql(kThreads, present), "SELECT tid, pid, name, start_ns, NULL FROM threads");
    static_assert(columnIndex(kThreads, "end_ns") == 4);
    EXPECT_TRUE(kThreads.columns[0].required());   // NOT NULL
    EXPECT_FALSE(kThreads.columns[2].required());  // nullable: may be appended later
    EXPECT_TRUE(kStrings.columns[0].required());   // PRIMARY KEY
}

TEST(RepSchema, InsertRefusesARowWithAColumnLeftUnset) {
    test::TempDir dir;
    sqlite::Db db;
    ASSERT_TRUE(db.create(dir.file("x.db")).ok());
    ASSERT_TRUE(db.exec(createTableSql(kThreads)).ok());
    Insert<kThreads> ins(db);
    ASSERT_TRUE(ins.valid()) << ins.error();
    ins.set("tid", 1).set("pid", 2).set("name", "main");
    Status s = ins.insert();
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error(), "table 'threads': no value for column(s) start_ns, end_ns");
    ins.set("tid", 1)
        .set("pid", 2)
        .set("name", "main")
        .setNull("start_ns")
        .set("end_ns", int64_t{9});
    EXPECT_TRUE(ins.insert().ok());
    int rows = 0;
    Status r = forEachRow<kThreads>(db, "", [&](const Row<kThreads>& row) -> Status {
        ++rows;
        EXPECT_EQ(row.i64("pid"), 2);
        EXPECT_EQ(row.text("name"), "main");
        EXPECT_TRUE(row.isNull("start_ns"));
        EXPECT_EQ(row.i64("end_ns"), 9);
        return {};
    });
    EXPECT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(rows, 1);
}

class OlderFile : public ::testing::Test {
protected:
    void SetUp() override {
        path = dir.file("r.rep");
        ASSERT_TRUE(writeReport(*test::makeEveryKindReport(), path).ok());
    }
    void alter(const std::string& sql) {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(db.exec(sql).ok()) << sql << ": " << db.lastError();
    }
    test::TempDir dir;
    std::string path;
};

// A nullable column appended after a file was written reads as NULL from that file.
TEST_F(OlderFile, NullableColumnItLacksReadsAsNull) {
    alter("ALTER TABLE threads DROP COLUMN end_ns; ALTER TABLE gpus DROP COLUMN memory_bandwidth;");
    auto r = readReport(path);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_FALSE((*r)->threads.empty());
    for (const Thread& t : (*r)->threads) EXPECT_EQ(t.end, kUnknownTime);
    EXPECT_EQ((*r)->gpus.at(0).memoryBandwidthBytesPerSec, 0);
    EXPECT_EQ((*r)->gpus.at(0).name, "NVIDIA H200");
}

TEST_F(OlderFile, RequiredColumnItLacksIsNamed) {
    alter("ALTER TABLE processes DROP COLUMN pid;");
    auto r = readReport(path);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("table 'processes': has no column 'pid'"), std::string::npos)
        << r.error();
}

TEST_F(OlderFile, OptionalTableItLacksReadsEmptyAndARequiredOneIsNamed) {
    alter("DROP TABLE process_mpi_ranks;");
    auto r = readReport(path);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_FALSE((*r)->processes.empty());
    for (const Process& p : (*r)->processes) EXPECT_LT(p.mpiRank, 0);
    alter("DROP TABLE gpus;");
    r = readReport(path);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("table 'gpus': missing"), std::string::npos) << r.error();
}

// Optional tables without rows are not created (each would take a page).
TEST(RepSchema, EmptyOptionalTablesAreLeftOut) {
    test::TempDir dir;
    Report empty;
    ASSERT_TRUE(writeReport(empty, dir.file("e.rep")).ok());
    sqlite::Db db;
    ASSERT_TRUE(db.openReadOnly(dir.file("e.rep")).ok());
    for (const TableDef* t : kTables) EXPECT_EQ(db.hasTable(t->name), !t->optional) << t->name;
    auto r = readReport(dir.file("e.rep"));
    EXPECT_TRUE(r.ok()) << r.error();
}

}  // namespace
}  // namespace sl
