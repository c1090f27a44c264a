#include <gtest/gtest.h>

#include <random>
#include <unordered_set>

#include "model/core/LodQuery.h"
#include "model/core/ReportBuilder.h"
#include "model/gen/SyntheticGenerator.h"

namespace sl {
namespace {

Track makeTrack(const std::vector<std::pair<int64_t, int64_t>>& ranges) {
    Track t(TrackKey::forThread(EventKind::NvtxRange, 1, 1));
    for (auto [s, e] : ranges) t.append(s, e, 0, nullptr);
    t.finalize();
    return t;
}

TEST(Track, LanesAreNestingDepth) {
    // outer [0,100) > a [10,40) > a1 [15,20) ; b [50,90) > b1 [60,70) > b11 [61,62)
    Track t = makeTrack({{50, 90}, {0, 100}, {10, 40}, {15, 20}, {60, 70}, {61, 62}});
    ASSERT_EQ(t.laneCount(), 4u);
    EXPECT_EQ(t.lane(0).size(), 1u);
    EXPECT_EQ(t.lane(1).size(), 2u);
    EXPECT_EQ(t.lane(2).size(), 2u);
    EXPECT_EQ(t.lane(3).size(), 1u);
    EXPECT_EQ(t.start[t.lane(3).begin], 61);
    EXPECT_EQ(t.tMin, 0);
    EXPECT_EQ(t.tMax, 100);
}

TEST(Track, OverlappingStartEndRangesGetSeparateLanes) {
    Track t = makeTrack({{0, 10}, {5, 15}, {12, 20}});
    ASSERT_EQ(t.laneCount(), 2u);
    for (uint32_t l = 0; l < t.laneCount(); ++l)
        for (size_t i = t.lane(l).begin + 1; i < t.lane(l).end; ++i) EXPECT_GE(t.start[i], t.end[i - 1]);
}

TEST(Track, OverlappingQuery) {
    Track t = makeTrack({{0, 10}, {10, 20}, {20, 30}, {40, 40}});
    EXPECT_EQ(t.overlapping(0, 10, 20).size(), 1u);   // touching ends do not overlap
    EXPECT_EQ(t.overlapping(0, 5, 25).size(), 3u);
    EXPECT_EQ(t.overlapping(0, 40, 41).size(), 1u);   // zero-length event at the window start
    EXPECT_EQ(t.overlapping(0, 31, 40).size(), 0u);
}

// Brute force reference for one bucket.
LodBucket bruteBucket(const Track& t, uint32_t lane, int64_t b0, int64_t b1) {
    LodBucket o;
    IndexRange r = t.lane(lane);
    for (size_t i = r.begin; i < r.end; ++i) {
        bool overlaps = t.endAt(i) > b0 && t.start[i] < b1;
        if (t.start[i] == t.endAt(i)) overlaps = t.start[i] >= b0 && t.start[i] < b1;
        if (!overlaps) continue;
        ++o.count;
        o.busyNs += std::min(t.endAt(i), b1) - std::max(t.start[i], b0);
        o.longestNs = std::max(o.longestNs, t.durationAt(i));
    }
    return o;
}

TEST(Lod, BucketsMatchBruteForce) {
    std::mt19937_64 rng(7);
    Track t(TrackKey::forStream(EventKind::Kernel, 1, 0, 1, 1));
    int64_t now = 0;
    for (int i = 0; i < 20000; ++i) {
        now += static_cast<int64_t>(rng() % 1000);
        int64_t d = static_cast<int64_t>(rng() % 5000);
        if (i % 97 == 0) d = 200000;  // occasional long kernel
        int64_t x[2] = {i, 0};
        t.append(now, now + d, 0, x);
        now += d;
    }
    t.finalize();
    ASSERT_EQ(t.laneCount(), 1u);
    std::vector<LodBucket> buckets;
    for (auto [t0, t1, n] : {std::tuple{t.tMin, t.tMax, 2000u}, std::tuple{t.tMin + 123456, t.tMin + 9876543, 700u},
                             std::tuple{t.tMin - 1000, t.tMax + 1000, 3u}}) {
        queryBuckets(t, 0, t0, t1, n, buckets);
        const double w = static_cast<double>(t1 - t0) / n;
        for (uint32_t b = 0; b < n; ++b) {
            int64_t b0 = t0 + static_cast<int64_t>(std::floor(w * b));
            int64_t b1 = b + 1 == n ? t1 : t0 + static_cast<int64_t>(std::floor(w * (b + 1)));
            LodBucket ref = bruteBucket(t, 0, b0, b1);
            ASSERT_EQ(buckets[b].count, ref.count) << "bucket " << b;
            ASSERT_EQ(buckets[b].busyNs, ref.busyNs) << "bucket " << b;
            ASSERT_EQ(buckets[b].longestNs, ref.longestNs) << "bucket " << b;
        }
    }
}

TEST(Lod, LayoutCoversEveryEventOnce) {
    GeneratorOptions o;
    o.events = 50000;
    auto r = generateReport(o);
    std::vector<LaneItem> items;
    for (const Track& t : r->tracks) {
        if (t.key.kind == EventKind::Metric) continue;
        for (uint32_t l = 0; l < t.laneCount(); ++l) {
            for (double nsPerPixel : {1.0, 1000.0, 1e6}) {
                layoutLane(t, l, t.tMin, t.tMax + 1, nsPerPixel, 3.0, items);
                size_t covered = 0, expectNext = t.overlapping(l, t.tMin, t.tMax + 1).begin;
                for (const auto& it : items) {
                    ASSERT_EQ(it.first, expectNext);
                    expectNext += it.count;
                    covered += it.count;
                    if (it.count == 1) continue;
                    EXPECT_LE(it.busyNs, it.end - it.start);
                }
                EXPECT_EQ(covered, t.lane(l).size());
            }
        }
    }
}

TEST(Lod, MetricBuckets) {
    ReportBuilder b;
    for (int i = 0; i < 1000; ++i) b.add(MetricSample{1, i * 10, static_cast<double>(i % 100)});
    auto r = b.finish();
    const Track& t = r->tracks[0];
    std::vector<MetricBucket> out;
    queryMetricBuckets(t, 0, 10000, 10, out);
    for (const auto& m : out) {
        EXPECT_EQ(m.count, 100u);
        EXPECT_EQ(m.min, 0);
        EXPECT_EQ(m.max, 99);
        EXPECT_DOUBLE_EQ(m.mean, 49.5);
    }
}

TEST(Generator, DeterministicAndRealistic) {
    GeneratorOptions o;
    o.events = 100000;
    GeneratorStats s1, s2;
    auto a = generateReport(o, &s1);
    auto b = generateReport(o, &s2);
    EXPECT_EQ(a->eventCount(), b->eventCount());
    EXPECT_EQ(s1.kernels, s2.kernels);
    EXPECT_NEAR(static_cast<double>(a->eventCount()), 100000.0, 3000.0);
    EXPECT_GT(s1.kernels, 30000u);
    EXPECT_EQ(a->gpus.size(), 2u);
    // Every kernel's correlation id resolves to an API call.
    std::unordered_set<uint32_t> api;
    for (const Track* t : a->tracksOfKind(EventKind::CudaApi))
        for (uint32_t c : t->col<uint32_t>(cols::CudaApi::Correlation)) api.insert(c);
    for (const Track* t : a->tracksOfKind(EventKind::Kernel))
        for (uint32_t c : t->col<uint32_t>(cols::Kernel::Correlation)) ASSERT_TRUE(api.count(c));
    // NVTX ranges nest (train_step > forward > layer).
    const Track* nvtx = a->findTrack(TrackKey::forThread(EventKind::NvtxRange, o.pid, o.pid + 1));
    ASSERT_TRUE(nvtx);
    EXPECT_EQ(nvtx->laneCount(), 3u);
}

}  // namespace
}  // namespace sl
