// Report format benchmark: write, open + full load, memory, and LOD queries on a generated
// report. Usage: bench_report [--events N] [--dir DIR] [--keep]
// Prints one line per figure; docs/PERFORMANCE.md records them.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/core/LodQuery.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"

using namespace sl;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

size_t rssBytes() {
    std::ifstream in("/proc/self/statm");
    size_t pages = 0, resident = 0;
    in >> pages >> resident;
    return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

int main(int argc, char** argv) {
    uint64_t events = 10'000'000;
    std::string dir = std::filesystem::temp_directory_path().string();
    bool keep = false, verbose = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--events") && i + 1 < argc) events = std::stoull(argv[++i]);
        else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
        else if (!std::strcmp(argv[i], "--keep")) keep = true;
        else if (!std::strcmp(argv[i], "--verbose")) verbose = true;
    }
    const std::string path = dir + "/bench_" + std::to_string(events) + ".rep";
    GeneratorOptions go;
    go.events = events;

    // 1. Write: the generator streams straight into the writer; time both, and the generator
    //    alone (into a discarding in-memory pass is not comparable, so we report the total).
    auto t0 = Clock::now();
    auto stats = generateReportFile(go, path, {});
    if (!stats) {
        std::fprintf(stderr, "generate failed: %s\n", stats.error().c_str());
        return 1;
    }
    const double writeS = seconds(t0);
    const auto fileBytes = std::filesystem::file_size(path);
    std::printf("events                 %llu\n", static_cast<unsigned long long>(stats->events));
    std::printf("generate+write         %.3f s  (%.2f M events/s)\n", writeS, stats->events / writeS / 1e6);
    std::printf("file size              %.1f MB  (%.2f bytes/event)\n", fileBytes / 1e6,
                static_cast<double>(fileBytes) / static_cast<double>(stats->events));

    // 2. Open and fully load.
    const size_t rss0 = rssBytes();
    t0 = Clock::now();
    auto report = readReport(path);
    if (!report) {
        std::fprintf(stderr, "read failed: %s\n", report.error().c_str());
        return 1;
    }
    const double readS = seconds(t0);
    const size_t rss1 = rssBytes();
    const Report& r = **report;
    std::printf("open+load              %.3f s  (%.2f M events/s)\n", readS, r.eventCount() / readS / 1e6);
    std::printf("resident (RSS delta)   %.1f MB  (%.2f bytes/event)\n", (rss1 - rss0) / 1e6,
                static_cast<double>(rss1 - rss0) / static_cast<double>(r.eventCount()));
    std::printf("model accounting       %.1f MB  (%.2f bytes/event)\n", r.memoryBytes() / 1e6,
                static_cast<double>(r.memoryBytes()) / static_cast<double>(r.eventCount()));

    // 3. Rewrite the loaded report (in-memory writer path).
    t0 = Clock::now();
    const std::string path2 = path + ".rewrite.rep";
    if (Status s = writeReport(r, path2); !s) {
        std::fprintf(stderr, "write failed: %s\n", s.error().c_str());
        return 1;
    }
    const double rewriteS = seconds(t0);
    std::printf("write (in-memory)      %.3f s  (%.2f M events/s)\n", rewriteS, r.eventCount() / rewriteS / 1e6);
    std::filesystem::remove(path2);

    // 4. LOD: 2000-pixel views of the biggest track, from the full range down to ~1 us.
    const Track* big = nullptr;
    for (const auto& t : r.tracks)
        if (t.key.kind != EventKind::Metric && (!big || t.size() > big->size())) big = &t;
    std::vector<LodBucket> buckets;
    std::vector<LaneItem> items;
    const int64_t span = big->tMax - big->tMin;
    double worstBuckets = 0, worstLayout = 0;
    for (int64_t width = span; width >= 2000; width /= 4) {
        const int64_t c = big->tMin + span / 2 - width / 2;
        auto q0 = Clock::now();
        const int reps = 20;
        for (int k = 0; k < reps; ++k) queryBuckets(*big, 0, c, c + width, 2000, buckets);
        const double worstBucketsAt = seconds(q0) / reps;
        worstBuckets = std::max(worstBuckets, worstBucketsAt);
        q0 = Clock::now();
        for (int k = 0; k < reps; ++k) layoutLane(*big, 0, c, c + width, static_cast<double>(width) / 2000.0, 3.0, items);
        const double layoutS = seconds(q0) / reps;
        worstLayout = std::max(worstLayout, layoutS);
        if (verbose) std::printf("  view %14lld ns: buckets %.3f ms, layout %.3f ms\n", static_cast<long long>(width), worstBucketsAt * 1e3, layoutS * 1e3);
    }
    std::printf("LOD track              %zu events in lane 0\n", big->lane(0).size());
    std::printf("LOD 2000 buckets       worst %.3f ms over zoom levels\n", worstBuckets * 1e3);
    std::printf("LOD lane layout        worst %.3f ms over zoom levels\n", worstLayout * 1e3);

    // 5. What the timeline does for a wide view: every lane (up to 32 per track) of every track
    //    laid out at 1600 pixels over 1/1, 1/4 and 1/16 of the report, with per-pixel buckets
    //    for folds wider than 3 pixels (longest not requested, as TrackRow does).
    const int64_t rspan = std::max<int64_t>(1, r.tMax() - r.tMin());
    for (int64_t div : {1, 4, 16}) {
        const int64_t width = rspan / div, c = r.tMin() + rspan / 2 - width / 2;
        const double nsPerPixel = static_cast<double>(width) / 1600.0;
        size_t lanes = 0, folds = 0;
        const auto w0 = Clock::now();
        for (const auto& t : r.tracks) {
            if (t.key.kind == EventKind::Metric) continue;
            for (uint32_t l = 0; l < std::min<uint32_t>(t.laneCount(), 32); ++l, ++lanes) {
                layoutLane(t, l, c, c + width, nsPerPixel, 2.0, items);
                for (const LaneItem& it : items) {
                    const double px = static_cast<double>(it.end - it.start) / nsPerPixel;
                    if (it.count < 2 || px < 3) continue;
                    ++folds;
                    queryBuckets(t, l, std::max(it.start, c), std::min(it.end, c + width),
                                 static_cast<uint32_t>(std::min(1600.0, px)), buckets, false);
                }
            }
        }
        std::printf("LOD wide view 1/%-2lld      %.3f ms  (%zu lanes, %zu per-pixel folds, 1600 px)\n",
                    static_cast<long long>(div), seconds(w0) * 1e3, lanes, folds);
    }
    if (!keep) std::filesystem::remove(path);
    return 0;
}
