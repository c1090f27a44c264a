// Stats, export and diff on real traces from other tools, imported with model/import: the
// summaries agree with SQL over the original nsys exports, our SQLite export of an imported
// report answers the same SQL as the original, and the HTA before/after pair diffs as expected.
#ifdef SIGHTLINE_HAVE_IMPORT

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "model/analysis/ReportDiff.h"
#include "model/analysis/StatsReports.h"
#include "model/analysis/TableFormatter.h"
#include "model/export/SqliteExporter.h"
#include "model/import/ImportFile.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"
#include "model/rep/Sqlite.h"
#include "tests/export/ExportTestUtil.h"
#include "tests/analysis/GoldenFixtures.h"

namespace sl::analysis {
namespace {

using test::query;  // tests/export/ExportTestUtil.h
using test::Rows;

const char* kNsysFixtures[] = {"pipit_saxpy_mpi_cuda.sqlite", "extrap_concurrent_s1.sqlite", "extrap_con_kernel.sqlite"};

TEST(ImportedNsys, KernelSummaryEqualsSqlOverTheOriginalExport) {
    for (const char* file : kNsysFixtures) {
        const std::string path = test::externalFixturePath(file);
        auto r = importFile(path);
        ASSERT_TRUE(r.ok()) << r.error();
        auto t = runReport(**r, "cuda_gpu_kern_sum", {});
        ASSERT_TRUE(t.ok());
        const Rows sql = query(path,
                               "SELECT sum(k.end - k.start), count(*), min(k.end - k.start), max(k.end - k.start), s.value "
                               "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
                               "GROUP BY k.demangledName ORDER BY 1 DESC, 2, 5");
        ASSERT_EQ(sql.size(), t->rowCount()) << file;
        const auto& c = t->columns;
        for (size_t i = 0; i < sql.size(); ++i) {
            EXPECT_EQ(sql[i][0], std::to_string(c[1].ints[i])) << file;
            EXPECT_EQ(sql[i][1], std::to_string(c[2].ints[i])) << file;
            EXPECT_EQ(sql[i][2], std::to_string(c[5].ints[i])) << file;
            EXPECT_EQ(sql[i][3], std::to_string(c[6].ints[i])) << file;
            EXPECT_EQ(sql[i][4], c[8].texts[i]) << file;
        }
    }
}

TEST(ImportedNsys, MemcpySummaryEqualsSqlOverTheOriginalExport) {
    for (const char* file : kNsysFixtures) {
        const std::string path = test::externalFixturePath(file);
        auto r = importFile(path);
        ASSERT_TRUE(r.ok()) << r.error();
        auto t = runReport(**r, "cuda_gpu_mem_time_sum", {});
        ASSERT_TRUE(t.ok());
        std::map<std::string, std::pair<std::string, std::string>> ours;
        for (size_t i = 0; i < t->rowCount(); ++i)
            ours[t->columns[8].texts[i]] = {std::to_string(t->columns[1].ints[i]), std::to_string(t->columns[2].ints[i])};
        for (const auto& row : query(path, "SELECT copyKind, sum(end - start), count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1")) {
            const std::string name = memcpyOperationName(static_cast<CopyKind>(std::stoi(row[0])));
            ASSERT_TRUE(ours.count(name)) << file << ": " << name;
            EXPECT_EQ(ours[name], std::make_pair(row[1], row[2])) << file << ": " << name;
        }
        const Rows memset = query(path, "SELECT sum(end - start), count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET");
        if (!memset.empty() && memset[0][1] != "0") {
            ASSERT_TRUE(ours.count("[CUDA memset]")) << file;
            EXPECT_EQ(ours["[CUDA memset]"], std::make_pair(memset[0][0], memset[0][1])) << file;
        }
    }
}

TEST(ImportedNsys, OurExportAnswersTheSameSqlAsTheOriginal) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sl-imported-XXXXXX").string();
    const std::string dir = ::mkdtemp(tmpl.data());
    const std::string original = test::externalFixturePath("pipit_saxpy_mpi_cuda.sqlite");
    auto r = importFile(original);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_TRUE(exporter::exportSqlite(**r, dir + "/re.sqlite").ok());
    for (const char* sql : {
             "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
             "JOIN StringIds s ON s.id = k.demangledName GROUP BY 1 ORDER BY 3 DESC",
             "SELECT copyKind, count(*), sum(bytes), sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1",
             "SELECT count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
             "ON r.correlationId = k.correlationId AND k.globalPid == (r.globalTid & 0xFFFFFFFFFF000000) "
             "WHERE r.eventClass IN (0, 1)",
             "SELECT DISTINCT (globalTid >> 24) & 0xFFFFFF FROM CUPTI_ACTIVITY_KIND_RUNTIME",
             // Times stay ns from the session start, as in the original.
             "SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start",
             "SELECT start, end, bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY start",
         })
        EXPECT_EQ(query(dir + "/re.sqlite", sql), query(original, sql)) << sql;
    std::filesystem::remove_all(dir);
}

std::string csvOf(const Report& r, const std::string& spec, const StatsOptions& o) {
    auto t = runReport(r, spec, o);
    if (!t) return "error: " + t.error();
    std::ostringstream out;
    writeTable(out, *t, {TableFormat::Csv, "ns"});
    return t->skipped + out.str();
}

// `sightline stats` opens a report with only the kinds its reports read (ReportInfo::reads):
// every report gives the same table from that partial read as from the whole report, on real
// traces, over the whole report and a window counted from the time origin.
TEST(ImportedFixtures, EveryStatsReportReadsOnlyItsKindsAndGivesTheSameTable) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sl-partial-XXXXXX").string();
    const std::string dir = ::mkdtemp(tmpl.data());
    for (const char* file : {"pipit_saxpy_mpi_cuda.sqlite", "extrap_concurrent_s1.sqlite",
                             "hta_compare_base.json.gz"}) {
        SCOPED_TRACE(file);
        auto imported = importFile(test::externalFixturePath(file));
        ASSERT_TRUE(imported.ok()) << imported.error();
        const std::string rep = dir + "/r.rep";
        WriteOptions wo;
        wo.overwrite = true;
        ASSERT_TRUE(writeReport(**imported, rep, wo).ok());
        auto whole = readReport(rep);
        ASSERT_TRUE(whole.ok()) << whole.error();
        const Report& w = **whole;
        StatsOptions window;
        window.start = w.timeOrigin() + (w.tMax() - w.tMin()) / 4;
        window.end = w.timeOrigin() + (w.tMax() - w.tMin()) / 2;
        size_t nonEmpty = 0;
        for (const ReportInfo& info : allReports()) {
            EXPECT_FALSE(info.reads.empty()) << info.name;
            EXPECT_EQ(info.bare.without(info.reads), KindSet{}) << info.name;
            // The report alone, and with each of its arguments (which may read more).
            std::vector<std::string> specs{std::string(info.name)};
            for (size_t b = 0; b < info.args.size();) {
                const size_t e = std::min(info.args.find(',', b), info.args.size());
                specs.push_back(std::string(info.name) + ":" + std::string(info.args.substr(b, e - b)));
                b = e + 1;
            }
            for (const std::string& spec : specs) {
                SCOPED_TRACE(spec);
                const KindSet kinds = kindsReadBy({spec}, false);
                EXPECT_EQ(kinds, info.reads);
                const KindSet bare = bareKindsFor({spec}, false);
                EXPECT_EQ(bare, spec == info.name ? info.bare : KindSet{});
                auto part = readReport(rep, statsReadOptions({spec}, false));  // as `sightline stats` reads
                ASSERT_TRUE(part.ok()) << part.error();
                EXPECT_EQ((*part)->timeOrigin(), w.timeOrigin());
                const std::string full = csvOf(w, spec, {});
                EXPECT_EQ(csvOf(**part, spec, {}), full);
                EXPECT_EQ(csvOf(**part, spec, window), csvOf(w, spec, window));
                nonEmpty += full.find("does not contain") == std::string::npos;
            }
        }
        EXPECT_GE(nonEmpty, 5u);  // the comparison covered reports with rows
    }
    EXPECT_EQ(kindsReadBy({"nvtx_sum", "cuda_gpu_kern_sum"}, false), (KindSet{EventKind::NvtxRange, EventKind::Kernel}));
    EXPECT_TRUE(kindsReadBy({"cuda_api_sum"}, true).has(EventKind::NvtxRange));
    // A kind is bare only when every report that reads it reads it bare.
    EXPECT_EQ(bareKindsFor({"cuda_gpu_kern_sum", "cuda_api_sum"}, false), (KindSet{EventKind::Kernel, EventKind::CudaApi}));
    EXPECT_EQ(bareKindsFor({"cuda_gpu_kern_sum", "cuda_gpu_trace"}, false), KindSet{});
    EXPECT_EQ(bareKindsFor({"cuda_gpu_kern_sum:base"}, false), KindSet{});
    std::filesystem::remove_all(dir);
}

TEST(ImportedKineto, HtaBeforeAfterPairDiffs) {
    auto a = importFile(test::externalFixturePath("hta_compare_base.json.gz"));
    auto b = importFile(test::externalFixturePath("hta_compare_test.json.gz"));
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_TRUE(b.ok()) << b.error();
    DiffOptions o;
    o.categories = {DiffCategory::Kernels};
    const DiffResult d = diffReports(**a, **b, o);
    int64_t countA = 0, countB = 0, totalA = 0, totalB = 0;
    for (const auto& i : d.items) {
        countA += i.baseline.count;
        countB += i.comparison.count;
        totalA += i.baseline.total;
        totalB += i.comparison.total;
    }
    EXPECT_EQ(countA, 6);  // the fixture's README: kernels 6 vs 5
    EXPECT_EQ(countB, 5);
    EXPECT_EQ(d.baseline.kernels, 6);
    EXPECT_EQ(d.comparison.kernels, 5);
    int64_t delta = 0;
    for (const auto& i : d.items) delta += i.delta();
    EXPECT_EQ(delta, totalB - totalA);
}

}  // namespace
}  // namespace sl::analysis

#endif  // SIGHTLINE_HAVE_IMPORT
