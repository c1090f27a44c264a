// A damaged report must give a clear error and never crash (these run under ASan in CI).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "TestUtil.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"
#include "model/rep/Sqlite.h"

namespace sl {
namespace {

std::vector<char> readAll(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeAll(const std::string& p, const std::vector<char>& data, size_t n) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(n));
}

std::string makeSmallReport(const test::TempDir& dir) {
    GeneratorOptions o;
    o.events = 3000;
    o.threads = 2;
    auto r = generateReport(o);
    const std::string path = dir.file("good.rep");
    WriteOptions w;
    w.chunkEvents = 200;  // many chunks
    EXPECT_TRUE(writeReport(*r, path, w).ok());
    return path;
}

TEST(Corruption, MissingFile) {
    auto r = readReport("/nonexistent/dir/report.rep");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("no such file"), std::string::npos) << r.error();
}

TEST(Corruption, ZeroLengthFile) {
    test::TempDir dir;
    writeAll(dir.file("empty.rep"), {}, 0);
    auto r = readReport(dir.file("empty.rep"));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("empty"), std::string::npos) << r.error();
}

TEST(Corruption, NotSqlite) {
    test::TempDir dir;
    std::string text = "this is a text file, not a report\n";
    writeAll(dir.file("t.rep"), std::vector<char>(text.begin(), text.end()), text.size());
    auto r = readReport(dir.file("t.rep"));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("not a Sightline report"), std::string::npos) << r.error();
}

TEST(Corruption, OtherSqliteDatabase) {
    test::TempDir dir;
    sqlite::Db db;
    ASSERT_TRUE(db.create(dir.file("other.db")).ok());
    ASSERT_TRUE(db.exec("CREATE TABLE t(x); INSERT INTO t VALUES(1);").ok());
    db.close();
    auto r = readReport(dir.file("other.db"));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("sightline_meta"), std::string::npos) << r.error();
}

TEST(Corruption, NsysExportIsRecognized) {
    test::TempDir dir;
    sqlite::Db db;
    ASSERT_TRUE(db.create(dir.file("nsys.sqlite")).ok());
    ASSERT_TRUE(db.exec("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);").ok());
    db.close();
    auto r = readReport(dir.file("nsys.sqlite"));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("sightline import"), std::string::npos) << r.error();
}

TEST(Corruption, NewerFormatVersion) {
    test::TempDir dir;
    const std::string path = makeSmallReport(dir);
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(db.exec("UPDATE sightline_meta SET value='99' WHERE key IN ('format_version','min_reader_version')").ok());
    }
    auto r = readReport(path);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("newer Sightline"), std::string::npos) << r.error();
}

TEST(Corruption, NewerWriterStillReadableWhenCompatible) {
    // A newer writer that added a table, a column, and a track kind but kept min_reader_version.
    test::TempDir dir;
    const std::string path = makeSmallReport(dir);
    auto before = readReport(path);
    ASSERT_TRUE(before.ok());
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(db.exec("UPDATE sightline_meta SET value='7' WHERE key='format_version';"
                            "CREATE TABLE future_things(a, b); INSERT INTO future_things VALUES(1, 2);"
                            "ALTER TABLE threads ADD COLUMN future_col INTEGER;"
                            "INSERT INTO tracks(id, kind, pid, tid, device, context, stream, domain, series, event_count, lane_count) "
                            "VALUES(9999, 200, 0, 0, -1, 0, 0, 0, 0, 0, 1);").ok());
    }
    auto after = readReport(path);
    ASSERT_TRUE(after.ok()) << after.error();
    EXPECT_EQ((*after)->eventCount(), (*before)->eventCount());
    EXPECT_EQ((*after)->diagnosticCount("report.unknown_track_kinds"), 1);
}

TEST(Corruption, BrokenCallStacksAreNamed) {
    test::TempDir dir;
    const std::string path = dir.file("stacks.rep");
    ASSERT_TRUE(writeReport(*test::makeEveryKindReport(), path).ok());
    const std::string copy = dir.file("copy.rep");
    std::filesystem::copy_file(path, copy);
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(db.exec("UPDATE call_stacks SET frames = x'010000000200' WHERE id = 0;").ok());
    }
    auto r = readReport(path);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("not a whole number of frame ids"), std::string::npos) << r.error();
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(copy).ok());
        ASSERT_TRUE(db.exec("UPDATE call_stacks SET frames = x'07000000' WHERE id = 0;").ok());
    }
    r = readReport(copy);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("refers to missing frame 7"), std::string::npos) << r.error();
}

TEST(Corruption, IncompleteReport) {
    test::TempDir dir;
    const std::string path = makeSmallReport(dir);
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(db.exec("DELETE FROM sightline_meta WHERE key='complete'").ok());
    }
    auto r = readReport(path);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("incomplete"), std::string::npos) << r.error();
}

TEST(Corruption, MissingChunkIsNamed) {
    test::TempDir dir;
    const std::string path = makeSmallReport(dir);
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(db.exec("DELETE FROM chunks WHERE rowid = (SELECT max(rowid) FROM chunks)").ok());
    }
    auto r = readReport(path);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("track"), std::string::npos) << r.error();
}

TEST(Corruption, ChecksumMismatchIsNamed) {
    test::TempDir dir;
    const std::string path = makeSmallReport(dir);
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(db.exec("UPDATE chunks SET checksum = checksum + 1 WHERE rowid = 3").ok());
    }
    auto r = readReport(path);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("checksum mismatch"), std::string::npos) << r.error();
    EXPECT_NE(r.error().find("chunk"), std::string::npos) << r.error();
}

TEST(Corruption, FlippedBytesNeverCrash) {
    test::TempDir dir;
    const std::string path = makeSmallReport(dir);
    const auto good = readAll(path);
    ASSERT_GT(good.size(), 1000u);
    const std::string bad = dir.file("bad.rep");
    int failures = 0, successes = 0;
    // Flip bytes at many offsets spread over the whole file (headers, b-tree pages, blobs).
    const size_t step = std::max<size_t>(1, good.size() / 400);
    for (size_t off = 0; off < good.size(); off += step) {
        auto data = good;
        data[off] = static_cast<char>(data[off] ^ 0x5A);
        writeAll(bad, data, data.size());
        auto r = readReport(bad);
        if (r.ok()) {
            ++successes;  // the flip hit unused space
        } else {
            ++failures;
            EXPECT_FALSE(r.error().empty());
        }
    }
    EXPECT_GT(failures, 0);
    RecordProperty("flips_detected", failures);
    RecordProperty("flips_harmless", successes);
}

TEST(Corruption, TruncationNeverCrashes) {
    test::TempDir dir;
    const std::string path = makeSmallReport(dir);
    const auto good = readAll(path);
    const std::string bad = dir.file("trunc.rep");
    const size_t step = std::max<size_t>(1, good.size() / 100);
    for (size_t len = 0; len < good.size(); len += step) {
        writeAll(bad, good, len);
        auto r = readReport(bad);
        EXPECT_FALSE(r.ok()) << "truncated to " << len << " of " << good.size() << " bytes was accepted";
        if (!r.ok()) {
            EXPECT_FALSE(r.error().empty());
        }
    }
}

// A copy cut short by a few hundred bytes opened as a whole report where only the metadata
// was read (`sightline info` printed a normal summary, exit 0): the SQLite header's page count
// says how long the file was.
TEST(Corruption, TruncatedFileIsNamedAtOpen) {
    test::TempDir dir;
    const std::string path = makeSmallReport(dir);
    const auto good = readAll(path);
    ASSERT_TRUE(RepFile::open(path).ok());
    const std::string bad = dir.file("short.rep");
    for (const size_t cut : {size_t{1}, size_t{585}, good.size() / 2}) {
        writeAll(bad, good, good.size() - cut);
        auto f = RepFile::open(bad);
        ASSERT_FALSE(f.ok()) << "cut by " << cut;
        EXPECT_NE(f.error().find("is truncated: " + std::to_string(good.size() - cut) + " of its " +
                                 std::to_string(good.size()) + " bytes"),
                  std::string::npos)
            << f.error();
    }
}

}  // namespace
}  // namespace sl
