#include "model/core/LodQuery.h"

#include <algorithm>
#include <cmath>

namespace sl {

namespace {

size_t lowerBound(const std::vector<int64_t>& v, size_t lo, size_t hi, int64_t x) {
    return static_cast<size_t>(std::lower_bound(v.begin() + static_cast<ptrdiff_t>(lo),
                                                v.begin() + static_cast<ptrdiff_t>(hi), x) - v.begin());
}

// The lane's first event with start >= x, clamped to [lo, hi]. The lane's time buckets narrow
// the search to one bucket's events (about 4) instead of a binary search over the whole lane,
// whose first steps miss the cache on multi-million-event columns.
size_t startLowerBound(const Track& t, const TrackLod::LaneBuckets& lb, size_t lo, size_t hi, int64_t x) {
    const size_t k = lb.bucketOf(x);
    const size_t a = std::clamp<size_t>(lb.first[k], lo, hi);
    const size_t b = std::clamp<size_t>(lb.first[k + 1], lo, hi);
    return lowerBound(t.start, a, b, x);
}

// The lane's first event overlapping time x (end > x, or an instant starting at x): the same
// rule as Track::overlapping. It starts in x's time bucket, or is the one event before that
// bucket, which may straddle into it.
size_t firstOverlapping(const Track& t, const TrackLod::LaneBuckets& lb, const IndexRange& r, int64_t x) {
    const std::vector<int64_t>& ends = t.end.empty() ? t.start : t.end;
    const size_t k = lb.bucketOf(x);
    size_t i = lowerBound(ends, lb.first[k] > r.begin ? lb.first[k] - 1 : r.begin, lb.first[k + 1], x);
    while (i < r.end && ends[i] == x && t.start[i] < x) ++i;
    return i;
}

// Wide views visit one spot per pixel in columns of millions of events: every visit misses the
// cache (lane bucket, start, end and busy-prefix lines). The spots are known a few pixels ahead,
// so ask for them early: two stages, first the lane bucket, then (once it has arrived) the
// event lines it points to.
constexpr uint32_t kPrefetchAhead = 8;

void prefetchBucket(const TrackLod::LaneBuckets& lb, int64_t x) {
    __builtin_prefetch(&lb.first[lb.bucketOf(x)]);
}

void prefetchEvents(const Track& t, const TrackLod::LaneBuckets& lb, int64_t x) {
    const size_t i = lb.first[lb.bucketOf(x)];
    if (i >= t.size()) return;
    __builtin_prefetch(&t.start[i]);
    if (!t.end.empty()) __builtin_prefetch(&t.end[i]);
}

}  // namespace

void queryBuckets(const Track& t, uint32_t lane, int64_t t0, int64_t t1, uint32_t count,
                  std::vector<LodBucket>& out, bool wantLongest) {
    out.assign(count, {});
    if (count == 0 || t1 <= t0 || lane >= t.laneCount() || t.lane(lane).empty()) return;
    const IndexRange r = t.lane(lane);
    const TrackLod::LaneBuckets& lb = t.lod.laneBuckets(lane);
    const double width = static_cast<double>(t1 - t0) / count;
    size_t prefixAt = SIZE_MAX;
    int64_t prefix = 0;
    int64_t prevEdge = INT64_MIN;  // b1 of the last bucket searched, prevJ its first start >= b1
    size_t prevJ = 0;
    auto edge = [&](uint32_t b) { return t0 + static_cast<int64_t>(std::floor(width * b)); };
    for (uint32_t b = 0; b < count; ++b) {
        const int64_t b0 = t0 + static_cast<int64_t>(std::floor(width * b));
        const int64_t b1 = (b + 1 == count) ? t1 : t0 + static_cast<int64_t>(std::floor(width * (b + 1)));
        if (b + kPrefetchAhead < count) prefetchBucket(lb, edge(b + kPrefetchAhead));
        if (b + kPrefetchAhead / 2 < count) prefetchEvents(t, lb, edge(b + kPrefetchAhead / 2));
        if (b1 <= b0) continue;
        // The previous bucket's end search already found the first event starting at or after
        // b0: the first overlapping one is it or, if it straddles b0, the event before it.
        size_t i;
        if (prevEdge == b0) {
            i = prevJ > r.begin && t.endAt(prevJ - 1) > b0 ? prevJ - 1 : prevJ;
        } else {
            i = firstOverlapping(t, lb, r, b0);
        }
        const size_t j = startLowerBound(t, lb, i, r.end, b1);
        prevEdge = b1;
        prevJ = j;
        if (j <= i) continue;
        LodBucket& o = out[b];
        o.count = static_cast<uint32_t>(j - i);
        // Neighbouring buckets share a boundary index (j of one is i or i + 1 of the next): keep
        // the last prefix sum instead of scanning its block again.
        if (i + 1 == prefixAt) {
            prefix = wrapSub(prefix, t.durationAt(i));  // the previous bucket's last event straddles into this one
            prefixAt = i;
        } else if (i != prefixAt) {
            prefix = t.lod.prefixBusy(t, prefixAt = i);
        }
        const int64_t busyI = prefix;
        prefix = t.lod.prefixBusy(t, prefixAt = j);
        int64_t busy = wrapSub(prefix, busyI);
        // Clip the first and last events to the bucket.
        if (t.start[i] < b0) busy = wrapSub(busy, std::min(b0, t.endAt(i)) - t.start[i]);
        const size_t last = j - 1;
        if (t.endAt(last) > b1) busy = wrapSub(busy, t.endAt(last) - std::max(b1, t.start[last]));
        o.busyNs = std::max<int64_t>(busy, 0);
        if (wantLongest) o.longestNs = t.lod.longest(t, i, j);
    }
}

void layoutLane(const Track& t, uint32_t lane, int64_t t0, int64_t t1, double nsPerPixel, double minPixels,
                std::vector<LaneItem>& out) {
    out.clear();
    if (lane >= t.laneCount() || t1 <= t0 || nsPerPixel <= 0) return;
    const IndexRange whole = t.lane(lane);
    if (whole.empty()) return;
    const TrackLod::LaneBuckets& lb = t.lod.laneBuckets(lane);
    // Same range as t.overlapping(lane, t0, t1), found through the lane's time buckets.
    IndexRange r{firstOverlapping(t, lb, whole, t0), 0};
    r.end = std::max(r.begin, startLowerBound(t, lb, whole.begin, whole.end, t1));
    const int64_t minWidth = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(nsPerPixel * minPixels)));
    const int64_t pixel = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(nsPerPixel)));
    size_t i = r.begin;
    while (i < r.end) {
        if (t.durationAt(i) >= minWidth) {
            out.push_back({i, 1, t.start[i], t.endAt(i), t.durationAt(i)});
            ++i;
            continue;
        }
        // Fold narrow events: extend while the next event starts within a pixel of the fold's
        // end and is itself narrow. Each step jumps to the first event starting a pixel past the
        // current end (a search inside one time bucket), so a fold costs O(1) per pixel covered
        // for evenly spread events.
        LaneItem fold{i, 0, t.start[i], t.endAt(i), 0};
        size_t j = i + 1;
        while (j < r.end) {
            const int64_t reach = fold.end + pixel;
            // The fold usually advances a pixel per step: ask for the lines of steps ahead.
            prefetchBucket(lb, reach + static_cast<int64_t>(kPrefetchAhead) * pixel);
            prefetchEvents(t, lb, reach + static_cast<int64_t>(kPrefetchAhead / 2) * pixel);
            const size_t k = startLowerBound(t, lb, j, r.end, reach);
            if (k == j) break;  // gap of more than a pixel
            size_t wide = t.lod.firstLongerThan(t, j, k, minWidth);
            if (wide < k) {
                if (wide > j) fold.end = std::max(fold.end, t.endAt(wide - 1));
                j = wide;
                break;
            }
            fold.end = std::max(fold.end, t.endAt(k - 1));
            j = k;
        }
        fold.count = static_cast<uint32_t>(j - i);
        fold.busyNs = t.lod.busy(t, i, j);
        if (fold.count == 1) fold.busyNs = t.durationAt(i);
        out.push_back(fold);
        i = j;
    }
}

void queryMetricBuckets(const Track& t, int64_t t0, int64_t t1, uint32_t count, std::vector<MetricBucket>& out) {
    out.assign(count, {});
    if (count == 0 || t1 <= t0 || t.empty() || t.cols.empty() || t.key.kind != EventKind::Metric) return;
    const auto& v = t.col<double>(0);
    const double width = static_cast<double>(t1 - t0) / count;
    for (uint32_t b = 0; b < count; ++b) {
        const int64_t b0 = t0 + static_cast<int64_t>(std::floor(width * b));
        const int64_t b1 = (b + 1 == count) ? t1 : t0 + static_cast<int64_t>(std::floor(width * (b + 1)));
        const size_t i = static_cast<size_t>(std::lower_bound(t.start.begin(), t.start.end(), b0) - t.start.begin());
        const size_t j = static_cast<size_t>(std::lower_bound(t.start.begin(), t.start.end(), b1) - t.start.begin());
        MetricBucket& o = out[b];
        if (j > 0) o.last = v[j - 1];
        if (j <= i) {
            o.min = o.max = o.mean = o.last;
            continue;
        }
        o.count = static_cast<uint32_t>(j - i);
        o.min = t.lod.minValue(t, i, j);
        o.max = t.lod.maxValue(t, i, j);
        o.mean = t.lod.sumValue(t, i, j) / static_cast<double>(j - i);
    }
}

}  // namespace sl
