#pragma once
// Writes a .rep file. Events stream in per track with bounded memory (one pending chunk per
// lane); metadata is written at commit(). The file is built under a temporary name in the
// destination directory and renamed on commit: a crash never leaves a partial report under
// the final name. The SQLite page size follows the report's size (pageSizeFor): chunks are held
// back until kPageSizeDecidedAt bytes of them, or the commit, say how big the report is.
// Single-threaded.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/core/LanePacker.h"
#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/rep/ChunkCodec.h"
#include "model/rep/FormatVersion.h"
#include "model/rep/Sqlite.h"
#include "model/rep/TableIo.h"

namespace sl {

struct WriteOptions {
    int zstdLevel = 1;
    uint32_t chunkEvents = 32768;
    bool overwrite = true;  // replace an existing file at the destination
    // Without overwrite: the name to try next when the destination is taken, at the start or
    // when the finished report is moved in (another capture ended into the same name, a user
    // made the file meanwhile); called with 2, 3, ... Empty: a taken name is an error. The
    // finished file is moved, never written again.
    std::function<std::string(int attempt)> nextName;
    // 1 writes what format-1 writers wrote (64 KiB pages, every table, chunk encoding 1): the
    // baseline of tests/bench measured in the same run, and old files for compatibility tests.
    int formatVersion = kFormatVersion;
};

class RepWriter {
public:
    class TrackStream {
    public:
        const TrackKey& key() const { return m_key; }
        uint64_t count() const { return m_count; }

    private:
        friend class RepWriter;
        TrackKey m_key;
        int64_t m_id = 0;
        LanePacker m_packer;
        std::vector<Track> m_lanes;  // pending events per lane
        std::vector<uint32_t> m_seq;
        uint64_t m_count = 0;
        int64_t m_lastStart = INT64_MIN;
        int64_t m_tMin = INT64_MAX, m_tMax = INT64_MIN;
        bool m_open = true;
    };

    static Result<std::unique_ptr<RepWriter>> create(const std::string& path, const WriteOptions& options = {});
    ~RepWriter();

    // Streaming: events of one track must come in non-decreasing start order.
    TrackStream& beginTrack(const TrackKey& key);
    Status append(TrackStream& stream, int64_t start, int64_t end, uint32_t name, const int64_t* extra);
    Status endTrack(TrackStream& stream);

    // Writes a finalized in-memory track (its lanes as they are).
    Status writeTrack(const Track& track);

    // Writes the metadata of `meta` (everything but its tracks), the track index, and moves
    // the file to its final name.
    Status commit(const Report& meta);
    const std::string& path() const { return m_path; }
    uint64_t bytesWritten() const { return m_blobBytes; }

    // Chunk bytes after which the page size is fixed at the largest (the held-back chunks are
    // then written and later ones go straight to the file).
    static constexpr uint64_t kPageSizeDecidedAt = 8u << 20;
    // The page size for a report of about `bytes`: small pages keep a small report small (every
    // table and index takes at least a page, every chunk wastes half a page on average), large
    // ones read big chunks in fewer calls. 1 KiB .. 16 KiB.
    static uint32_t pageSizeFor(uint64_t bytes);

private:
    struct HeldChunk {
        int64_t trackId;
        uint32_t lane, seq;
        EncodedChunk chunk;
    };

    RepWriter() = default;
    Status flushLane(TrackStream& s, uint32_t lane);
    Status insertChunk(int64_t trackId, uint32_t lane, uint32_t seq, EncodedChunk& c);
    Status writeChunk(int64_t trackId, uint32_t lane, uint32_t seq, const EncodedChunk& c);
    // Sets the page size, creates the chunks table and writes the held-back chunks.
    Status startFile(uint32_t bytesPerPage);
    uint32_t pageSize(uint64_t expectedBytes) const;
    Status writeMetadata(const Report& meta);
    void abandon();

    struct TrackRow {
        TrackKey key;
        int64_t id;
        uint64_t count;
        uint32_t lanes;
        int64_t tMin, tMax;
    };

    std::string m_path;
    std::string m_tmpPath;
    WriteOptions m_options;
    sqlite::Db m_db;
    bool m_started = false;  // page size set, tables created
    std::vector<HeldChunk> m_held;
    uint64_t m_heldBytes = 0;
    std::unique_ptr<repschema::Insert<repschema::kChunks>> m_insertChunk;
    std::unique_ptr<ChunkEncoder> m_encoder;
    EncodedChunk m_chunk;
    std::vector<std::unique_ptr<TrackStream>> m_streams;
    std::vector<TrackRow> m_tracks;
    int64_t m_nextTrackId = 1;
    uint64_t m_chunkCount = 0;
    uint64_t m_eventCount = 0;
    uint64_t m_blobBytes = 0;
    bool m_committed = false;
};

// Convenience: writes a whole in-memory report.
// `writtenTo`: the name the report took (another than `path` with WriteOptions::nextName).
Status writeReport(const Report& report, const std::string& path, const WriteOptions& options = {},
                   std::string* writtenTo = nullptr);

}  // namespace sl
