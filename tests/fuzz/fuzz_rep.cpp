// The .rep reader on any bytes: open and validate, load every track, level-of-detail queries on
// each lane (and the metric graphs), and every stats report, as `sightline stats` and the viewer
// would.
#include "FuzzSupport.h"
#include "model/analysis/StatsReports.h"
#include "model/core/LodQuery.h"
#include "model/rep/RepReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = sl::fuzz::inputFile(data, size, ".rep");
    sl::fuzz::MemoryCap cap(size);
    sl::ReadOptions o;
    o.threads = 1;
    auto r = sl::readReport(path, o);
    if (!r) return 0;
    const sl::Report& rep = **r;
    std::vector<sl::LodBucket> buckets;
    std::vector<sl::LaneItem> items;
    std::vector<sl::MetricBucket> graph;
    for (const sl::Track& t : rep.tracks) {
        const int64_t t1 = t.tMax < INT64_MAX ? t.tMax + 1 : t.tMax;
        for (uint32_t l = 0; l < t.laneCount(); ++l) {
            sl::queryBuckets(t, l, t.tMin, t1, 64, buckets);
            sl::layoutLane(t, l, t.tMin, t1, 1000.0, 1.0, items);
        }
        sl::queryMetricBuckets(t, t.tMin, t1, 64, graph);
    }
    for (const sl::analysis::ReportInfo& info : sl::analysis::allReports())
        (void)info.run(rep, sl::analysis::StatsOptions{});
    return 0;
}
