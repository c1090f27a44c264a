#include "model/rep/RepReader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "model/core/HugePages.h"
#include "model/rep/ChunkCodec.h"
#include "model/rep/FormatVersion.h"
#include "model/rep/MetadataReader.h"
#include "model/rep/TableIo.h"
#include "model/util/ThreadPool.h"

namespace sl {

namespace fs = std::filesystem;
using namespace repschema;

namespace {

std::string quoted(const std::string& p) { return "'" + p + "'"; }

}  // namespace

std::string sniffFileType(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "";
    char head[64] = {};
    in.read(head, sizeof head);
    const auto n = static_cast<size_t>(in.gcount());
    if (n >= 16 && std::memcmp(head, "SQLite format 3\0", 16) == 0) {
        sqlite::Db db;
        if (db.openReadOnly(path) && db.hasTable("sightline_meta")) return "rep";
        return "sqlite";
    }
    if (n >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b) return "gzip";
    for (size_t i = 0; i < n; ++i) {
        char c = head[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '{' || c == '[') return "json";
        break;
    }
    return "";
}

Result<std::unique_ptr<RepFile>> RepFile::open(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return makeError("cannot open " + quoted(path) + ": no such file");
    if (fs::is_directory(path, ec)) return makeError("cannot open " + quoted(path) + ": it is a directory");
    const auto size = fs::file_size(path, ec);
    if (ec) return makeError("cannot open " + quoted(path) + ": " + ec.message());
    if (size == 0) return makeError(quoted(path) + " is empty (0 bytes): not a Sightline report");
    {
        std::ifstream in(path, std::ios::binary);
        if (!in) return makeError("cannot read " + quoted(path) + ": permission denied or unreadable");
        unsigned char head[100] = {};
        in.read(reinterpret_cast<char*>(head), sizeof head);
        if (in.gcount() < 16 || std::memcmp(head, "SQLite format 3\0", 16) != 0)
            return makeError(quoted(path) + " is not a Sightline report (not an SQLite database)");
        // A copy or download cut short: SQLite opens it and answers from the pages it has,
        // so `info` printed a normal summary. The header's page count (valid when its
        // version-valid-for number matches the change counter) says how long it was.
        auto be32 = [&](int at) {
            return uint32_t{head[at]} << 24 | uint32_t{head[at + 1]} << 16 |
                   uint32_t{head[at + 2]} << 8 | uint32_t{head[at + 3]};
        };
        const uint32_t pageSize = head[16] == 0 && head[17] == 1 ? 65536u : (uint32_t{head[16]} << 8 | head[17]);
        const uint64_t expected = uint64_t{be32(28)} * pageSize;
        if (in.gcount() == 100 && be32(92) == be32(24) && expected > size)
            return makeError(quoted(path) + " is truncated: " + std::to_string(size) + " of its " +
                             std::to_string(expected) +
                             " bytes (a copy or download cut short?): not readable as a report");
    }
    std::unique_ptr<RepFile> f(new RepFile());
    f->m_path = path;
    if (Status s = f->m_db.openReadOnly(path); !s) return makeError("cannot open " + quoted(path) + ": " + s.error());
    if (Status s = f->readMetadata(); !s) return makeError(quoted(path) + ": " + s.error());
    return f;
}

Status RepFile::readMetadata() {
    if (!m_db.hasTable("sightline_meta")) {
        if (m_db.hasTable("StringIds") || m_db.hasTable("TARGET_INFO_SESSION_START_TIME") ||
            m_db.hasTable("CUPTI_ACTIVITY_KIND_KERNEL"))
            return makeError("this is an nsys SQLite export, not a Sightline report: convert it with 'sightline import'");
        sqlite::Stmt probe(m_db, "SELECT count(*) FROM sqlite_master");
        if (!probe.valid() || !probe.step()) return makeError("the SQLite database is corrupt: " + probe.error());
        return makeError("not a Sightline report (no 'sightline_meta' table)");
    }
    std::string magic, complete;
    int minReader = 0;
    Status s = forEachRow<kSightlineMeta>(m_db, "", [&](const Row<kSightlineMeta>& row) -> Status {
        const std::string_view key = row.text("key");
        const std::string value(row.text("value"));
        if (key == "magic")
            magic = value;
        else if (key == "format_version")
            m_formatVersion = std::atoi(value.c_str());
        else if (key == "min_reader_version")
            minReader = std::atoi(value.c_str());
        else if (key == "complete")
            complete = value;
        return {};
    });
    if (!s) return s;
    if (magic != kReportMagic) return makeError("not a Sightline report (bad magic '" + magic + "')");
    if (minReader > kFormatVersion)
        return makeError("written in report format " + std::to_string(m_formatVersion) +
                         ", which needs a newer Sightline (this build reads format " + std::to_string(kFormatVersion) +
                         " and older)");
    if (complete != "1") return makeError("the report is incomplete (the writer did not finish)");

    m_meta = std::make_shared<Report>();
    Report& r = *m_meta;
    s = readMetadataTables(m_db, r);
    if (s)
        s = forEachRow<kTracks>(m_db, "ORDER BY id", [&](const Row<kTracks>& row) -> Status {
            const int64_t rawKind = row.i64("kind");
            if (!findSchema(static_cast<uint8_t>(rawKind)) || rawKind > 255) {
                // A newer writer's kind: skipped, and said so.
                bool found = false;
                for (auto& d : r.diagnostics)
                    if (d.name == "report.unknown_track_kinds") {
                        ++d.count;
                        found = true;
                    }
                if (!found)
                    r.diagnostics.push_back(
                        {"report.unknown_track_kinds", 1,
                         "tracks of event kinds this Sightline version does not know were skipped",
                         0});
                return {};
            }
            TrackInfo t;
            t.id = row.i64("id");
            t.key.kind = static_cast<EventKind>(rawKind);
            t.key.pid = row.i64("pid");
            t.key.tid = row.i64("tid");
            t.key.device = static_cast<int32_t>(row.i64("device"));
            t.key.context = static_cast<uint32_t>(row.i64("context"));
            t.key.stream = static_cast<uint32_t>(row.i64("stream"));
            t.key.domain = static_cast<uint32_t>(row.i64("domain"));
            t.key.series = static_cast<uint32_t>(row.i64("series"));
            const int64_t events = row.i64("event_count"), lanes = row.i64("lane_count");
            if (events < 0 || lanes < 1 || lanes > (1 << 24))
                return makeError("track " + std::to_string(t.id) +
                                 " has an invalid event or lane count");
            t.eventCount = static_cast<uint64_t>(events);
            t.laneCount = static_cast<uint32_t>(lanes);
            t.tMin = row.i64("t_min");
            t.tMax = row.i64("t_max");
            m_tracks.push_back(t);
            return {};
        });
    if (s) {
        auto chunks = selectFromFile(m_db, kChunks, "WHERE track_id = ?");
        if (!chunks) return makeError("table 'chunks': " + chunks.error());
        m_chunkSelect = std::move(chunks.value());
    }
    if (!s) return s;
    // Tracks exist in the metadata with their keys but no events until readTrack().
    r.tracks.reserve(m_tracks.size());
    for (const auto& t : m_tracks) r.tracks.emplace_back(t.key);
    m_refs = {r.strings.size(), r.kernelLaunches.size(), r.callStacks.size()};
    return {};
}

Status RepFile::walkChunks(size_t index, int64_t t0, int64_t t1, uint64_t columns, Track& t,
                           const std::function<Status(const Track&)>* onChunk) const {
    const TrackInfo& info = m_tracks[index];
    const bool windowed = t0 != INT64_MIN || t1 != INT64_MAX;
    std::string where = "track " + std::to_string(info.id) + " (" + std::string(schemaOf(info.key.kind).label) + ")";
    std::string sql = m_chunkSelect;
    if (windowed) sql += " AND t_max >= ? AND t_min < ?";
    sql += " ORDER BY lane, seq";
    sqlite::Stmt st(m_db, sql);
    const Row<kChunks> row(st);
    if (!st.valid()) return makeError(m_path + ": table 'chunks': " + st.prepareError());
    st.bind(1, info.id);
    if (windowed) st.bind(2, t0).bind(3, t1);
    ChunkDecoder decoder;
    std::vector<uint32_t> laneEnds(info.laneCount, 0);
    int64_t expectLane = 0, expectSeq = 0;
    uint64_t total = 0;
    int64_t laneEnd = 0;     // end of the lane's last event so far
    bool laneStarted = false;  // the lane has events before this chunk
    const bool launches = info.key.kind == EventKind::Kernel && (columns >> cols::Kernel::Launch & 1);
    const bool stacks = info.key.kind == EventKind::CpuSample && (columns >> cols::CpuSample::Stack & 1);
    while (st.step()) {
        const int64_t lane = row.i64("lane"), seq = row.i64("seq"), count = row.i64("count");
        std::string chunkName = "chunk " + std::to_string(seq) + " of lane " + std::to_string(lane) + " of " + where;
        if (lane < 0 || lane >= info.laneCount) return makeError(m_path + ": " + chunkName + ": lane out of range");
        if (lane < expectLane) return makeError(m_path + ": " + chunkName + ": out of order");
        if (lane != expectLane) {
            for (int64_t l = expectLane; l < lane; ++l) laneEnds[static_cast<size_t>(l)] = static_cast<uint32_t>(total);
            expectLane = lane;
            expectSeq = 0;
            laneStarted = false;
        }
        if (!windowed && seq != expectSeq) return makeError(m_path + ": " + chunkName + ": missing chunk " + std::to_string(expectSeq));
        expectSeq = seq + 1;
        if (count <= 0 || count > (1 << 24)) return makeError(m_path + ": " + chunkName + ": invalid event count");
        std::string_view blob = row.blob("data");
        if (onChunk) {  // each chunk alone: the same memory serves every chunk
            t.start.clear();
            t.end.clear();
            t.name.clear();
            for (auto& c : t.cols) c.clear();
        }
        const size_t before = t.size();
        Status ds = decoder.decode(
            blob.data(), blob.size(), static_cast<uint64_t>(row.i64("raw_bytes")),
            static_cast<uint32_t>(count), static_cast<uint64_t>(row.i64("checksum")), t, columns,
            /*lane=*/true);
        if (!ds) return makeError(m_path + ": " + chunkName + ": " + ds.error());
        // Lanes must stay sorted and non-overlapping across chunk boundaries too.
        if (laneStarted && t.start[before] < laneEnd)
            return makeError(m_path + ": " + chunkName + ": overlaps the previous chunk");
        laneEnd = t.endAt(t.size() - 1);
        laneStarted = true;
        if (!windowed && (t.start[before] != row.i64("t_min") || laneEnd != row.i64("t_max")))
            return makeError(m_path + ": " + chunkName + ": time range does not match the index");
        total += static_cast<uint64_t>(count);
        if (total > info.eventCount) return makeError(m_path + ": " + where + ": more events than the index says");
        // References into the string, launch and stack tables must resolve (columns not
        // loaded hold none).
        for (size_t i = before; i < t.name.size(); ++i)
            if (t.name[i] >= m_refs.strings)
                return makeError(m_path + ": " + where + ": refers to missing string " + std::to_string(t.name[i]));
        if (launches) {
            const auto& launch = t.col<uint32_t>(cols::Kernel::Launch);
            for (size_t i = before; i < launch.size(); ++i)
                if (launch[i] >= m_refs.launches)
                    return makeError(m_path + ": " + where + ": refers to missing kernel launch " + std::to_string(launch[i]));
        }
        if (stacks) {
            const auto& stack = t.col<uint32_t>(cols::CpuSample::Stack);
            for (size_t i = before; i < stack.size(); ++i)
                if (stack[i] >= m_refs.stacks)
                    return makeError(m_path + ": " + where + ": refers to missing call stack " + std::to_string(stack[i]));
        }
        if (onChunk)
            if (Status s = (*onChunk)(t); !s) return s;
    }
    if (!st.ok()) return makeError(m_path + ": table 'chunks' (" + where + "): " + st.error());
    for (int64_t l = expectLane; l < info.laneCount; ++l) laneEnds[static_cast<size_t>(l)] = static_cast<uint32_t>(total);
    if (!windowed && total != info.eventCount)
        return makeError(m_path + ": " + where + ": has " + std::to_string(total) + " events, the index says " +
                         std::to_string(info.eventCount) + " (chunks missing)");
    if (!onChunk) {
        t.laneOffsets.assign(1, 0);
        t.laneOffsets.insert(t.laneOffsets.end(), laneEnds.begin(), laneEnds.end());
    }
    return {};
}

Result<Track> RepFile::readTrack(size_t index, int64_t t0, int64_t t1, bool levelOfDetail, uint64_t columns) const {
    if (index >= m_tracks.size()) return makeError("no track " + std::to_string(index));
    const TrackInfo& info = m_tracks[index];
    const bool windowed = t0 != INT64_MIN || t1 != INT64_MAX;
    Track t(info.key);
    if (!windowed && info.eventCount <= (1ull << 32)) {  // exact capacity: no regrowth while decoding
        const size_t n = static_cast<size_t>(info.eventCount);
        t.start.reserve(n);
        if (t.schema().hasEnd) t.end.reserve(n);
        if (t.schema().hasName) t.name.reserve(n);
        for (auto& c : t.cols) c.reserve(n);
        adviseHugePages(t.start);
        adviseHugePages(t.end);
        adviseHugePages(t.name);
    }
    if (Status s = walkChunks(index, t0, t1, columns, t, nullptr); !s) return makeError(s.error());
    t.finishLoaded(levelOfDetail);
    return t;
}

Status RepFile::scanTrack(size_t index, uint64_t columns, const std::function<Status(const Track&)>& chunk) const {
    if (index >= m_tracks.size()) return makeError("no track " + std::to_string(index));
    Track t(m_tracks[index].key);
    return walkChunks(index, INT64_MIN, INT64_MAX, columns, t, &chunk);
}

std::shared_ptr<Report> RepFile::takeMetadata() {
    auto r = m_meta;
    m_meta = std::make_shared<Report>();
    return r;
}

Result<std::unique_ptr<RepFile>> RepFile::openAnother() const {
    std::unique_ptr<RepFile> f(new RepFile());
    f->m_path = m_path;
    if (Status s = f->m_db.openReadOnly(m_path); !s) return makeError("cannot open " + quoted(m_path) + ": " + s.error());
    f->m_formatVersion = m_formatVersion;
    f->m_meta = std::make_shared<Report>();
    f->m_tracks = m_tracks;
    f->m_refs = m_refs;
    f->m_chunkSelect = m_chunkSelect;
    return f;
}

Result<std::shared_ptr<Report>> readReport(const std::string& path, const ReadOptions& options) {
    auto opened = RepFile::open(path);
    if (!opened) return std::move(opened).takeError();
    RepFile& first = **opened;
    const auto infos = first.trackInfos();
    std::shared_ptr<Report> report = first.takeMetadata();
    report->tracks.clear();
    report->tracks.resize(infos.size());

    // Largest tracks first over worker threads; each worker has its own connection. Tracks not
    // wanted keep their key and no events.
    std::vector<size_t> order;
    for (size_t i = 0; i < infos.size(); ++i) {
        if (!options.wantTrack || options.wantTrack(infos[i].key)) order.push_back(i);
        else {
            report->tracks[i] = Track(infos[i].key);
            if (infos[i].eventCount) {
                report->unloadedTMin = std::min(report->unloadedTMin, infos[i].tMin);
                report->unloadedTMax = std::max(report->unloadedTMax, infos[i].tMax);
            }
        }
    }
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return infos[a].eventCount > infos[b].eventCount; });
    uint64_t totalEvents = 0;
    for (size_t i : order) totalEvents += infos[i].eventCount;

    unsigned workers = options.threads ? options.threads : ThreadPool::usableCpus();
    workers = std::max(1u, std::min<unsigned>(workers, static_cast<unsigned>(std::max<size_t>(infos.size(), 1))));
    std::atomic<size_t> next{0};
    std::atomic<uint64_t> doneEvents{0};
    std::atomic<bool> stop{false};
    std::mutex errorMutex;
    std::string error;
    auto fail = [&](const std::string& e) {
        std::lock_guard lock(errorMutex);
        if (error.empty()) error = e;
        stop = true;
    };
    // At most every 20 ms, as the caller's callback expects (the last call always).
    auto lastReport = std::chrono::steady_clock::time_point{};
    auto reportProgress = [&](bool last = false) {
        const auto now = std::chrono::steady_clock::now();
        if (!last && now - lastReport < std::chrono::milliseconds(20)) return;
        lastReport = now;
        const double frac = totalEvents ? static_cast<double>(doneEvents.load()) / static_cast<double>(totalEvents) : 1.0;
        if (!options.progress(std::min(frac, 1.0))) fail("cancelled");
    };
    // `reports`: the caller's item, which reports progress between its tracks.
    auto work = [&](RepFile* file, bool reports) {
        std::unique_ptr<RepFile> own;
        if (!file) {
            auto f = first.openAnother();
            if (!f) return fail(f.error());
            own = std::move(f.value());
            file = own.get();
        }
        for (size_t k; !stop && (k = next.fetch_add(1)) < order.size();) {
            auto t = file->readTrack(order[k], INT64_MIN, INT64_MAX, options.levelOfDetail,
                                     options.columnsOf(infos[order[k]].key.kind));
            if (!t) return fail(t.error());
            report->tracks[order[k]] = std::move(t.value());
            doneEvents += infos[order[k]].eventCount;
            if (reports) reportProgress();
        }
    };
    // On the process's pool (model/util/ThreadPool.h): item 0 runs on this thread with the first
    // connection and reports progress, between its tracks and then every 20 ms until the tracks
    // the other items took are read (they are running: waiting for them cannot deadlock).
    sl::parallelFor(workers, [&](size_t w) {
        work(w == 0 ? &first : nullptr, w == 0 && options.progress);
        if (w != 0 || !options.progress) return;
        while (!stop && doneEvents.load() < totalEvents) {
            reportProgress();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        if (!stop) reportProgress(true);
    }, ParallelOptions{workers});
    if (!error.empty()) return makeError(error);
    return report;
}

}  // namespace sl
