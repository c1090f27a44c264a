#pragma once
// Level-of-detail summary of a track, so that drawing or summarizing a time range costs
// O(buckets x log n) whatever the number of events.
//
// Events are summarized in blocks of kBlock consecutive indices (lanes are contiguous
// index ranges): a prefix sum of busy time at each block start and a max-tree of the longest
// duration per block (metric tracks: min/max trees and prefix sums of the values). Any index
// range [i, j) then gives its count (j - i), busy time and longest event with at most
// 2 x kBlock scans plus a tree walk. About 2 bytes per event.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sl {

// Busy-time prefix sums wrap around (two's complement) instead of overflowing: a difference of
// two prefixes is exact whenever the busy time it measures fits in int64, which a window of
// one lane always does; only tracks of absurd times (bad input) wrap, without undefined
// behaviour.
inline int64_t wrapAdd(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrapSub(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

class Track;

class TrackLod {
public:
    static constexpr uint32_t kBlock = 16;

    void build(const Track& track);
    void clear();
    size_t memoryBytes() const;

    // Sum of durations of events [i, j) (global indices).
    int64_t busy(const Track& t, size_t i, size_t j) const;
    // Sum of durations of events [0, k): busy(i, j) == prefixBusy(j) - prefixBusy(i). Callers
    // walking a lane left to right reuse one prefix for two neighbouring ranges.
    int64_t prefixBusy(const Track& t, size_t k) const;
    // Longest duration among [i, j); 0 for an empty range. Sets *index to its index.
    int64_t longest(const Track& t, size_t i, size_t j, size_t* index = nullptr) const;
    // First index k in [i, j) with duration >= minDuration, or j.
    size_t firstLongerThan(const Track& t, size_t i, size_t j, int64_t minDuration) const;

    // A time index per lane: the lane's span cut into power-of-two buckets (about one per
    // kEventsPerLaneBucket events), each with the index of its first event by start. Queries
    // start their searches from a bucket instead of binary searching the whole lane, so a view
    // touches memory in time order instead of missing the cache at every step of a search over
    // millions of events. 4 bytes per bucket, about 1 byte per event.
    static constexpr size_t kEventsPerLaneBucket = 4;
    struct LaneBuckets {
        int64_t origin = 0;
        int shift = 0;                  // bucket width is 1 << shift ns
        std::vector<uint32_t> first;    // first[k]: first event (global index) with start >= bucket k's start; size buckets + 1
        size_t bucketOf(int64_t t) const;
    };
    const LaneBuckets& laneBuckets(uint32_t lane) const { return m_lanes[lane]; }

    // Metric tracks: min, max and sum of values over [i, j) (j > i).
    double minValue(const Track& t, size_t i, size_t j) const;
    double maxValue(const Track& t, size_t i, size_t j) const;
    double sumValue(const Track& t, size_t i, size_t j) const;

private:
    int64_t blockRangeMax(size_t bi, size_t bj) const;
    void buildLaneBuckets(const Track& t);

    size_t m_leaves = 0;                  // power of two >= block count
    std::vector<int64_t> m_busyPrefix;    // per block: busy time of all events before it
    std::vector<int64_t> m_maxTree;       // segment tree of per-block longest duration
    std::vector<double> m_minTree;        // metric tracks only
    std::vector<double> m_maxValueTree;   // metric tracks only
    std::vector<double> m_sumPrefix;      // metric tracks only
    std::vector<LaneBuckets> m_lanes;
};

}  // namespace sl
