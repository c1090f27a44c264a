#pragma once
// Holds an import's events as sorted, compressed runs (ChunkCodec chunks, a few bytes per event)
// instead of raw columns, so a streamed import's memory does not grow with the trace. A run is
// the events one spill took from a track, sorted as Track::finalize sorts (start, longer first,
// arrival); at the end each track's runs merge back into one stream in that order, runs that
// follow each other in time chained without a comparison. Single-threaded.
#include <bit>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "model/core/Result.h"
#include "model/core/Track.h"
#include "model/rep/ChunkCodec.h"

namespace sl::import {

struct SpoolPolicy {
    uint32_t chunkEvents = 32768;     // events per encoded chunk of a run
    size_t trackEvents = 65536;       // a track holding this many events is spilled
    size_t bufferedEvents = 1 << 18;  // all tracks are spilled when together they hold more
    size_t mergeFanIn = 16;           // sequences merged at once (more: merged in rounds)
    size_t drainEvery = 65536;        // events added between two looks at the tracks' sizes
};

// Value i of `c` as Track::append takes it: integers as they are, doubles as their bits.
inline int64_t columnBits(const Column& c, size_t i) {
    return c.type() == ColumnType::F64 ? std::bit_cast<int64_t>(c.doubleAt(i)) : c.intAt(i);
}
// Values [begin, end) of `c` so, into out[0, end - begin), with one type dispatch.
void columnBits(const Column& c, size_t begin, size_t end, int64_t* out);

class TrackSpool {
public:
    // Called with a decoded chunk and the events [begin, end) of it that come next.
    using Visit = std::function<Status(const Track& chunk, size_t begin, size_t end)>;

    explicit TrackSpool(const SpoolPolicy& policy = {});
    ~TrackSpool();
    TrackSpool(const TrackSpool&) = delete;
    TrackSpool& operator=(const TrackSpool&) = delete;

    // Moves the events of `t` (in any order) into a new run; `t` is left empty with its key.
    Status spill(Track& t);
    // Spills the tracks that reached policy.trackEvents, or every track when all is set or
    // they hold more than policy.bufferedEvents together.
    Status drain(std::vector<Track>& tracks, bool all);

    const SpoolPolicy& policy() const { return m_policy; }
    std::vector<TrackKey> keys() const;  // in key order
    uint64_t eventCount() const { return m_events; }
    size_t memoryBytes() const { return m_bytes; }

    // Every event of the tracks `sources` (of one kind), in (start, longer first, arrival)
    // order; equal events of different sources come in the order of `sources`. `columns`
    // selects the schema columns decoded, as ChunkDecoder::decode. The chunk handed to `visit`
    // has its source's key.
    Status merge(const std::vector<TrackKey>& sources, uint64_t columns, const Visit& visit);
    // Every event of `key` in storage order (for passes that only count).
    Status scan(const TrackKey& key, uint64_t columns, const Visit& visit);
    // Frees the runs of `key` (once written).
    void release(const TrackKey& key);

private:
    struct Run {
        std::vector<EncodedChunk> chunks;
        int64_t firstStart = 0, firstEnd = 0, lastStart = 0, lastEnd = 0;
    };
    struct Sequence {  // chunks of one source in order, decoded with that source's key
        TrackKey key;
        std::vector<const EncodedChunk*> chunks;
    };
    struct Cursor;
    Status encodeRun(const Track& t, Run& run);
    Status reduce(std::vector<Sequence>& seqs, std::vector<std::vector<Run>>& rounds);
    Status mergeSequences(const std::vector<Sequence>& seqs, uint64_t columns, const Visit& visit);

    SpoolPolicy m_policy;
    std::map<TrackKey, std::vector<Run>> m_runs;
    std::unique_ptr<ChunkEncoder> m_encoder;
    std::unique_ptr<ChunkDecoder> m_decoder;
    uint64_t m_events = 0;
    size_t m_bytes = 0;
};

}  // namespace sl::import
