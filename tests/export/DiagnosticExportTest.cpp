// What a report lost or left out reaches every export: the nsys DIAGNOSTIC_EVENT table (with
// its ENUM_DIAGNOSTIC_* tables, answering the query scripts run before they trust an nsys
// export), its CSV file, and the Chrome trace's otherData. The nsys importer gives a
// Sightline export's diagnostics back exactly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/export/ChromeTraceExporter.h"
#include "model/export/CsvExporter.h"
#include "model/export/NsysTables.h"
#include "model/export/SqliteExporter.h"
#include "tests/analysis/Fixtures.h"
#include "tests/export/ExportTestUtil.h"
#include "tests/unit/TestUtil.h"
#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#include "model/import/KinetoJsonImporter.h"
#include "model/rep/RepReader.h"
#endif

namespace sl::exporter {
namespace {

namespace fs = std::filesystem;
using test::query;
using test::Rows;

std::shared_ptr<Report> reportWithDiagnostics() {
    auto r = test::makeStatsReport();
    r->diagnostics.push_back({"nvtx.events_dropped", 12, "NVTX events were dropped: the buffer was full", 7});
    r->diagnostics.push_back({"capture.delay_not_reached", 1, "the program ended before --delay ran out", 0});
    r->diagnostics.push_back({"sampling.frames_unresolved", 3, "frames without a function name", 0});
    return r;
}

TEST(DiagnosticExport, SqliteAnswersTheWarningQueryOfNsysScripts) {
    test::TempDir dir;
    auto r = reportWithDiagnostics();
    ASSERT_TRUE(exportSqlite(*r, dir.file("a.sqlite")).ok());
    const std::string db = dir.file("a.sqlite");
    EXPECT_EQ(query(db, "SELECT sev.label, src.label, ts.label, d.text, d.globalPid >> 24 & 0xFFFFFF, d.name, d.count "
                        "FROM DIAGNOSTIC_EVENT d JOIN ENUM_DIAGNOSTIC_SEVERITY_LEVEL sev ON sev.id = d.severity "
                        "JOIN ENUM_DIAGNOSTIC_SOURCE_TYPE src ON src.id = d.source "
                        "JOIN ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE ts ON ts.id = d.timestampType "
                        "WHERE sev.name = 'DIAGNOSTIC_SEVERITY_LEVEL_WARNING' ORDER BY d.rowid"),
              (Rows{{"Warning", "Analysis", "HostTimestamp", "NVTX events were dropped: the buffer was full", "7",
                     "nvtx.events_dropped", "12"},
                    {"Warning", "Analysis", "HostTimestamp", "the program ended before --delay ran out", "NULL",
                     "capture.delay_not_reached", "1"}}));
    EXPECT_EQ(query(db, "SELECT DISTINCT timestamp FROM DIAGNOSTIC_EVENT"), (Rows{{"0"}}));
    // A note (nothing lost: the frames are in the report as module+offset) is information.
    EXPECT_EQ(query(db, "SELECT sev.label, d.name FROM DIAGNOSTIC_EVENT d JOIN ENUM_DIAGNOSTIC_SEVERITY_LEVEL sev "
                        "ON sev.id = d.severity WHERE sev.label = 'Info'"),
              (Rows{{"Info", "sampling.frames_unresolved"}}));
}

TEST(DiagnosticExport, NoDiagnosticsNoTable) {
    test::TempDir dir;
    auto r = test::makeStatsReport();
    r->diagnostics.clear();
    ASSERT_TRUE(exportSqlite(*r, dir.file("a.sqlite")).ok());
    EXPECT_EQ(query(dir.file("a.sqlite"), "SELECT count(*) FROM sqlite_master WHERE name LIKE '%DIAGNOSTIC%'"),
              (Rows{{"0"}}));
}

#ifdef SIGHTLINE_HAVE_IMPORT
TEST(DiagnosticExport, ImportingTheExportGivesTheSameDiagnostics) {
    test::TempDir dir;
    auto r = reportWithDiagnostics();
    ASSERT_TRUE(exportSqlite(*r, dir.file("a.sqlite")).ok());
    auto back = importFile(dir.file("a.sqlite"));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ((*back)->diagnostics, r->diagnostics);
    EXPECT_EQ((*back)->diagnosticCount("nsys.unmapped_table.DIAGNOSTIC_EVENT"), 0);
}

// The JSON export's diagnostics come back from the import too: parsed whole, in chunks, and
// streamed into a report file.
TEST(DiagnosticExport, ImportingTheJsonExportGivesThemBack) {
    test::TempDir dir;
    auto r = reportWithDiagnostics();
    const std::string json = dir.file("t.json");
    ASSERT_TRUE(exportChromeTrace(*r, json).ok());
    auto has = [&](const Report& back) {
        for (const Diagnostic& d : r->diagnostics)
            EXPECT_NE(std::find(back.diagnostics.begin(), back.diagnostics.end(), d), back.diagnostics.end())
                << d.name;
    };
    for (const import::ChunkPolicy policy : {import::ChunkPolicy{SIZE_MAX, 0}, import::ChunkPolicy{0, 1024}}) {
        auto back = import::importChromeTrace(json, {}, policy);
        ASSERT_TRUE(back.ok()) << back.error();
        has(**back);
    }
    auto written = import::importChromeTraceToReport(json, dir.file("t.rep"), {}, {});
    ASSERT_TRUE(written.ok()) << written.error();
    auto rep = readReport(dir.file("t.rep"));
    ASSERT_TRUE(rep.ok()) << rep.error();
    has(**rep);
}
#endif

TEST(DiagnosticExport, CsvHasTheTable) {
    test::TempDir dir;
    auto r = reportWithDiagnostics();
    ASSERT_TRUE(exportCsv(*r, dir.file("csv")).ok());
    std::ifstream in(dir.file("csv") + "/DIAGNOSTIC_EVENT.csv");
    std::string header, first;
    std::getline(in, header);
    std::getline(in, first);
    EXPECT_EQ(header, "timestamp,timestampType,source,severity,text,globalPid,name,count");
    EXPECT_NE(first.find("nvtx.events_dropped"), std::string::npos) << first;
    EXPECT_TRUE(fs::exists(dir.file("csv") + "/ENUM_DIAGNOSTIC_SEVERITY_LEVEL.csv"));
}

TEST(DiagnosticExport, ChromeTraceCarriesThemInOtherData) {
    if (std::string(SIGHTLINE_PYTHON3).empty()) GTEST_SKIP() << "python3 not found";
    test::TempDir dir;
    auto r = reportWithDiagnostics();
    const std::string json = dir.file("t.json");
    ASSERT_TRUE(exportChromeTrace(*r, json).ok());
    const std::string out = json + ".txt";
    const std::string cmd = std::string(SIGHTLINE_PYTHON3) +
                            " -c \"import json,sys; d=json.load(open(sys.argv[1])); "
                            "print(';'.join(f\\\"{x['name']}={x['count']}@{x.get('pid', 0)}:{x['reason']}\\\" "
                            "for x in d['otherData']['diagnostics']))\" " + json + " > " + out;
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    std::ifstream in(out);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line,
              "nvtx.events_dropped=12@7:NVTX events were dropped: the buffer was full;"
              "capture.delay_not_reached=1@0:the program ended before --delay ran out;"
              "sampling.frames_unresolved=3@0:frames without a function name");
}

}  // namespace
}  // namespace sl::exporter
