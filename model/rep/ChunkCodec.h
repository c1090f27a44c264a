#pragma once
// Encoding of one chunk: up to a few tens of thousands of consecutive events of one lane of
// one track, as delta/zigzag/varint columns compressed with zstd (see model/FORMAT.md, "Chunk
// encoding"). Writes version 2; reads versions 1 and 2.
#include <cstdint>
#include <string>
#include <vector>

#include "model/core/Result.h"
#include "model/core/Track.h"

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace sl {

constexpr uint8_t kChunkEncodingVersion = 2;  // what ChunkEncoder writes

struct EncodedChunk {
    std::vector<uint8_t> blob;  // zstd frame
    uint32_t count = 0;
    uint64_t rawBytes = 0;   // size of the decompressed payload
    uint64_t checksum = 0;   // XXH3-64 of blob
    int64_t tMin = 0;        // first start
    int64_t tMax = 0;        // last end
};

class ChunkEncoder {
public:
    // version: kChunkEncodingVersion, or 1 (what format-1 writers wrote: for baselines and
    // compatibility tests).
    explicit ChunkEncoder(int zstdLevel = 1, uint8_t version = kChunkEncodingVersion);
    ~ChunkEncoder();
    ChunkEncoder(const ChunkEncoder&) = delete;
    ChunkEncoder& operator=(const ChunkEncoder&) = delete;

    // Encodes events [begin, end) of `track`, which must be sorted by start. Events of a lane
    // (none overlaps the next) are stored as gaps after the previous end, others as start
    // deltas.
    Status encode(const Track& track, size_t begin, size_t end, EncodedChunk& out);

private:
    ZSTD_CCtx_s* m_ctx;
    int m_level;
    uint8_t m_version;
    std::vector<uint8_t> m_raw;
};

class ChunkDecoder {
public:
    ChunkDecoder();
    ~ChunkDecoder();
    ChunkDecoder(const ChunkDecoder&) = delete;
    ChunkDecoder& operator=(const ChunkDecoder&) = delete;

    // Decodes and appends `count` events to `track` (whose key gives the schema). Validates
    // checksum, sizes, column lengths and ordering; the error says what is wrong.
    // columns: bit c set decodes schema column c; the others are skipped (zeros, no memory).
    // lane: the events must not overlap either (a lane of a report: the reader asks for it);
    // otherwise any events sorted by start (an importer's spooled runs).
    Status decode(const void* blob, size_t blobSize, uint64_t rawBytes, uint32_t count,
                  uint64_t checksum, Track& track, uint64_t columns = ~uint64_t{0},
                  bool lane = false);

private:
    ZSTD_DCtx_s* m_ctx;
    std::vector<uint8_t> m_raw;
    std::vector<int64_t> m_values;  // one column of a chunk, decoded
};

uint64_t chunkChecksum(const void* data, size_t size);

}  // namespace sl
