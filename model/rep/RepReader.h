#pragma once
// Opens .rep files read-only and validates them: magic, format version, table contents, chunk
// checksums, sizes and ordering. A damaged file gives an error naming the table or chunk at
// fault, never a crash.
#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/rep/Sqlite.h"

namespace sl {

struct ReadOptions {
    // Called with the fraction done; return false to cancel (the read then fails with
    // "cancelled").
    std::function<bool(double)> progress;
    unsigned threads = 0;  // 0: one per core
    // Only the tracks this accepts are loaded (null: all); the others stay in the report with
    // their keys and no events. For reads that need some kinds only (analyze's rules).
    std::function<bool(const TrackKey&)> wantTrack;
    // The timeline's level-of-detail index of each track; tools that do not draw skip it.
    bool levelOfDetail = true;

    // Which schema columns of each kind are decoded besides start, end and name (bit c:
    // KindSchema::columns[c]); the others read as zeros and take no memory (a per-name summary
    // needs no correlation ids). Every column unless narrowed.
    uint64_t columnsOf(EventKind k) const { return m_columns[static_cast<uint8_t>(k) % kSlots]; }
    // Of `kind`, only these columns.
    void onlyColumns(EventKind kind, std::initializer_list<uint8_t> columns) {
        uint64_t mask = 0;
        for (uint8_t c : columns) mask |= uint64_t{1} << c;
        m_columns[static_cast<uint8_t>(kind) % kSlots] = mask;
    }
    // Of these kinds, start, end and name only.
    void bare(KindSet kinds) {
        for (EventKind k : kAllEventKinds)
            if (kinds.has(k)) onlyColumns(k, {});
    }

private:
    static constexpr size_t kSlots = 32;  // more than the kinds' ids
    std::array<uint64_t, kSlots> m_columns = [] {
        std::array<uint64_t, kSlots> all;
        all.fill(~uint64_t{0});
        return all;
    }();
};

// Metadata of one track as stored in the file (events not loaded).
struct TrackInfo {
    int64_t id = 0;
    TrackKey key;
    uint64_t eventCount = 0;
    uint32_t laneCount = 0;
    int64_t tMin = 0, tMax = 0;
};

class RepFile {
public:
    static Result<std::unique_ptr<RepFile>> open(const std::string& path);

    const std::string& path() const { return m_path; }
    int formatVersion() const { return m_formatVersion; }
    // The report's metadata with no tracks loaded.
    const Report& metadata() const { return *m_meta; }
    const std::vector<TrackInfo>& trackInfos() const { return m_tracks; }
    // Loads one track; with a window, only the chunks overlapping [t0, t1) are decoded.
    // columns: the schema columns decoded besides start, end and name (ReadOptions::columnsOf).
    Result<Track> readTrack(size_t index, int64_t t0 = INT64_MIN, int64_t t1 = INT64_MAX,
                            bool levelOfDetail = true, uint64_t columns = ~uint64_t{0}) const;
    // Decodes track `index` chunk by chunk, checked as readTrack checks it, handing each chunk's
    // events (a Track of that chunk alone, in lane then time order; its memory is reused for the
    // next) to `chunk`, which may stop the scan with an error. For queries that fold events as
    // they go (per-name summaries): no memory the size of the track, no level of detail.
    Status scanTrack(size_t index, uint64_t columns, const std::function<Status(const Track&)>& chunk) const;
    // Moves the metadata out (the RepFile keeps answering readTrack).
    std::shared_ptr<Report> takeMetadata();
    // Another read-only connection to the same file for reading tracks on another thread. It
    // reuses this file's validated track index and reference counts instead of reading the
    // metadata again (which for imports with millions of strings costs as much as a track).
    Result<std::unique_ptr<RepFile>> openAnother() const;

private:
    RepFile() = default;
    Status readMetadata();
    // The chunk loop of readTrack (appending to `t`) and scanTrack (each chunk alone in `t`,
    // then `onChunk`).
    Status walkChunks(size_t index, int64_t t0, int64_t t1, uint64_t columns, Track& t,
                      const std::function<Status(const Track&)>* onChunk) const;

    std::string m_path;
    sqlite::Db m_db;
    int m_formatVersion = 0;
    std::shared_ptr<Report> m_meta;
    std::vector<TrackInfo> m_tracks;
    std::string m_chunkSelect;  // "SELECT <chunks' columns> FROM chunks WHERE track_id = ?"
    // Sizes of the tables events refer to, for validating the references of loaded tracks.
    struct RefCounts {
        size_t strings = 0, launches = 0, stacks = 0;
    } m_refs;
};

// Opens and fully loads a report (tracks decoded in parallel).
Result<std::shared_ptr<Report>> readReport(const std::string& path, const ReadOptions& options = {});

// A quick look at a file's content: "rep", "sqlite" (another SQLite database), "json",
// "gzip" or "" (unknown or unreadable).
std::string sniffFileType(const std::string& path);

}  // namespace sl
