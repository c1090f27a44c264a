// CPU samples in the exports: the SQLite export writes COMPOSITE_EVENTS + SAMPLING_CALLCHAINS
// as nsys does (nsys-style SQL gives the flat profile; our nsys importer reads it back to the
// same samples and stacks), the Chrome JSON has instants plus "samples" and "stackFrames", and
// the CSV export has both tables; the Chrome JSON importer reads those samples back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "model/export/ChromeTraceExporter.h"
#include "model/export/CsvExporter.h"
#include "model/export/SqliteExporter.h"
#include "tests/export/ExportTestUtil.h"
#include "tests/unit/TestUtil.h"
#include "tests/analysis/SampleFixtures.h"
#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#endif

namespace sl::exporter {
namespace {

namespace fs = std::filesystem;

using test::TempDir;  // tests/unit/TestUtil.h

using test::query;  // tests/export/ExportTestUtil.h
using test::Rows;
using test::slurp;

TEST(SampleExport, SqliteHasNsysSampleTables) {
    TempDir dir;
    const std::string db = dir.file("s.sqlite");
    auto r = test::makeSampleReport();
    auto stats = exportSqlite(*r, db);
    ASSERT_TRUE(stats.ok()) << stats.error();
    EXPECT_EQ(
        query(db,
              "SELECT count(*), min(id), max(id), min(start), max(start) FROM COMPOSITE_EVENTS"),
        (Rows{{"12", "1", "12", "100", "1200"}}));
    // 4 x 3 + 3 x 3 + 2 x 2 + 1 x 4 + 2 x 3 frames.
    EXPECT_EQ(query(db, "SELECT count(*), sum(unresolved) FROM SAMPLING_CALLCHAINS"),
              (Rows{{"35", "1"}}));
    EXPECT_EQ(query(db, "SELECT count(*) FROM COMPOSITE_EVENTS WHERE cpu IS NULL"), (Rows{{"2"}}));
    // nsys's PID/TID packing of globalTid.
    EXPECT_EQ(query(db,
                    "SELECT globalTid / 16777216 % 16777216, globalTid % 16777216, count(*) FROM "
                    "COMPOSITE_EVENTS "
                    "GROUP BY 1, 2 ORDER BY 2"),
              (Rows{{"5", "6", "9"}, {"5", "7", "3"}}));
    // The flat profile's self column, the way nsys users write it in SQL.
    EXPECT_EQ(query(db,
                    "SELECT s.value, m.value, count(*) FROM SAMPLING_CALLCHAINS c JOIN StringIds s "
                    "ON s.id = c.symbol "
                    "JOIN StringIds m ON m.id = c.module WHERE c.stackDepth = 0 GROUP BY 1, 2 "
                    "ORDER BY 3 DESC, 1"),
              (Rows{{"square", "/usr/bin/app", "4"},
                    {"sqrt", "/usr/lib/libm.so.6", "3"},
                    {"compute", "/usr/bin/app", "2"},
                    {"recurse", "/usr/bin/app", "2"},
                    {"0x1234", "/usr/lib/libm.so.6", "1"}}));
    // The stack of the sample at 1000 ns, leaf first, with the unresolved frame's address.
    EXPECT_EQ(
        query(db,
              "SELECT c.stackDepth, s.value, c.originalIP, c.unresolved FROM SAMPLING_CALLCHAINS c "
              "JOIN COMPOSITE_EVENTS e ON e.id = c.id JOIN StringIds s ON s.id = c.symbol "
              "WHERE e.start = 1000 ORDER BY c.stackDepth"),
        (Rows{{"0", "0x1234", "4660", "1"},
              {"1", "sqrt", "8192", "NULL"},
              {"2", "compute", "4352", "NULL"},
              {"3", "main", "4096", "NULL"}}));
    // (id, stackDepth) is the primary key, as in nsys.
    EXPECT_EQ(
        query(db,
              "SELECT count(*) FROM pragma_index_list('SAMPLING_CALLCHAINS') WHERE origin = 'pk'"),
        (Rows{{"1"}}));
}

TEST(SampleExport, SqliteWindowKeepsOnlySamplesInside) {
    TempDir dir;
    const std::string db = dir.file("w.sqlite");
    auto r = test::makeSampleReport();
    ExportOptions o;
    o.start = 500;
    o.end = 900;
    ASSERT_TRUE(exportSqlite(*r, db, o).ok());
    EXPECT_EQ(query(db, "SELECT count(*) FROM COMPOSITE_EVENTS"), (Rows{{"5"}}));
    EXPECT_EQ(query(db, "SELECT count(*) FROM SAMPLING_CALLCHAINS"),
              (Rows{{"13"}}));  // 3 x 3 + 2 x 2
}

TEST(SampleExport, CsvHasSampleTables) {
    TempDir dir;
    auto r = test::makeSampleReport();
    ASSERT_TRUE(exportCsv(*r, dir.file("csv")).ok());
    const std::string events = slurp(dir.file("csv/COMPOSITE_EVENTS.csv"));
    const std::string chains = slurp(dir.file("csv/SAMPLING_CALLCHAINS.csv"));
    EXPECT_EQ(events.substr(0, events.find('\n')), "id,start,cpu,threadState,globalTid,cpuCycles");
    EXPECT_EQ(std::count(events.begin(), events.end(), '\n'), 13);
    EXPECT_EQ(chains.substr(0, chains.find('\n')),
              "id,symbol,module,kernelMode,thumbCode,unresolved,specialEntry,originalIP,"
              "unwindMethod,stackDepth");
    EXPECT_EQ(std::count(chains.begin(), chains.end(), '\n'), 36);
}

TEST(SampleExport, ChromeJsonHasSamplesStackFramesAndInstants) {
    if (std::string(SIGHTLINE_PYTHON3).empty()) GTEST_SKIP() << "python3 not found";
    TempDir dir;
    const std::string json = dir.file("t.json"), out = dir.file("t.out");
    auto r = test::makeSampleReport();
    auto stats = exportChromeTrace(*r, json);
    ASSERT_TRUE(stats.ok()) << stats.error();
    // Python resolves each sample's "sf" chain through "stackFrames" (leaf first) and counts
    // the cpu_sample instants; the frame tree has 7 nodes (main, main>compute, ...>square,
    // ...>sqrt, ...>sqrt>libm.so.6+0x1234, main>recurse, main>recurse>recurse).
    const std::string script =
        "import json,sys\n"
        "d=json.load(open(sys.argv[1]))\n"
        "f=d['stackFrames']\n"
        "def chain(i):\n"
        "  out=[]\n"
        "  while i is not None:\n"
        "    n=f[str(i)]; out.append(n['name']+'@'+n['category']); i=n.get('parent')\n"
        "  return '<'.join(out)\n"
        "ev=[e for e in d['traceEvents'] if e.get('cat')=='cpu_sample']\n"
        "print(len(f), len(d['samples']), len(ev), sum(1 for e in ev if e['ph']=='i'))\n"
        "for s in d['samples']:\n"
        "  if s['ts'] in (0.1, 1.0, 1.2): print(s['tid'], s['cpu'], s['name'], chain(s['sf']))\n"
        "print(chain(ev[0]['sf']) == chain(d['samples'][0]['sf']))\n";
    std::ofstream(dir.file("check.py")) << script;
    const std::string cmd =
        std::string(SIGHTLINE_PYTHON3) + " " + dir.file("check.py") + " " + json + " > " + out;
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_EQ(
        slurp(out),
        "7 12 12 12\n"
        "6 0 square square@app<compute@app<main@app\n"
        "7 2 libm.so.6+0x1234 libm.so.6+0x1234@libm.so.6<sqrt@libm.so.6<compute@app<main@app\n"
        "7 -1 recurse recurse@app<recurse@app<main@app\n"
        "True\n");
}

#ifdef SIGHTLINE_HAVE_IMPORT
// (pid, tid, time, cpu, frame texts leaf first) of every sample, in a stable order.
using SampleRow = std::tuple<int64_t, int64_t, int64_t, int64_t, std::vector<std::string>>;
std::vector<SampleRow> sampleRows(const Report& r) {
    std::vector<SampleRow> out;
    for (const Track* t : r.tracksOfKind(EventKind::CpuSample))
        for (size_t i = 0; i < t->size(); ++i) {
            std::vector<std::string> frames;
            for (uint32_t f :
                 r.callStacks[static_cast<size_t>(t->intAt(cols::CpuSample::Stack, i))].frames)
                frames.push_back(r.frameText(f));
            out.emplace_back(t->key.pid, t->key.tid, t->start[i], t->intAt(cols::CpuSample::Cpu, i),
                             frames);
        }
    std::sort(out.begin(), out.end());
    return out;
}

TEST(SampleExport, NsysImporterReadsTheExportBack) {
    TempDir dir;
    auto r = test::makeSampleReport();
    ASSERT_TRUE(exportSqlite(*r, dir.file("rt.sqlite")).ok());
    auto back = importFile(dir.file("rt.sqlite"));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ((*back)->eventCount(EventKind::CpuSample), 12u);
    EXPECT_EQ((*back)->stackFrames.size(), 6u);
    EXPECT_EQ((*back)->callStacks.size(), 5u);
    EXPECT_EQ(sampleRows(**back), sampleRows(*r));
    EXPECT_EQ((*back)->diagnosticCount("nsys.unmapped_table.COMPOSITE_EVENTS"), 0);
    EXPECT_EQ((*back)->diagnosticCount("nsys.samples_without_callchain"), 0);
}

TEST(SampleExport, ChromeJsonImporterReadsTheExportBack) {
    TempDir dir;
    auto r = test::makeSampleReport();
    ASSERT_TRUE(exportChromeTrace(*r, dir.file("rt.json")).ok());
    auto back = importFile(dir.file("rt.json"));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ((*back)->eventCount(EventKind::CpuSample), 12u);
    EXPECT_EQ((*back)->eventCount(EventKind::NvtxMark), 0u);  // the instants are samples again
    // JSON keeps function names, module file names and unresolved addresses (not module paths
    // or offsets of resolved frames), which is all frameText() shows.
    EXPECT_EQ(sampleRows(**back), sampleRows(*r));
    EXPECT_EQ((*back)->callStacks.size(), 5u);
}

// Context switches: nsys's SCHED_EVENTS, a sched-in and a sched-out row per running period
// (the export had no such table: SQL written for nsys exports found nothing). The nsys fixture's
// periods come back the same through our export, and nsys-style SQL over the table answers the
// same for the rows that pair (the fixture's unpaired edge rows are not periods).
TEST(SampleExport, ContextSwitchesRoundTripThroughSchedEvents) {
    const std::string original =
        std::string(SIGHTLINE_TEST_DATA) + "/import/pipit_saxpy_mpi_cuda.sqlite";
    auto first = importFile(original);
    ASSERT_TRUE(first.ok()) << first.error();
    const uint64_t periods = (*first)->eventCount(EventKind::ThreadState);
    ASSERT_GT(periods, 1000u);
    TempDir dir;
    ASSERT_TRUE(exportSqlite(**first, dir.file("sched.sqlite")).ok());
    EXPECT_EQ(query(dir.file("sched.sqlite"),
                    "SELECT count(*), sum(isSchedIn) FROM SCHED_EVENTS"),
              (Rows{{std::to_string(2 * periods), std::to_string(periods)}}));
    auto second = importFile(dir.file("sched.sqlite"));
    ASSERT_TRUE(second.ok()) << second.error();
    EXPECT_EQ((*second)->eventCount(EventKind::ThreadState), periods);
    EXPECT_EQ((*second)->diagnosticCount("nsys.sched_unpaired"), 0);
    // Time on each CPU, as a user's SQL pairs the rows (LEAD over each thread's switches).
    const std::string sql =
        "SELECT cpu, sum(next - start) FROM (SELECT start, cpu, isSchedIn, "
        "LEAD(start) OVER (PARTITION BY globalTid ORDER BY start) AS next, "
        "LEAD(isSchedIn) OVER (PARTITION BY globalTid ORDER BY start) AS nextIn FROM "
        "SCHED_EVENTS) WHERE isSchedIn != 0 AND nextIn = 0 GROUP BY cpu ORDER BY cpu";
    EXPECT_EQ(query(dir.file("sched.sqlite"), sql), query(original, sql));
}

TEST(SampleExport, NsysFixtureRoundTripsThroughTheExport) {
    auto first =
        importFile(std::string(SIGHTLINE_TEST_DATA) + "/import/pipit_saxpy_mpi_cuda.sqlite");
    ASSERT_TRUE(first.ok()) << first.error();
    TempDir dir;
    ASSERT_TRUE(exportSqlite(**first, dir.file("pipit.sqlite")).ok());
    auto second = importFile(dir.file("pipit.sqlite"));
    ASSERT_TRUE(second.ok()) << second.error();
    EXPECT_EQ((*second)->eventCount(EventKind::CpuSample), 5451u);
    EXPECT_EQ((*second)->stackFrames.size(), (*first)->stackFrames.size());
    EXPECT_EQ((*second)->callStacks.size(), (*first)->callStacks.size());
    EXPECT_EQ(sampleRows(**second), sampleRows(**first));
    // nsys users' SQL over the samples answers the same on the original and on our export.
    const std::string sql =
        "SELECT s.value, m.value, c.stackDepth, count(*), sum(c.originalIP) FROM "
        "SAMPLING_CALLCHAINS c "
        "JOIN StringIds s ON s.id = c.symbol JOIN StringIds m ON m.id = c.module GROUP BY 1, 2, 3 "
        "ORDER BY 1, 2, 3";
    const std::string original =
        std::string(SIGHTLINE_TEST_DATA) + "/import/pipit_saxpy_mpi_cuda.sqlite";
    const Rows expected = query(original, sql);
    EXPECT_EQ(expected.size(),
              query(original, "SELECT DISTINCT symbol, module, stackDepth FROM SAMPLING_CALLCHAINS")
                  .size());
    EXPECT_EQ(query(dir.file("pipit.sqlite"), sql), expected);
    EXPECT_EQ(query(dir.file("pipit.sqlite"),
                    "SELECT count(*), min(start), max(start) FROM COMPOSITE_EVENTS"),
              query(original, "SELECT count(*), min(start), max(start) FROM COMPOSITE_EVENTS"));
}
#endif

}  // namespace
}  // namespace sl::exporter
