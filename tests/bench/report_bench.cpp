// Report format benchmark: the size of a small real report (the Kineto sample), then write,
// bytes per event, open + full load, memory, and LOD queries on a generated report. Sizes and
// load times are compared with format 1's layout (64 KiB pages, chunk encoding 1) written from
// the same events in the same run.
// Usage: bench_report [--events N] [--dir DIR] [--keep] [--kineto TRACE] [--pairs N]
// Prints one line per figure; docs/PERFORMANCE.md records them.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/core/LodQuery.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/import/ImportFile.h"
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

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

uint64_t fileSize(const std::string& path) {
    return std::filesystem::file_size(path);
}

WriteOptions formatOne() {
    WriteOptions o;
    o.formatVersion = 1;
    return o;
}

// `sightline import` of a small real trace, in this build's format and in format 1.
int kinetoSample(const std::string& trace, const std::string& dir) {
    const std::string now = dir + "/bench_kineto.rep", old = dir + "/bench_kineto_format1.rep";
    auto a = importFileToReport(trace, now);
    auto b = importFileToReport(trace, old, {}, formatOne());
    if (!a || !b) {
        std::fprintf(stderr, "import of %s failed: %s\n", trace.c_str(),
                     (a ? b.error() : a.error()).c_str());
        return 1;
    }
    std::printf(
        "Kineto sample report   %.3f MB  (format 1 layout, same run: %.3f MB; %llu events)\n",
        fileSize(now) / 1e6, fileSize(old) / 1e6, static_cast<unsigned long long>(a->events));
    std::filesystem::remove(now);
    std::filesystem::remove(old);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    uint64_t events = 10'000'000;
    std::string dir = std::filesystem::temp_directory_path().string();
    bool keep = false, verbose = false;
    std::string kineto = SIGHTLINE_TEST_DATA "/import/kineto_resnet50_legacy_2021.json.gz";
    int pairs = 3;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--events") && i + 1 < argc) events = std::stoull(argv[++i]);
        else if (!std::strcmp(argv[i], "--kineto") && i + 1 < argc)
            kineto = argv[++i];
        else if (!std::strcmp(argv[i], "--pairs") && i + 1 < argc)
            pairs = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
        else if (!std::strcmp(argv[i], "--keep")) keep = true;
        else if (!std::strcmp(argv[i], "--verbose")) verbose = true;
    }
    if (!kineto.empty())
        if (int rc = kinetoSample(kineto, dir); rc) return rc;
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

    // 3b. The same events written the same way in format 1's layout, then full loads of both
    //     files in turn: what the format change saves on disk and costs (or not) in decoding.
    const std::string path1 = path + ".format1.rep";
    t0 = Clock::now();
    if (auto again = generateReportFile(go, path1, formatOne()); !again) {
        std::fprintf(stderr, "generate failed: %s\n", again.error().c_str());
        return 1;
    }
    std::printf("format 1 (same events) %.1f MB  (%.2f bytes/event), generate+write %.3f s\n",
                fileSize(path1) / 1e6,
                static_cast<double>(fileSize(path1)) / static_cast<double>(r.eventCount()),
                seconds(t0));
    std::vector<double> loadNow, loadOld;
    for (int k = 0; k < pairs; ++k)
        for (auto* p : {&path, &path1}) {
            const auto l0 = Clock::now();
            auto again = readReport(*p);
            if (!again) {
                std::fprintf(stderr, "read failed: %s\n", again.error().c_str());
                return 1;
            }
            (p == &path ? loadNow : loadOld).push_back(seconds(l0));
        }
    std::printf("open+load, alternating %.3f s  (format 1 layout: %.3f s; medians of %d)\n",
                median(loadNow), median(loadOld), pairs);
    std::filesystem::remove(path1);

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
