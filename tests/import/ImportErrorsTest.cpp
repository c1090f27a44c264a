// Bad input: one-line errors naming the file and what is wrong, never a crash or an empty report.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "ImportTestUtil.h"
#include "model/import/GzipReader.h"
#include "model/import/OpenAny.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"
#include "model/rep/Sqlite.h"

namespace sl::test {
namespace {

std::string errorOf(const std::string& path) {
    auto r = importFile(path);
    EXPECT_FALSE(r.ok()) << path;
    if (r.ok()) return {};
    EXPECT_EQ(r.error().find('\n'), std::string::npos) << "multi-line error: " << r.error();
    return r.error();
}

std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ImportErrors, MissingFileAndDirectory) {
    TempDir dir;
    EXPECT_NE(errorOf(dir.file("nope.json")).find("no such file"), std::string::npos);
    EXPECT_NE(errorOf(dir.path().string()).find("is a directory"), std::string::npos);
}

TEST(ImportErrors, UnsupportedEmptyAndRepFiles) {
    TempDir dir;
    EXPECT_NE(errorOf(dir.write("x.bin", std::string("\x7f"
                                                     "ELF\x02\x01",
                                                     6)))
                  .find("not a supported trace"),
              std::string::npos);
    EXPECT_NE(errorOf(dir.write("empty.json", "")).find("empty"), std::string::npos);
    Report rep;
    rep.session.source = "generated";
    ASSERT_TRUE(writeReport(rep, dir.file("r.rep")).ok());
    EXPECT_NE(errorOf(dir.file("r.rep")).find("already a Sightline report"), std::string::npos);
    EXPECT_NE(errorOf(dir.write("obj.json", R"({"hello": 1})")).find("no traceEvents"),
              std::string::npos);
    EXPECT_NE(
        errorOf(dir.write("none.json", R"({"traceEvents": []})")).find("holds no trace events"),
        std::string::npos);
    EXPECT_NE(errorOf(dir.write("nums.json", "[1, 2,")).find("holds no trace events"),
              std::string::npos);
}

TEST(ImportErrors, TruncatedGzip) {
    TempDir dir;
    const std::string full = readBytes(fixture("hta_gpu_user_annotation.json.gz"));
    const std::string path = dir.write("cut.json.gz", full.substr(0, full.size() / 2));
    const std::string e = errorOf(path);
    EXPECT_NE(e.find("truncated gzip"), std::string::npos) << e;
    EXPECT_NE(e.find("cut.json.gz"), std::string::npos) << e;
}

// A corrupt gzip file whose trailer claims 2 GB (found by fuzz_import, issue #24) is a clear
// error, and the trailer never sizes the buffer beyond what deflate could produce from the input.
TEST(ImportErrors, GzipTrailerCannotSizeTheBuffer) {
    EXPECT_EQ(import::firstInflateBuffer(13690, 0x7d000000u), 13690u * 4);
    EXPECT_EQ(import::firstInflateBuffer(13690, 100000u), 100000u);  // plausible: used
    EXPECT_EQ(import::firstInflateBuffer(1000, 1032u * 1000), 1032u * 1000);
    EXPECT_EQ(import::firstInflateBuffer(1000, 1032u * 1000 + 1032), 4000u);
    TempDir dir;
    std::string bytes = readBytes(fixture("hta_compare_base.json.gz")).substr(0, 60);
    bytes += std::string(40, '\0');
    bytes += std::string("\x00\x00\x00\x7d", 4);  // ISIZE 2 GB
    const std::string e = errorOf(dir.write("bomb.json.gz", bytes));
    EXPECT_NE(e.find("gzip"), std::string::npos) << e;
    EXPECT_NE(e.find("bomb.json.gz"), std::string::npos) << e;
}

TEST(ImportErrors, MalformedJsonNamesTheByteOffset) {
    TempDir dir;
    //                                   0         1         2         3
    //                                   0123456789012345678901234567890123456
    const std::string path =
        dir.write("bad.json", R"({"traceEvents": [{"ph": "X", "ts": 1,, "dur": 2}]})");
    const std::string e = errorOf(path);
    EXPECT_NE(e.find("not valid JSON"), std::string::npos) << e;
    EXPECT_NE(e.find("at byte 37"), std::string::npos) << e;
    const std::string e2 =
        errorOf(dir.write("cut.json", R"({"traceEvents": [{"ph": "X", "ts": 1}, {"ph": )"));
    EXPECT_NE(e2.find("not valid JSON"), std::string::npos) << e2;
    EXPECT_NE(e2.find("at byte"), std::string::npos) << e2;
    const std::string e3 = errorOf(dir.write("trail.json", R"({"traceEvents": []} x)"));
    EXPECT_NE(e3.find("at byte 20"), std::string::npos) << e3;
}

TEST(ImportErrors, SqliteThatIsNotAnNsysExport) {
    TempDir dir;
    const std::string path = dir.file("other.sqlite");
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(
            db.exec("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ada');").ok());
    }
    EXPECT_EQ(detectImportFormat(path), ImportFormat::OtherSqlite);
    EXPECT_NE(errorOf(path).find("not an Nsight Systems export"), std::string::npos);
}

TEST(ImportErrors, TruncatedSqliteIsNamedAsDamaged) {
    TempDir dir;
    const std::string full = readBytes(fixture("pipit_saxpy_mpi_cuda.sqlite"));
    const std::string e = errorOf(dir.write("cut.sqlite", full.substr(0, 200000)));
    EXPECT_NE(e.find("damaged or truncated SQLite database"), std::string::npos) << e;
}

TEST(ImportErrors, DetectsFormatsByContentNotExtension) {
    TempDir dir;
    const std::string disguised = dir.file("trace.txt");
    std::filesystem::copy_file(fixture("hta_compare_base.json.gz"), disguised);
    EXPECT_EQ(detectImportFormat(disguised), ImportFormat::Gzip);
    EXPECT_EQ(importOk(disguised)->eventCount(EventKind::Kernel), 6u);
    const std::string db = dir.file("export.json");
    std::filesystem::copy_file(fixture("extrap_con_kernel.sqlite"), db);
    EXPECT_EQ(detectImportFormat(db), ImportFormat::NsysSqlite);
    EXPECT_EQ(importOk(db)->eventCount(EventKind::Kernel), 9u);
}

TEST(OpenAny, ReadsReportsAndImportsEverythingElse) {
    TempDir dir;
    auto imported = importOk(fixture("hta_compare_test.json.gz"));
    ASSERT_TRUE(writeReport(*imported, dir.file("t.rep")).ok());
    int calls = 0;
    auto rep = openAnyReport(dir.file("t.rep"), [&](double) { return ++calls > 0; });
    ASSERT_TRUE(rep.ok()) << rep.error();
    EXPECT_EQ((*rep)->eventCount(), imported->eventCount());
    EXPECT_EQ((*rep)->eventCount(EventKind::Kernel), 5u);
    EXPECT_EQ((*rep)->session.source, "kineto-json");
    auto nsys = openAnyReport(fixture("pipit_saxpy_mpi_cuda.sqlite"), {});
    ASSERT_TRUE(nsys.ok()) << nsys.error();
    EXPECT_EQ((*nsys)->eventCount(EventKind::Kernel), 5u);
    auto bad = openAnyReport(dir.write("x.json", "[1,"), {});
    EXPECT_FALSE(bad.ok());
}

TEST(ImportRoundTrip, ImportedReportsSurviveWriteAndRead) {
    TempDir dir;
    for (const char* name : {"pipit_saxpy_mpi_cuda.sqlite", "hta_gpu_user_annotation.json.gz"}) {
        auto r = importOk(fixture(name));
        const std::string out = dir.file(std::string(name) + ".rep");
        ASSERT_TRUE(writeReport(*r, out).ok());
        auto back = readReport(out);
        ASSERT_TRUE(back.ok()) << back.error();
        EXPECT_EQ((*back)->eventCount(), r->eventCount());
        for (EventKind k : kAllEventKinds)
            EXPECT_EQ((*back)->eventCount(k), r->eventCount(k)) << name;
        EXPECT_EQ((*back)->diagnostics.size(), r->diagnostics.size());
        EXPECT_EQ((*back)->nvtxDomains.size(), r->nvtxDomains.size());
        EXPECT_EQ((*back)->session.source, r->session.source);
        EXPECT_EQ(resolvedCount(**back, EventKind::Kernel), resolvedCount(*r, EventKind::Kernel));
    }
}

}  // namespace
}  // namespace sl::test
