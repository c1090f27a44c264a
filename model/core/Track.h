#pragma once
// The events of one track, as sorted struct-of-arrays columns.
//
// Invariant (after finalize()): events are grouped into lanes, lane l holding indices
// [laneOffsets[l], laneOffsets[l+1]). Within a lane events are sorted by start and do not
// overlap, so both start and end are sorted there and any time window is two binary
// searches. Lanes come from first-fit packing in start order: for properly nested ranges
// (NVTX push/pop, nested API calls) the lane of an event is exactly its nesting depth.
#include <cstdint>
#include <vector>

#include "model/core/Column.h"
#include "model/core/Lod.h"
#include "model/core/TrackKey.h"

namespace sl {

// Event times lie within +-kMaxEventTime ns of the clock's zero (146 years either way: any real
// monotonic or epoch clock), so that a duration, end - start, never overflows. finalize() holds
// every track to it and the .rep reader refuses chunks outside it (bad input, issue #24).
constexpr int64_t kMaxEventTime = (int64_t{1} << 62) - 1;  // end - start <= 2^63 - 2

struct IndexRange {
    size_t begin = 0;
    size_t end = 0;
    size_t size() const { return end - begin; }
    bool empty() const { return begin >= end; }
};

class Track {
public:
    Track() = default;
    explicit Track(const TrackKey& key);

    TrackKey key;
    std::vector<int64_t> start;
    std::vector<int64_t> end;    // empty for kinds without an end (instants)
    std::vector<uint32_t> name;  // string ids; empty for kinds without a name
    std::vector<Column> cols;    // the kind's schema columns, in order
    std::vector<uint32_t> laneOffsets{0, 0};
    TrackLod lod;
    int64_t tMin = 0;  // earliest start
    int64_t tMax = 0;  // latest end

    const KindSchema& schema() const { return schemaOf(key.kind); }
    size_t size() const { return start.size(); }
    bool empty() const { return start.empty(); }
    uint32_t laneCount() const { return static_cast<uint32_t>(laneOffsets.size() - 1); }
    IndexRange lane(uint32_t l) const { return {laneOffsets[l], laneOffsets[l + 1]}; }
    uint32_t laneOf(size_t index) const;

    int64_t endAt(size_t i) const { return end.empty() ? start[i] : end[i]; }
    int64_t durationAt(size_t i) const { return end.empty() ? 0 : end[i] - start[i]; }
    uint32_t nameAt(size_t i) const { return name.empty() ? 0 : name[i]; }
    template <class T>
    ColumnView<T> col(int index) const { return cols[static_cast<size_t>(index)].view<T>(); }
    int64_t intAt(int column, size_t i) const { return cols[static_cast<size_t>(column)].intAt(i); }

    // Events of a lane that overlap [t0, t1): end > t0 and start < t1. Instants (and
    // zero-length events) count when t0 <= start < t1.
    IndexRange overlapping(uint32_t lane, int64_t t0, int64_t t1) const;

    // Appends one event at the end (unsorted; call finalize() before queries). `extra`
    // holds one integer per schema column (F64 columns take the double's bits).
    void append(int64_t s, int64_t e, uint32_t n, const int64_t* extra);
    // Sorts, packs lanes, computes tMin/tMax and the level-of-detail summary.
    void finalize();
    // finalize()'s first step alone: times held to the model's range, events ordered by start,
    // longer first on ties, then in arrival order (runs sorted now and packed into lanes later).
    void sortByStart();
    // For data that is already lane-ordered (the reader): computes tMin/tMax and the LOD.
    void finishLoaded(bool levelOfDetail = true);
    size_t memoryBytes() const;

private:
    // Clamps the times and returns the order by start (empty when already in it).
    std::vector<uint32_t> startOrder();
    void permute(const std::vector<uint32_t>& order);
};

}  // namespace sl
