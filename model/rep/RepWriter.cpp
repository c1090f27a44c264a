#include "model/rep/RepWriter.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "model/rep/FormatVersion.h"
#include "model/rep/RepSchema.h"

namespace sl {

namespace fs = std::filesystem;

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

Result<std::unique_ptr<RepWriter>> RepWriter::create(const std::string& path, const WriteOptions& options) {
    std::unique_ptr<RepWriter> w(new RepWriter());
    w->m_path = path;
    w->m_options = options;
    w->m_encoder = std::make_unique<ChunkEncoder>(options.zstdLevel);
    if (!options.overwrite && fs::exists(path))
        return makeError("'" + path + "' already exists (use -f/--force-overwrite to replace it)");
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return makeError("cannot write '" + path + "': directory '" + dir.string() + "' does not exist");
    w->m_tmpPath = path + ".tmp-" + std::to_string(::getpid());
    fs::remove(w->m_tmpPath, ec);
    if (Status s = w->m_db.create(w->m_tmpPath); !s)
        return makeError("cannot create '" + w->m_tmpPath + "': " + s.error());
    // Large pages suit big blobs; no journal: the temporary file is discarded on failure.
    Status s = w->m_db.exec(
        "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
        "PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY; BEGIN;");
    if (s) s = w->m_db.exec(repschema::kCreateTables);
    if (!s) {
        w->abandon();
        return makeError("cannot initialize '" + w->m_tmpPath + "': " + s.error());
    }
    w->m_insertChunk = sqlite::Stmt(w->m_db,
                                    "INSERT INTO chunks(track_id, lane, seq, t_min, t_max, count, raw_bytes, checksum, data) "
                                    "VALUES(?,?,?,?,?,?,?,?,?)");
    if (!w->m_insertChunk.valid()) {
        w->abandon();
        return makeError(sqlError("cannot prepare chunk insert", w->m_insertChunk.prepareError()));
    }
    return w;
}

RepWriter::~RepWriter() {
    if (!m_committed) abandon();
}

void RepWriter::abandon() {
    m_insertChunk = sqlite::Stmt();
    m_db.close();
    if (!m_tmpPath.empty()) {
        std::error_code ec;
        fs::remove(m_tmpPath, ec);
    }
}

Status RepWriter::insertChunk(int64_t trackId, uint32_t lane, uint32_t seq, const EncodedChunk& c) {
    auto& st = m_insertChunk;
    st.reset();
    st.bind(1, trackId).bind(2, static_cast<int64_t>(lane)).bind(3, static_cast<int64_t>(seq));
    st.bind(4, c.tMin).bind(5, c.tMax).bind(6, static_cast<int64_t>(c.count));
    st.bind(7, static_cast<int64_t>(c.rawBytes)).bind(8, static_cast<int64_t>(c.checksum));
    st.bindBlob(9, c.blob.data(), c.blob.size());
    st.step();
    if (!st.ok()) return makeError("cannot write chunk to '" + m_tmpPath + "': " + st.error());
    ++m_chunkCount;
    m_eventCount += c.count;
    m_blobBytes += c.blob.size();
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

Status RepWriter::writeMetadata(const Report& m) {
    auto fail = [this](const char* table, const sqlite::Stmt& st) {
        return makeError(std::string("cannot write table '") + table + "' to '" + m_tmpPath + "': " + st.error());
    };
#define SL_INSERT(table, sql) sqlite::Stmt st(m_db, sql); if (!st.valid()) return fail(table, st)
#define SL_STEP(table) st.step(); if (!st.ok()) return fail(table, st); st.reset()
    {
        SL_INSERT("sightline_meta", "INSERT INTO sightline_meta(key, value) VALUES(?, ?)");
        auto put = [&](const char* k, const std::string& v) { st.reset(); st.bind(1, k).bind(2, v); st.step(); return st.ok(); };
        if (!put("magic", kReportMagic) || !put("format_version", std::to_string(kFormatVersion)) ||
            !put("min_reader_version", std::to_string(kMinReaderVersion)) ||
            !put("writer", "sightline " + m.session.toolVersion) ||
            !put("event_count", std::to_string(m_eventCount)) || !put("chunk_count", std::to_string(m_chunkCount)) ||
            !put("track_count", std::to_string(m_tracks.size())) || !put("string_count", std::to_string(m.strings.size())))
            return fail("sightline_meta", st);
    }
    {
        const Session& s = m.session;
        SL_INSERT("session", "INSERT INTO session VALUES(?,?,?,?,?,?,?,?,?,?)");
        st.bind(1, s.workingDirectory).bind(2, s.hostName).bind(3, s.os).bind(4, s.cpuModel).bind(5, s.toolVersion);
        st.bind(6, s.captureOptions).bind(7, s.source).bind(8, s.startUtcNs).bind(9, s.startMonotonicNs).bind(10, s.durationNs);
        SL_STEP("session");
    }
    {
        SL_INSERT("session_argv", "INSERT INTO session_argv VALUES(?,?)");
        for (size_t i = 0; i < m.session.argv.size(); ++i) {
            st.bind(1, static_cast<int64_t>(i)).bind(2, m.session.argv[i]);
            SL_STEP("session_argv");
        }
    }
    {
        SL_INSERT("session_env", "INSERT INTO session_env VALUES(?,?)");
        for (const auto& [k, v] : m.session.environment) {
            st.bind(1, k).bind(2, v);
            SL_STEP("session_env");
        }
    }
    auto bindTime = [](sqlite::Stmt& st, int i, int64_t t) {
        if (t == kUnknownTime) st.bindNull(i); else st.bind(i, t);
    };
    {
        SL_INSERT("processes", "INSERT INTO processes VALUES(?,?,?,?,?,?,?,?)");
        for (const auto& p : m.processes) {
            st.bind(1, p.pid).bind(2, p.parentPid).bind(3, p.name).bind(4, p.commandLine);
            bindTime(st, 5, p.start);
            bindTime(st, 6, p.end);
            st.bind(7, static_cast<int64_t>(p.exitCode)).bind(8, static_cast<int64_t>(p.exitSignal));
            SL_STEP("processes");
        }
    }
    {
        SL_INSERT("process_reparents", "INSERT INTO process_reparents VALUES(?,?,?,?)");
        for (const auto& rp : m.reparents) {
            st.bind(1, rp.pid);
            bindTime(st, 2, rp.time);
            st.bind(3, rp.fromPid).bind(4, rp.toPid);
            SL_STEP("process_reparents");
        }
    }
    {
        SL_INSERT("process_mpi_ranks", "INSERT INTO process_mpi_ranks VALUES(?,?,?)");
        for (const auto& p : m.processes) {
            if (p.mpiRank < 0) continue;
            st.bind(1, p.pid).bind(2, static_cast<int64_t>(p.mpiRank))
                .bind(3, static_cast<int64_t>(p.mpiWorldSize));
            SL_STEP("process_mpi_ranks");
        }
    }
    {
        SL_INSERT("threads", "INSERT INTO threads VALUES(?,?,?,?,?)");
        for (const auto& t : m.threads) {
            st.bind(1, t.tid).bind(2, t.pid).bind(3, t.name);
            bindTime(st, 4, t.start);
            bindTime(st, 5, t.end);
            SL_STEP("threads");
        }
    }
    {
        SL_INSERT("gpus", "INSERT INTO gpus VALUES(?,?,?,?,?,?,?,?,?,?,?)");
        for (const auto& g : m.gpus) {
            st.bind(1, static_cast<int64_t>(g.deviceId)).bind(2, g.name).bind(3, g.uuid).bind(4, g.pciBusId);
            st.bind(5, static_cast<int64_t>(g.smCount)).bind(6, g.memoryBytes).bind(7, static_cast<int64_t>(g.computeMajor));
            st.bind(8, static_cast<int64_t>(g.computeMinor)).bind(9, g.smClockKHz).bind(10, g.memoryClockKHz);
            st.bind(11, g.memoryBandwidthBytesPerSec);
            SL_STEP("gpus");
        }
    }
    {
        SL_INSERT("cuda_contexts", "INSERT INTO cuda_contexts VALUES(?,?,?,?)");
        for (const auto& c : m.contexts) {
            st.bind(1, c.pid).bind(2, static_cast<int64_t>(c.deviceId)).bind(3, static_cast<int64_t>(c.contextId)).bind(4, c.name);
            SL_STEP("cuda_contexts");
        }
    }
    {
        SL_INSERT("cuda_streams", "INSERT INTO cuda_streams VALUES(?,?,?,?,?,?,?,?)");
        for (const auto& s : m.streams) {
            st.bind(1, s.pid).bind(2, static_cast<int64_t>(s.deviceId)).bind(3, static_cast<int64_t>(s.contextId));
            st.bind(4, static_cast<int64_t>(s.streamId)).bind(5, static_cast<int64_t>(s.priority));
            st.bind(6, static_cast<int64_t>(s.flags)).bind(7, static_cast<int64_t>(s.isDefault)).bind(8, s.name);
            SL_STEP("cuda_streams");
        }
    }
    {
        SL_INSERT("nvtx_domains", "INSERT INTO nvtx_domains VALUES(?,?,?)");
        for (const auto& d : m.nvtxDomains) {
            st.bind(1, d.pid).bind(2, static_cast<int64_t>(d.domainId)).bind(3, d.name);
            SL_STEP("nvtx_domains");
        }
    }
    {
        SL_INSERT("nvtx_categories", "INSERT INTO nvtx_categories VALUES(?,?,?,?)");
        for (const auto& c : m.nvtxCategories) {
            st.bind(1, c.pid).bind(2, static_cast<int64_t>(c.domainId)).bind(3, static_cast<int64_t>(c.category)).bind(4, c.name);
            SL_STEP("nvtx_categories");
        }
    }
    {
        SL_INSERT("metric_series", "INSERT INTO metric_series VALUES(?,?,?,?,?,?)");
        for (const auto& s : m.metricSeries) {
            st.bind(1, static_cast<int64_t>(s.seriesId)).bind(2, s.name).bind(3, s.unit).bind(4, s.source);
            st.bind(5, static_cast<int64_t>(s.deviceId)).bind(6, s.pid);
            SL_STEP("metric_series");
        }
    }
    {
        SL_INSERT("kernel_launches", "INSERT INTO kernel_launches VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        for (size_t i = 0; i < m.kernelLaunches.size(); ++i) {
            const auto& k = m.kernelLaunches[i];
            int64_t v[] = {static_cast<int64_t>(i), k.mangledName, k.shortName, k.grid[0], k.grid[1], k.grid[2],
                           k.block[0], k.block[1], k.block[2], k.registersPerThread, k.staticSharedBytes,
                           k.dynamicSharedBytes, k.localBytesPerThread, static_cast<int64_t>(k.launchType), k.graphId,
                           static_cast<int64_t>(k.graphNodeId)};
            for (int c = 0; c < 16; ++c) st.bind(c + 1, v[c]);
            SL_STEP("kernel_launches");
        }
    }
    {
        SL_INSERT("stack_frames", "INSERT INTO stack_frames VALUES(?,?,?,?)");
        for (size_t i = 0; i < m.stackFrames.size(); ++i) {
            const auto& f = m.stackFrames[i];
            st.bind(1, static_cast<int64_t>(i)).bind(2, static_cast<int64_t>(f.function));
            st.bind(3, static_cast<int64_t>(f.module)).bind(4, static_cast<int64_t>(f.offset));
            SL_STEP("stack_frames");
        }
    }
    {
        // Frame ids as little-endian uint32, leaf first (the machines we run on are little-endian;
        // the reader checks the blob's length).
        SL_INSERT("call_stacks", "INSERT INTO call_stacks VALUES(?,?)");
        for (size_t i = 0; i < m.callStacks.size(); ++i) {
            const auto& frames = m.callStacks[i].frames;
            st.bind(1, static_cast<int64_t>(i)).bindBlob(2, frames.data(), frames.size() * sizeof(uint32_t));
            SL_STEP("call_stacks");
        }
    }
    {
        // Backtraces of one (kind, pid, tid), in start order, as chunks of a sample-shaped track
        // (start = the event's start, stack = the backtrace): the chunk codec's delta coding and
        // zstd make them about a byte each where rows of integers took about 90.
        SL_INSERT("event_backtraces", "INSERT INTO event_backtraces VALUES(?,?,?,?,?,?,?,?)");
        constexpr size_t kPerChunk = 1 << 16;
        for (size_t b = 0; b < m.backtraces.size();) {
            const EventBacktrace& first = m.backtraces[b];
            Track t(TrackKey::forThread(EventKind::CpuSample, first.pid, first.tid));
            size_t e = b;
            for (; e < m.backtraces.size() && e - b < kPerChunk; ++e) {
                const EventBacktrace& x = m.backtraces[e];
                if (x.kind != first.kind || x.pid != first.pid || x.tid != first.tid) break;
                const int64_t extra[] = {static_cast<int64_t>(x.stack), 0};
                t.append(x.start, x.start, 0, extra);
            }
            if (Status s = m_encoder->encode(t, 0, t.size(), m_chunk); !s) return s;
            st.bind(1, static_cast<int64_t>(first.kind)).bind(2, first.pid).bind(3, first.tid);
            st.bind(4, static_cast<int64_t>(b)).bind(5, static_cast<int64_t>(m_chunk.count));
            st.bind(6, static_cast<int64_t>(m_chunk.rawBytes)).bind(7, static_cast<int64_t>(m_chunk.checksum));
            st.bindBlob(8, m_chunk.blob.data(), m_chunk.blob.size());
            SL_STEP("event_backtraces");
            b = e;
        }
    }
    {
        SL_INSERT("diagnostics", "INSERT INTO diagnostics VALUES(?,?,?,?)");
        for (const auto& d : m.diagnostics) {
            st.bind(1, d.name).bind(2, d.count).bind(3, d.reason).bind(4, d.pid);
            SL_STEP("diagnostics");
        }
    }
    {
        SL_INSERT("program_output", "INSERT INTO program_output VALUES(?,?,?,?)");
        for (const auto& o : m.programOutput) {
            st.bind(1, o.pid).bind(2, static_cast<int64_t>(o.stream)).bind(3, o.time).bind(4, o.text);
            SL_STEP("program_output");
        }
    }
    {
        SL_INSERT("strings", "INSERT INTO strings VALUES(?,?)");
        for (uint32_t i = 1; i < m.strings.size(); ++i) {
            std::string_view v = m.strings.get(i);
            st.bind(1, static_cast<int64_t>(i)).bindBlob(2, v.data(), v.size());
            SL_STEP("strings");
        }
    }
    {
        SL_INSERT("tracks", "INSERT INTO tracks VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
        for (const auto& t : m_tracks) {
            const TrackKey& k = t.key;
            st.bind(1, t.id).bind(2, static_cast<int64_t>(k.kind)).bind(3, k.pid).bind(4, k.tid);
            st.bind(5, static_cast<int64_t>(k.device)).bind(6, static_cast<int64_t>(k.context));
            st.bind(7, static_cast<int64_t>(k.stream)).bind(8, static_cast<int64_t>(k.domain));
            st.bind(9, static_cast<int64_t>(k.series)).bind(10, static_cast<int64_t>(t.count));
            st.bind(11, static_cast<int64_t>(t.lanes)).bind(12, t.tMin).bind(13, t.tMax);
            SL_STEP("tracks");
        }
    }
#undef SL_INSERT
#undef SL_STEP
    return {};
}

Status RepWriter::commit(const Report& meta) {
    if (m_committed) return makeError("report already committed");
    for (auto& s : m_streams)
        if (Status st = endTrack(*s); !st) return st;
    m_streams.clear();
    Status st = writeMetadata(meta);
    if (st) st = m_db.exec(repschema::kCreateIndexes);
    if (st) st = m_db.exec("INSERT INTO sightline_meta(key, value) VALUES('complete', '1'); COMMIT;");
    m_insertChunk = sqlite::Stmt();
    m_db.close();
    if (st) st = fsyncPath(m_tmpPath, false);
    if (!st) {
        abandon();
        return st;
    }
    std::error_code ec;
    fs::rename(m_tmpPath, m_path, ec);
    if (ec) {
        abandon();
        return makeError("cannot move the report to '" + m_path + "': " + ec.message());
    }
    fs::path dir = fs::path(m_path).parent_path();
    (void)fsyncPath(dir.empty() ? "." : dir.string(), true);
    m_committed = true;
    return {};
}

Status writeReport(const Report& report, const std::string& path, const WriteOptions& options) {
    auto w = RepWriter::create(path, options);
    if (!w) return std::move(w).takeError();
    for (const auto& t : report.tracks)
        if (Status s = (*w)->writeTrack(t); !s) return s;
    return (*w)->commit(report);
}

}  // namespace sl
