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

// Random multi-lane tracks: nested and overlapping ranges, bursts of tiny events packed into a
// few nanoseconds (uneven time buckets), zero-length events and long gaps.
Track randomTrack(uint64_t seed, EventKind kind = EventKind::NvtxRange) {
    std::mt19937_64 rng(seed);
    Track t(TrackKey::forThread(kind, 1, static_cast<uint32_t>(seed)));
    int64_t now = -5000;
    for (int i = 0; i < 6000; ++i) {
        const uint64_t r = rng() % 100;
        int64_t d = static_cast<int64_t>(rng() % 50);                  // mostly tiny
        if (r < 10) d = static_cast<int64_t>(rng() % 100000);           // some wide
        if (r == 11) d = 0;                                             // zero-length
        if (kind == EventKind::NvtxMark) d = 0;
        if (r < 3) now += static_cast<int64_t>(rng() % 2000000);        // long gap
        else if (r < 40) now += static_cast<int64_t>(rng() % 3);        // burst
        else now += static_cast<int64_t>(rng() % 400);
        t.append(now, now + d, 0, nullptr);
    }
    t.finalize();
    return t;
}

// The folding rule of layoutLane written as a plain scan over the lane.
std::vector<LaneItem> bruteLayout(const Track& t, uint32_t lane, int64_t t0, int64_t t1, double nsPerPixel,
                                  double minPixels) {
    std::vector<LaneItem> out;
    const IndexRange r = t.overlapping(lane, t0, t1);
    const int64_t minWidth = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(nsPerPixel * minPixels)));
    const int64_t pixel = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(nsPerPixel)));
    size_t i = r.begin;
    while (i < r.end) {
        if (t.durationAt(i) >= minWidth) {
            out.push_back({i, 1, t.start[i], t.endAt(i), t.durationAt(i)});
            ++i;
            continue;
        }
        LaneItem fold{i, 0, t.start[i], t.endAt(i), t.durationAt(i)};
        size_t j = i + 1;
        for (; j < r.end && t.start[j] < fold.end + pixel && t.durationAt(j) < minWidth; ++j) {
            fold.end = std::max(fold.end, t.endAt(j));
            fold.busyNs += t.durationAt(j);
        }
        fold.count = static_cast<uint32_t>(j - i);
        out.push_back(fold);
        i = j;
    }
    return out;
}

TEST(Lod, RandomLanesMatchBruteForce) {
    for (uint64_t seed : {1u, 2u, 3u, 4u}) {
        const Track t = randomTrack(seed, seed == 4 ? EventKind::NvtxMark : EventKind::NvtxRange);
        if (seed != 4) {
            ASSERT_GE(t.laneCount(), 3u) << "seed " << seed;
        }
        std::mt19937_64 rng(seed * 977);
        std::vector<LodBucket> buckets;
        std::vector<LaneItem> items;
        size_t checkedBuckets = 0, checkedItems = 0;
        for (uint32_t l = 0; l < t.laneCount(); ++l) {
            const IndexRange lr = t.lane(l);
            for (int q = 0; q < 12; ++q) {
                // Windows: the whole track and beyond, and random ones whose edges sit exactly on
                // event starts and ends (the boundary rules) or anywhere.
                int64_t t0 = t.tMin - 1000, t1 = t.tMax + 1000;
                if (q > 0 && !lr.empty()) {
                    const size_t a = lr.begin + rng() % lr.size(), b = lr.begin + rng() % lr.size();
                    t0 = q % 3 == 0 ? t.start[std::min(a, b)] : q % 3 == 1 ? t.endAt(std::min(a, b))
                                                                           : t.start[std::min(a, b)] - 7;
                    t1 = std::max(t.endAt(std::max(a, b)), t0 + 1 + static_cast<int64_t>(rng() % 50));
                }
                const uint32_t n = 1 + static_cast<uint32_t>(rng() % 900);
                for (bool wantLongest : {true, false}) {
                    queryBuckets(t, l, t0, t1, n, buckets, wantLongest);
                    ASSERT_EQ(buckets.size(), n);
                    const double w = static_cast<double>(t1 - t0) / n;
                    for (uint32_t b = 0; b < n; ++b) {
                        const int64_t b0 = t0 + static_cast<int64_t>(std::floor(w * b));
                        const int64_t b1 = b + 1 == n ? t1 : t0 + static_cast<int64_t>(std::floor(w * (b + 1)));
                        const LodBucket ref = b1 > b0 ? bruteBucket(t, l, b0, b1) : LodBucket{};
                        ASSERT_EQ(buckets[b].count, ref.count) << "seed " << seed << " lane " << l << " bucket " << b;
                        ASSERT_EQ(buckets[b].busyNs, ref.busyNs) << "seed " << seed << " lane " << l << " bucket " << b;
                        ASSERT_EQ(buckets[b].longestNs, wantLongest ? ref.longestNs : 0) << "bucket " << b;
                        ++checkedBuckets;
                    }
                }
                for (double nsPerPixel : {0.5, 3.0, 70.0, 4000.0, 1e6}) {
                    layoutLane(t, l, t0, t1, nsPerPixel, 2.0, items);
                    const auto ref = bruteLayout(t, l, t0, t1, nsPerPixel, 2.0);
                    ASSERT_EQ(items.size(), ref.size()) << "seed " << seed << " lane " << l;
                    for (size_t k = 0; k < ref.size(); ++k) {
                        ASSERT_EQ(items[k].first, ref[k].first) << "item " << k;
                        ASSERT_EQ(items[k].count, ref[k].count) << "item " << k;
                        ASSERT_EQ(items[k].start, ref[k].start) << "item " << k;
                        ASSERT_EQ(items[k].end, ref[k].end) << "item " << k;
                        ASSERT_EQ(items[k].busyNs, ref[k].busyNs) << "item " << k;
                    }
                    checkedItems += ref.size();
                }
            }
        }
        EXPECT_GT(checkedBuckets, 10000u);
        EXPECT_GT(checkedItems, 1000u);
    }
}

// Bucket edges exactly on event ends and starts, with zero-length events sitting on edges:
// an event ending at an edge belongs only to the bucket before it.
TEST(Lod, BucketEdgesOnEventBoundaries) {
    const Track t = makeTrack({{0, 10}, {10, 20}, {20, 20}, {25, 30}, {30, 40}, {40, 55}, {55, 55}, {60, 70}});
    ASSERT_EQ(t.laneCount(), 1u);
    std::vector<LodBucket> buckets;
    queryBuckets(t, 0, 0, 80, 8, buckets);
    const uint32_t counts[8] = {1, 1, 2, 1, 1, 2, 1, 0};
    const int64_t busy[8] = {10, 10, 5, 10, 10, 5, 10, 0};
    for (uint32_t b = 0; b < 8; ++b) {
        EXPECT_EQ(buckets[b].count, counts[b]) << "bucket " << b;
        EXPECT_EQ(buckets[b].busyNs, busy[b]) << "bucket " << b;
        const LodBucket ref = bruteBucket(t, 0, b * 10, b * 10 + 10);
        EXPECT_EQ(buckets[b].count, ref.count) << "bucket " << b;
        EXPECT_EQ(buckets[b].longestNs, ref.longestNs) << "bucket " << b;
    }
}

TEST(Lod, RangeSummariesMatchBruteForce) {
    const Track t = randomTrack(9);
    std::mt19937_64 rng(5);
    for (int q = 0; q < 20000; ++q) {
        size_t i = rng() % (t.size() + 1), j = rng() % (t.size() + 1);
        if (q % 4 == 0) j = std::min(t.size(), i + rng() % 40);  // short ranges: partial blocks only
        if (j < i) std::swap(i, j);
        int64_t busy = 0, longest = 0;
        size_t longestAt = i;
        for (size_t k = i; k < j; ++k) {
            busy += t.durationAt(k);
            if (t.durationAt(k) > longest || k == i) { longest = t.durationAt(k); longestAt = k; }
        }
        ASSERT_EQ(t.lod.busy(t, i, j), busy);
        ASSERT_EQ(t.lod.prefixBusy(t, j) - t.lod.prefixBusy(t, i), busy);
        size_t at = SIZE_MAX;
        ASSERT_EQ(t.lod.longest(t, i, j, &at), j > i ? longest : 0);
        if (j > i) {
            ASSERT_EQ(t.durationAt(at), longest);
            ASSERT_EQ(at, longestAt) << "the first of equally long events";
        }
        const int64_t minD = static_cast<int64_t>(rng() % 120000);
        size_t first = j;
        for (size_t k = i; k < j && first == j; ++k)
            if (t.durationAt(k) >= minD) first = k;
        ASSERT_EQ(t.lod.firstLongerThan(t, i, j, minD), first) << i << ".." << j << " >= " << minD;
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
