// CPU sample benchmark: builds a report in memory with N samples (default 1,000,000) over S
// distinct call stacks (default 5,000; depth 4-40 frames from 2,000 functions in 20 modules,
// 8 threads), then times `sample_sum` (best of 3, wall and process CPU time). With --export it
// also times the nsys-schema SQLite export of the samples and, when the importer is built, the
// nsys import of that export. With --rep PATH it writes the report as a .rep file, to time
// `sightline stats -r sample_sum PATH` end to end.
// Usage: bench_samples [--samples N] [--stacks S] [--export DIR] [--rep PATH]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>
#include <string>

#include "model/analysis/StatsReports.h"
#include "model/core/ReportBuilder.h"
#include "model/export/SqliteExporter.h"
#include "model/rep/RepWriter.h"
#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#endif
#include "tests/bench/ProcessCpu.h"

using namespace sl;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a) {
    return std::chrono::duration<double>(Clock::now() - a).count();
}

std::shared_ptr<Report> buildReport(uint64_t samples, uint32_t stacks) {
    ReportBuilder b;
    b.report().session.source = "bench";
    b.report().session.startMonotonicNs = 0;
    std::mt19937_64 rng(42);
    std::vector<uint32_t> modules;
    for (int m = 0; m < 20; ++m)
        modules.push_back(b.intern("/usr/lib/libbench" + std::to_string(m) + ".so"));
    std::vector<uint32_t> frames;
    for (int f = 0; f < 2'000; ++f) {
        const uint32_t fn =
            f % 50 == 49 ? 0 : b.intern("function_" + std::to_string(f));  // 2% unresolved
        frames.push_back(b.frameId({fn, modules[static_cast<size_t>(f) % modules.size()],
                                    0x1000u + 16u * static_cast<uint64_t>(f)}));
    }
    std::vector<uint32_t> stackIds;
    std::uniform_int_distribution<size_t> pick(0, frames.size() - 1);
    while (b.report().callStacks.size() < stacks) {
        std::vector<uint32_t> s(4 + rng() % 37);
        for (auto& f : s) f = frames[pick(rng)];
        stackIds.push_back(b.stackId(std::move(s)));
    }
    // Skewed: a few hot stacks get most samples, as in real profiles.
    std::geometric_distribution<size_t> hot(0.002);
    for (uint64_t i = 0; i < samples; ++i) {
        const uint32_t stack = stackIds[hot(rng) % stackIds.size()];
        const uint32_t leaf = b.report().callStacks[stack].frames.front();
        b.add(CpuSampleEvent{1000, 1000 + static_cast<int64_t>(i % 8),
                             static_cast<int64_t>(i) * 1'000'000 / 8, stack,
                             b.report().stackFrames[leaf].function, static_cast<int16_t>(i % 16)});
    }
    return b.finish();
}

}  // namespace

int main(int argc, char** argv) {
    uint64_t samples = 1'000'000;
    uint32_t stacks = 5'000;
    std::string exportDir, repPath;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--samples") && i + 1 < argc)
            samples = std::stoull(argv[++i]);
        else if (!std::strcmp(argv[i], "--stacks") && i + 1 < argc)
            stacks = static_cast<uint32_t>(std::stoul(argv[++i]));
        else if (!std::strcmp(argv[i], "--export") && i + 1 < argc)
            exportDir = argv[++i];
        else if (!std::strcmp(argv[i], "--rep") && i + 1 < argc)
            repPath = argv[++i];
        else {
            std::fprintf(
                stderr,
                "usage: bench_samples [--samples N] [--stacks S] [--export DIR] [--rep PATH]\n");
            return 2;
        }
    }
    auto t0 = Clock::now();
    auto report = buildReport(samples, stacks);
    std::printf("build: %llu samples, %zu stacks, %zu frames in %.2f s\n",
                static_cast<unsigned long long>(report->eventCount(EventKind::CpuSample)),
                report->callStacks.size(), report->stackFrames.size(), seconds(t0));
    double bestWall = 1e9, bestCpu = 1e9;
    size_t rows = 0;
    for (int run = 0; run < 3; ++run) {
        const auto w = Clock::now();
        const double c = bench::processCpuSeconds();
        auto t = analysis::runReport(*report, "sample_sum", {});
        bestWall = std::min(bestWall, seconds(w));
        bestCpu = std::min(bestCpu, bench::processCpuSeconds() - c);
        rows = t.ok() ? t->rowCount() : 0;
    }
    std::printf("sample_sum: %zu rows, best of 3: %.1f ms wall, %.1f ms CPU\n", rows,
                bestWall * 1e3, bestCpu * 1e3);
    if (!repPath.empty()) {
        if (Status st = writeReport(*report, repPath); !st) {
            std::fprintf(stderr, "%s\n", st.error().c_str());
            return 1;
        }
        std::printf("wrote %s\n", repPath.c_str());
    }
    if (exportDir.empty()) return 0;
    const std::string db = exportDir + "/bench_samples.sqlite";
    std::filesystem::remove(db);
    auto w = Clock::now();
    double c = bench::processCpuSeconds();
    auto stats = exporter::exportSqlite(*report, db);
    if (!stats) {
        std::fprintf(stderr, "%s\n", stats.error().c_str());
        return 1;
    }
    std::printf("export sqlite: %llu rows in %.2f s wall, %.2f s CPU\n",
                static_cast<unsigned long long>(stats->rows), seconds(w), bench::processCpuSeconds() - c);
#ifdef SIGHTLINE_HAVE_IMPORT
    w = Clock::now();
    c = bench::processCpuSeconds();
    auto back = importFile(db);
    if (!back) {
        std::fprintf(stderr, "%s\n", back.error().c_str());
        return 1;
    }
    std::printf("import nsys sqlite: %llu samples in %.2f s wall, %.2f s CPU\n",
                static_cast<unsigned long long>((*back)->eventCount(EventKind::CpuSample)),
                seconds(w), bench::processCpuSeconds() - c);
#endif
    std::filesystem::remove(db);
    return 0;
}
