#include "model/core/LodQuery.h"

#include <algorithm>
#include <cmath>

namespace sl {

namespace {

size_t lowerBound(const std::vector<int64_t>& v, size_t lo, size_t hi, int64_t x) {
    return static_cast<size_t>(std::lower_bound(v.begin() + static_cast<ptrdiff_t>(lo),
                                                v.begin() + static_cast<ptrdiff_t>(hi), x) - v.begin());
}

}  // namespace

void queryBuckets(const Track& t, uint32_t lane, int64_t t0, int64_t t1, uint32_t count,
                  std::vector<LodBucket>& out) {
    out.assign(count, {});
    if (count == 0 || t1 <= t0 || lane >= t.laneCount() || t.lane(lane).empty()) return;
    const IndexRange r = t.lane(lane);
    const TrackLod::LaneBuckets& lb = t.lod.laneBuckets(lane);
    const std::vector<int64_t>& ends = t.end.empty() ? t.start : t.end;
    const double width = static_cast<double>(t1 - t0) / count;
    for (uint32_t b = 0; b < count; ++b) {
        const int64_t b0 = t0 + static_cast<int64_t>(std::floor(width * b));
        const int64_t b1 = (b + 1 == count) ? t1 : t0 + static_cast<int64_t>(std::floor(width * (b + 1)));
        if (b1 <= b0) continue;
        // First event overlapping b0 (same rule as Track::overlapping): it starts in b0's time
        // bucket, or is the one event before that bucket which may straddle into it.
        const size_t ka = lb.bucketOf(b0);
        size_t i = lowerBound(ends, lb.first[ka] > r.begin ? lb.first[ka] - 1 : r.begin, lb.first[ka + 1], b0);
        while (i < r.end && ends[i] == b0 && t.start[i] < b0) ++i;
        const size_t kb = lb.bucketOf(b1);
        const size_t j = lowerBound(t.start, std::max<size_t>(lb.first[kb], i), std::max<size_t>(lb.first[kb + 1], i), b1);
        if (j <= i) continue;
        LodBucket& o = out[b];
        o.count = static_cast<uint32_t>(j - i);
        int64_t busy = t.lod.busy(t, i, j);
        // Clip the first and last events to the bucket.
        if (t.start[i] < b0) busy -= std::min(b0, t.endAt(i)) - t.start[i];
        const size_t last = j - 1;
        if (t.endAt(last) > b1) busy -= t.endAt(last) - std::max(b1, t.start[last]);
        o.busyNs = std::max<int64_t>(busy, 0);
        o.longestNs = t.lod.longest(t, i, j);  // TrackLod::longest(..., &index) locates it on demand
    }
}

void layoutLane(const Track& t, uint32_t lane, int64_t t0, int64_t t1, double nsPerPixel, double minPixels,
                std::vector<LaneItem>& out) {
    out.clear();
    if (lane >= t.laneCount() || t1 <= t0 || nsPerPixel <= 0) return;
    IndexRange r = t.overlapping(lane, t0, t1);
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
        // end and is itself narrow. Each step jumps with a binary search to the first event
        // starting a pixel past the current end, so a fold costs O(log n) per pixel covered.
        LaneItem fold{i, 0, t.start[i], t.endAt(i), 0};
        size_t j = i + 1;
        while (j < r.end) {
            const int64_t reach = fold.end + pixel;
            auto sb = t.start.begin() + static_cast<ptrdiff_t>(j);
            auto se = t.start.begin() + static_cast<ptrdiff_t>(r.end);
            size_t k = static_cast<size_t>(std::lower_bound(sb, se, reach) - t.start.begin());
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
    const auto& v = t.cols[0].get<double>();
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
