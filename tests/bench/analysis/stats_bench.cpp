// Stats and export benchmark: generates a report in memory (default 25.3 million events, about
// 10 million kernels), times cuda_gpu_kern_sum, exports the report to SQLite (rows/s), then
// times the same summary as an SQL GROUP BY over that export, side by side.
// Usage: bench_stats [--events N] [--dir DIR] [--keep]
#include <sys/resource.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "model/analysis/StatsReports.h"
#include "model/export/SqliteExporter.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/rep/Sqlite.h"
#include "tests/bench/ProcessCpu.h"

using namespace sl;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

double peakRssGiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / (1024.0 * 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
    uint64_t events = 25'300'000;  // about 10 million kernels
    std::string dir = std::filesystem::temp_directory_path().string();
    bool keep = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--events") && i + 1 < argc) events = std::stoull(argv[++i]);
        else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
        else if (!std::strcmp(argv[i], "--keep")) keep = true;
        else {
            std::fprintf(stderr, "usage: bench_stats [--events N] [--dir DIR] [--keep]\n");
            return 2;
        }
    }
    GeneratorOptions g;
    g.events = events;
    auto t0 = Clock::now();
    GeneratorStats gs;
    auto report = generateReport(g, &gs);
    std::printf("generate: %llu events, %llu kernels in %.2f s\n", static_cast<unsigned long long>(gs.events),
                static_cast<unsigned long long>(gs.kernels), seconds(t0));

    // Step 1: the summary in memory (best of 3).
    double best = 1e9, bestCpu = 1e9;
    size_t rows = 0;
    for (int i = 0; i < 3; ++i) {
        t0 = Clock::now();
        const double c0 = bench::processCpuSeconds();
        auto t = analysis::runReport(*report, "cuda_gpu_kern_sum", {});
        best = std::min(best, seconds(t0));
        bestCpu = std::min(bestCpu, bench::processCpuSeconds() - c0);
        if (!t) return std::fprintf(stderr, "%s\n", t.error().c_str()), 1;
        rows = t->rowCount();
    }
    std::printf("cuda_gpu_kern_sum: %.3f s wall, %.3f s CPU over %llu kernels (%zu rows; best of 3)\n", best, bestCpu,
                static_cast<unsigned long long>(gs.kernels), rows);

    // Step 2: export to SQLite.
    const std::string path = dir + "/bench_stats_export.sqlite";
    exporter::ExportOptions eo;
    eo.overwrite = true;
    std::filesystem::remove(path);
    t0 = Clock::now();
    double c0 = bench::processCpuSeconds();
    auto ex = exporter::exportSqlite(*report, path, eo);
    const double exportS = seconds(t0), exportCpu = bench::processCpuSeconds() - c0;
    if (!ex) return std::fprintf(stderr, "%s\n", ex.error().c_str()), 1;
    std::printf("export sqlite: %llu rows in %.2f s wall = %.0f rows/s (%.2f s CPU = %.0f rows/CPU-s; %.2f GiB file)\n",
                static_cast<unsigned long long>(ex->rows), exportS, static_cast<double>(ex->rows) / exportS, exportCpu,
                static_cast<double>(ex->rows) / exportCpu,
                static_cast<double>(std::filesystem::file_size(path)) / (1024.0 * 1024 * 1024));

    // Step 3: the same summary as SQL over our export (no median: SQLite has none built in).
    sqlite::Db db;
    if (Status s = db.openReadOnly(path); !s) return std::fprintf(stderr, "%s\n", s.error().c_str()), 1;
    const char* sql =
        "SELECT s.value, sum(k.end - k.start) AS total, count(*), avg(k.end - k.start), min(k.end - k.start), "
        "max(k.end - k.start), sum((k.end - k.start) * (k.end - k.start)) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "JOIN StringIds AS s ON s.id = k.demangledName GROUP BY k.demangledName ORDER BY total DESC";
    t0 = Clock::now();
    c0 = bench::processCpuSeconds();
    sqlite::Stmt st(db, sql);
    size_t sqlRows = 0;
    while (st.step()) ++sqlRows;
    const double sqlS = seconds(t0), sqlCpu = bench::processCpuSeconds() - c0;
    if (!st.ok()) return std::fprintf(stderr, "%s\n", st.error().c_str()), 1;
    std::printf("SQL GROUP BY over the export: %.3f s wall, %.3f s CPU (%zu rows)\n", sqlS, sqlCpu, sqlRows);
    std::printf("speed-up of cuda_gpu_kern_sum over SQL: %.1fx wall, %.1fx CPU\n", sqlS / best, sqlCpu / bestCpu);
    std::printf("peak RSS: %.2f GiB\n", peakRssGiB());
    db.close();
    if (!keep) std::filesystem::remove(path);
    return 0;
}
