#include "model/rep/RepWriter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "model/rep/FormatVersion.h"
#include "model/rep/MetadataWriter.h"
#include "model/rep/RepSchema.h"
#include "model/util/OutputTarget.h"

namespace sl {

namespace fs = std::filesystem;
using namespace repschema;

namespace {

Status fsyncPath(const std::string& path, bool directory) {
    int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0) return makeError("cannot open '" + path + "': " + std::strerror(errno));
    int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0) return makeError("cannot sync '" + path + "': " + std::strerror(errno));
    return {};
}

std::string sqlError(const char* what, const std::string& detail) { return std::string(what) + ": " + detail; }

}  // namespace

uint32_t RepWriter::pageSizeFor(uint64_t bytes) {
    // About 1/512 of the report: the 23 tables and indexes and the half page each chunk leaves
    // empty stay a few percent of it. 16 KiB pages read 10 M-event reports as fast as 64 KiB
    // ones did (docs/PERFORMANCE.md) and waste a quarter as much per chunk.
    uint32_t page = 1024;
    while (page < 16384 && page * uint64_t{512} < bytes) page *= 2;
    return page;
}

uint32_t RepWriter::pageSize(uint64_t expectedBytes) const {
    return m_options.formatVersion == 1 ? 65536 : pageSizeFor(expectedBytes);
}

Result<std::unique_ptr<RepWriter>> RepWriter::create(const std::string& wanted, const WriteOptions& options) {
    std::unique_ptr<RepWriter> w(new RepWriter());
    w->m_path = wanted;
    w->m_options = options;
    if (options.formatVersion != 1 && options.formatVersion != kFormatVersion)
        return makeError("cannot write report format " + std::to_string(options.formatVersion));
    w->m_encoder = std::make_unique<ChunkEncoder>(
        options.zstdLevel, options.formatVersion == 1 ? 1 : kChunkEncodingVersion);
    std::error_code linkEc;
    // A symbolic link takes the name too, dangling or not.
    for (int attempt = 2; !options.overwrite && fs::exists(fs::symlink_status(w->m_path, linkEc));
         ++attempt) {
        if (!options.nextName || attempt > 1000)
            return makeError("'" + w->m_path +
                             "' already exists (use -f/--force-overwrite to replace it)");
        w->m_path = options.nextName(attempt);
    }
    if (options.overwrite) {
        // Replaced by a rename: through a symbolic link to its file, never over a device.
        auto target = outputTarget(w->m_path);
        if (!target) return makeError(target.error());
        w->m_path = *target;
    }
    const std::string& path = w->m_path;
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return makeError("cannot write '" + path + "': directory '" + dir.string() + "' does not exist");
    w->m_tmpPath = path + ".tmp-" + std::to_string(::getpid());
    fs::remove(w->m_tmpPath, ec);
    // The file is created now (an unwritable destination fails here); its page size is set
    // once the report's size is known (startFile).
    if (Status s = w->m_db.create(w->m_tmpPath); !s)
        return makeError("cannot create '" + w->m_tmpPath + "': " + s.error());
    return w;
}

Status RepWriter::startFile(uint32_t bytesPerPage) {
    // No journal: the temporary file is discarded on failure.
    Status s = m_db.exec("PRAGMA page_size=" + std::to_string(bytesPerPage) +
                         "; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                         "PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY; BEGIN;");
    // Tables added later in format 1 are created only when they get rows (writeRows).
    for (const repschema::TableDef* t : repschema::kTables)
        if (s && (!t->optional || m_options.formatVersion == 1))
            s = m_db.exec(repschema::createTableSql(*t));
    if (!s) return makeError("cannot initialize '" + m_tmpPath + "': " + s.error());
    m_insertChunk = std::make_unique<repschema::Insert<repschema::kChunks>>(m_db);
    if (!m_insertChunk->valid())
        return makeError(sqlError("cannot prepare chunk insert", m_insertChunk->error()));
    m_started = true;
    for (const HeldChunk& h : m_held)
        if (Status st = writeChunk(h.trackId, h.lane, h.seq, h.chunk); !st) return st;
    m_held.clear();
    m_held.shrink_to_fit();
    return {};
}

RepWriter::~RepWriter() {
    if (!m_committed) abandon();
}

void RepWriter::abandon() {
    m_insertChunk.reset();
    m_db.close();
    if (!m_tmpPath.empty()) {
        std::error_code ec;
        fs::remove(m_tmpPath, ec);
    }
}

Status RepWriter::writeChunk(int64_t trackId, uint32_t lane, uint32_t seq, const EncodedChunk& c) {
    auto& ins = *m_insertChunk;
    ins.set("track_id", trackId)
        .set("lane", lane)
        .set("seq", seq)
        .set("t_min", c.tMin)
        .set("t_max", c.tMax);
    ins.set("count", c.count).set("raw_bytes", c.rawBytes).set("checksum", c.checksum);
    ins.setBlob("data", c.blob.data(), c.blob.size());
    if (Status s = ins.insert(); !s)
        return makeError("cannot write chunk to '" + m_tmpPath + "': " + s.error());
    return {};
}

Status RepWriter::insertChunk(int64_t trackId, uint32_t lane, uint32_t seq, EncodedChunk& c) {
    ++m_chunkCount;
    m_eventCount += c.count;
    m_blobBytes += c.blob.size();
    if (m_started) return writeChunk(trackId, lane, seq, c);
    // Held back until the report's size is known; `c` is the caller's scratch, taken over here.
    c.blob.shrink_to_fit();
    m_heldBytes += c.blob.size();
    m_held.push_back({trackId, lane, seq, std::move(c)});
    c = EncodedChunk();
    if (m_heldBytes >= kPageSizeDecidedAt || m_options.formatVersion == 1)
        return startFile(pageSize(m_heldBytes));
    return {};
}

RepWriter::TrackStream& RepWriter::beginTrack(const TrackKey& key) {
    auto s = std::make_unique<TrackStream>();
    s->m_key = key;
    s->m_id = m_nextTrackId++;
    m_streams.push_back(std::move(s));
    return *m_streams.back();
}

Status RepWriter::flushLane(TrackStream& s, uint32_t lane) {
    Track& buf = s.m_lanes[lane];
    if (buf.empty()) return {};
    if (Status st = m_encoder->encode(buf, 0, buf.size(), m_chunk); !st) return st;
    if (Status st = insertChunk(s.m_id, lane, s.m_seq[lane]++, m_chunk); !st) return st;
    buf.start.clear();
    buf.end.clear();
    buf.name.clear();
    for (auto& c : buf.cols) c.clear();
    return {};
}

Status RepWriter::append(TrackStream& s, int64_t start, int64_t end, uint32_t name, const int64_t* extra) {
    if (!s.m_open) return makeError("track already ended");
    if (start < s.m_lastStart) return makeError("events of a track must be appended in start order");
    s.m_lastStart = start;
    const KindSchema& sc = schemaOf(s.m_key.kind);
    if (!sc.hasEnd || end < start) end = start;
    uint32_t lane = s.m_packer.place(start, end);
    if (lane == s.m_lanes.size()) {
        s.m_lanes.emplace_back(s.m_key);
        s.m_seq.push_back(0);
    }
    s.m_lanes[lane].append(start, end, name, extra);
    ++s.m_count;
    s.m_tMin = std::min(s.m_tMin, start);
    s.m_tMax = std::max(s.m_tMax, end);
    if (s.m_lanes[lane].size() >= m_options.chunkEvents) return flushLane(s, lane);
    return {};
}

Status RepWriter::endTrack(TrackStream& s) {
    if (!s.m_open) return {};
    for (uint32_t l = 0; l < s.m_lanes.size(); ++l)
        if (Status st = flushLane(s, l); !st) return st;
    s.m_open = false;
    if (s.m_count > 0)
        m_tracks.push_back({s.m_key, s.m_id, s.m_count, static_cast<uint32_t>(s.m_lanes.size()), s.m_tMin, s.m_tMax});
    s.m_lanes.clear();
    s.m_lanes.shrink_to_fit();
    return {};
}

Status RepWriter::writeTrack(const Track& t) {
    if (t.empty()) return {};
    const int64_t id = m_nextTrackId++;
    for (uint32_t l = 0; l < t.laneCount(); ++l) {
        IndexRange r = t.lane(l);
        uint32_t seq = 0;
        for (size_t b = r.begin; b < r.end; b += m_options.chunkEvents) {
            size_t e = std::min<size_t>(r.end, b + m_options.chunkEvents);
            if (Status st = m_encoder->encode(t, b, e, m_chunk); !st) return st;
            if (Status st = insertChunk(id, l, seq++, m_chunk); !st) return st;
        }
    }
    m_tracks.push_back({t.key, id, t.size(), t.laneCount(), t.tMin, t.tMax});
    return {};
}

namespace {

// Bytes the metadata will take, roughly: with the chunks, what the page size is chosen by.
uint64_t metadataBytes(const Report& m) {
    uint64_t bytes = 4096;
    for (uint32_t i = 1; i < m.strings.size(); ++i) bytes += m.strings.get(i).size() + 4;
    bytes += 40 * (m.kernelLaunches.size() + m.processes.size() + m.threads.size() +
                   m.streams.size() + m.diagnostics.size());
    bytes += 12 * m.stackFrames.size() + 2 * m.backtraces.size();
    for (const auto& c : m.callStacks) bytes += 4 + 4 * c.frames.size();
    for (const auto& o : m.programOutput) bytes += 16 + o.text.size();
    return bytes;
}

}  // namespace

Status RepWriter::writeMetadata(const Report& m) {
    const std::pair<const char*, std::string> meta[] = {
        {"magic", kReportMagic},
        {"format_version", std::to_string(m_options.formatVersion)},
        {"min_reader_version", std::to_string(m_options.formatVersion == 1 ? 1 : kMinReaderVersion)},
        {"writer", "sightline " + m.session.toolVersion},
        {"event_count", std::to_string(m_eventCount)},
        {"chunk_count", std::to_string(m_chunkCount)},
        {"track_count", std::to_string(m_tracks.size())},
        {"string_count", std::to_string(m.strings.size())},
    };
    TableWriter w(m_db, m_tmpPath);
    w.rows<kSightlineMeta>(std::size(meta), [&](Insert<kSightlineMeta>& ins, size_t i) {
        ins.set("key", meta[i].first).set("value", meta[i].second);
    });
    writeMetadataTables(w, m, *m_encoder);
    w.rows<kTracks>(m_tracks.size(), [&](Insert<kTracks>& ins, size_t i) {
        const TrackRow& t = m_tracks[i];
        const TrackKey& k = t.key;
        ins.set("id", t.id).set("kind", static_cast<int64_t>(k.kind)).set("pid", k.pid);
        ins.set("tid", k.tid).set("device", k.device).set("context", k.context);
        ins.set("stream", k.stream).set("domain", k.domain).set("series", k.series);
        ins.set("event_count", t.count).set("lane_count", t.lanes);
        ins.set("t_min", t.tMin).set("t_max", t.tMax);
    });
    return w.status();
}

namespace {
// Renames `from` to `to` only if `to` does not exist, atomically: two captures finishing into
// the same name at once (`-o run%n` under mpirun) both got "written" and one report was lost.
// Where the file system has no RENAME_NOREPLACE, a hard link does the same.
bool moveIntoFreeName(const std::string& from, const std::string& to, std::error_code& ec) {
    ec.clear();
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0)
        return true;
    // EINVAL/ENOSYS: no RENAME_NOREPLACE here (NFS, old kernels); EPERM/EOPNOTSUPP: refused by
    // a seccomp or sandbox filter.
    if (errno == EINVAL || errno == ENOSYS || errno == EPERM || errno == EOPNOTSUPP) {
        if (::link(from.c_str(), to.c_str()) == 0) {
            ::unlink(from.c_str());
            return true;
        }
        // No hard links either (vfat, some FUSE file systems): a check, then a plain rename;
        // the report must not be lost for want of an atomic move.
        if (errno != EEXIST) {
            struct stat st {};
            if (::lstat(to.c_str(), &st) == 0) {
                errno = EEXIST;
            } else if (::rename(from.c_str(), to.c_str()) == 0) {
                return true;
            }
        }
    }
    ec = std::error_code(errno, std::generic_category());
    return false;
}
}  // namespace

Status RepWriter::commit(const Report& meta) {
    if (m_committed) return makeError("report already committed");
    for (auto& s : m_streams)
        if (Status st = endTrack(*s); !st) return st;
    m_streams.clear();
    Status st;
    if (!m_started) st = startFile(pageSize(m_heldBytes + metadataBytes(meta)));
    if (st) st = writeMetadata(meta);
    if (st) st = m_db.exec(createIndexesSql());
    // Written last: a reader refuses a file without it.
    if (st)
        st = TableWriter(m_db, m_tmpPath)
                 .rows<kSightlineMeta>(1, [](Insert<kSightlineMeta>& ins, size_t) {
                     ins.set("key", "complete").set("value", "1");
                 })
                 .status();
    if (st) st = m_db.exec("COMMIT;");
    m_insertChunk.reset();
    m_db.close();
    if (st) st = fsyncPath(m_tmpPath, false);
    if (!st) {
        abandon();
        return st;
    }
    std::error_code ec;
    if (m_options.overwrite) {
        fs::rename(m_tmpPath, m_path, ec);
    } else {
        // Made meanwhile (another capture into the same name, a user's file): never replaced;
        // the next free name, when the caller gave a way to make one.
        for (int attempt = 2; !moveIntoFreeName(m_tmpPath, m_path, ec) &&
                              ec == std::errc::file_exists;
             ++attempt) {
            if (!m_options.nextName || attempt > 1000) {
                abandon();
                return makeError("'" + m_path +
                                 "' already exists (use -f/--force-overwrite to replace it)");
            }
            m_path = m_options.nextName(attempt);
        }
    }
    if (ec) {
        abandon();
        return makeError("cannot move the report to '" + m_path + "': " + ec.message());
    }
    fs::path dir = fs::path(m_path).parent_path();
    (void)fsyncPath(dir.empty() ? "." : dir.string(), true);
    m_committed = true;
    return {};
}

Status writeReport(const Report& report, const std::string& path, const WriteOptions& options,
                   std::string* writtenTo) {
    auto w = RepWriter::create(path, options);
    if (!w) return std::move(w).takeError();
    for (const auto& t : report.tracks)
        if (Status s = (*w)->writeTrack(t); !s) return s;
    Status s = (*w)->commit(report);
    if (writtenTo) *writtenTo = (*w)->path();
    return s;
}

}  // namespace sl
