#pragma once
// Answers "what does this lane look like at this zoom" from a track's LOD summary, in
// O(output x log n): the timeline's draw lists and the LOD benchmark use these.
#include <cstdint>
#include <vector>

#include "model/core/Track.h"

namespace sl {

// One of `count` equal buckets spanning [t0, t1).
struct LodBucket {
    uint32_t count = 0;     // events overlapping the bucket
    int64_t busyNs = 0;     // busy time inside the bucket (clipped)
    int64_t longestNs = 0;  // the longest overlapping event (unclipped)
};

// Without `wantLongest`, longestNs stays 0 and each bucket skips a tree walk (the timeline
// draws a fold in one color and needs only counts and busy time).
void queryBuckets(const Track& track, uint32_t lane, int64_t t0, int64_t t1, uint32_t count,
                  std::vector<LodBucket>& out, bool wantLongest = true);

// An item to draw in a lane: a single event (count == 1 and first is its index) or a fold of
// `count` consecutive events too narrow to draw one by one ("N events").
struct LaneItem {
    size_t first = 0;
    uint32_t count = 0;
    int64_t start = 0;
    int64_t end = 0;
    int64_t busyNs = 0;  // for folds: how much of [start, end) is covered by events
};

// Events at least `minPixels` wide at `nsPerPixel` are emitted alone; runs of narrower ones
// whose gaps are below one pixel fold into one item.
void layoutLane(const Track& track, uint32_t lane, int64_t t0, int64_t t1, double nsPerPixel,
                double minPixels, std::vector<LaneItem>& out);

struct MetricBucket {
    uint32_t count = 0;
    double min = 0, max = 0, mean = 0, last = 0;
};
// For metric tracks: per bucket min/max/mean of the samples inside, `last` is the latest sample
// at or before the bucket's end (a step graph carries it over empty buckets).
void queryMetricBuckets(const Track& track, int64_t t0, int64_t t1, uint32_t count,
                        std::vector<MetricBucket>& out);

}  // namespace sl
