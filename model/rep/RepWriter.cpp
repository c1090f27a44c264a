#include "model/rep/RepWriter.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <type_traits>

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

Result<std::unique_ptr<RepWriter>> RepWriter::create(const std::string& path, const WriteOptions& options) {
    std::unique_ptr<RepWriter> w(new RepWriter());
    w->m_path = path;
    w->m_options = options;
    if (options.formatVersion != 1 && options.formatVersion != kFormatVersion)
        return makeError("cannot write report format " + std::to_string(options.formatVersion));
    w->m_encoder = std::make_unique<ChunkEncoder>(options.zstdLevel, options.formatVersion == 1 ? 1 : kChunkEncodingVersion);
    if (!options.overwrite && fs::exists(path))
        return makeError("'" + path + "' already exists (use -f/--force-overwrite to replace it)");
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
        if (s && (!t->optional || m_options.formatVersion == 1)) s = m_db.exec(repschema::createTableSql(*t));
    if (!s) return makeError("cannot initialize '" + m_tmpPath + "': " + s.error());
    m_insertChunk = std::make_unique<repschema::Insert<repschema::kChunks>>(m_db);
    if (!m_insertChunk->valid()) return makeError(sqlError("cannot prepare chunk insert", m_insertChunk->error()));
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
    ins.set("track_id", trackId).set("lane", lane).set("seq", seq).set("t_min", c.tMin).set("t_max", c.tMax);
    ins.set("count", c.count).set("raw_bytes", c.rawBytes).set("checksum", c.checksum);
    ins.setBlob("data", c.blob.data(), c.blob.size());
    if (Status s = ins.insert(); !s) return makeError("cannot write chunk to '" + m_tmpPath + "': " + s.error());
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
    if (m_heldBytes >= kPageSizeDecidedAt || m_options.formatVersion == 1) return startFile(pageSize(m_heldBytes));
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

using namespace repschema;

// Bytes the metadata will take, roughly: with the chunks, what the page size is chosen by.
uint64_t metadataBytes(const Report& m) {
    uint64_t bytes = 4096;
    for (uint32_t i = 1; i < m.strings.size(); ++i) bytes += m.strings.get(i).size() + 4;
    bytes += 40 * (m.kernelLaunches.size() + m.processes.size() + m.threads.size() + m.streams.size() + m.diagnostics.size());
    bytes += 12 * m.stackFrames.size() + 2 * m.backtraces.size();
    for (const auto& c : m.callStacks) bytes += 4 + 4 * c.frames.size();
    for (const auto& o : m.programOutput) bytes += 16 + o.text.size();
    return bytes;
}

// Writes n rows of table T, each filled by fill(insert, i); a table added later in format 1 is
// created only when it has rows.
template <const TableDef& T, class Fill>
Status writeRows(sqlite::Db& db, const std::string& file, size_t n, Fill&& fill) {
    auto fail = [&](const std::string& e) { return makeError("cannot write " + e + " to '" + file + "'"); };
    if (n == 0) return {};
    if (T.optional && !db.hasTable(T.name))
        if (Status s = db.exec(createTableSql(T)); !s) return fail("table '" + std::string(T.name) + "': " + s.error());
    Insert<T> ins(db);
    if (!ins.valid()) return fail("table '" + std::string(T.name) + "': " + ins.error());
    for (size_t i = 0; i < n; ++i) {
        fill(ins, i);
        if (Status s = ins.insert(); !s) return fail(s.error());
    }
    return {};
}

// An unknown time (kUnknownTime) is stored as NULL.
template <const TableDef& T>
void setTime(Insert<T>& ins, std::type_identity_t<Col<T>> c, int64_t t) {
    if (t == kUnknownTime) ins.setNull(c);
    else ins.set(c, t);
}

}  // namespace

Status RepWriter::writeMetadata(const Report& m) {
    // Each table's rows through its generated INSERT; an error names the table and the file.
    // Each table's rows through its generated INSERT; an error names the table and the file.
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
    Status s = writeRows<kSightlineMeta>(m_db, m_tmpPath, std::size(meta), [&](Insert<kSightlineMeta>& ins, size_t i) {
        ins.set("key", meta[i].first).set("value", meta[i].second);
    });
    if (s) s = writeRows<kSession>(m_db, m_tmpPath, 1, [&](Insert<kSession>& ins, size_t) {
        const Session& x = m.session;
        ins.set("working_directory", x.workingDirectory).set("host_name", x.hostName).set("os", x.os);
        ins.set("cpu_model", x.cpuModel).set("tool_version", x.toolVersion).set("capture_options", x.captureOptions);
        ins.set("source", x.source).set("start_utc_ns", x.startUtcNs).set("start_monotonic_ns", x.startMonotonicNs);
        ins.set("duration_ns", x.durationNs);
    });
    if (s) s = writeRows<kSessionArgv>(m_db, m_tmpPath, m.session.argv.size(), [&](Insert<kSessionArgv>& ins, size_t i) {
        ins.set("idx", i).set("arg", m.session.argv[i]);
    });
    if (s) s = writeRows<kSessionEnv>(m_db, m_tmpPath, m.session.environment.size(), [&](Insert<kSessionEnv>& ins, size_t i) {
        ins.set("name", m.session.environment[i].first).set("value", m.session.environment[i].second);
    });
    if (s) s = writeRows<kProcesses>(m_db, m_tmpPath, m.processes.size(), [&](Insert<kProcesses>& ins, size_t i) {
        const Process& p = m.processes[i];
        ins.set("pid", p.pid).set("parent_pid", p.parentPid).set("name", p.name).set("command_line", p.commandLine);
        setTime(ins, "start_ns", p.start);
        setTime(ins, "end_ns", p.end);
        ins.set("exit_code", p.exitCode).set("exit_signal", p.exitSignal);
    });
    if (s) s = writeRows<kProcessReparents>(m_db, m_tmpPath, m.reparents.size(), [&](Insert<kProcessReparents>& ins, size_t i) {
        const ProcessReparent& rp = m.reparents[i];
        ins.set("pid", rp.pid).set("from_pid", rp.fromPid).set("to_pid", rp.toPid);
        setTime(ins, "time_ns", rp.time);
    });
    std::vector<const Process*> ranked;
    for (const auto& p : m.processes)
        if (p.mpiRank >= 0) ranked.push_back(&p);
    if (s) s = writeRows<kProcessMpiRanks>(m_db, m_tmpPath, ranked.size(), [&](Insert<kProcessMpiRanks>& ins, size_t i) {
        ins.set("pid", ranked[i]->pid).set("rank", ranked[i]->mpiRank).set("world_size", ranked[i]->mpiWorldSize);
    });
    if (s) s = writeRows<kThreads>(m_db, m_tmpPath, m.threads.size(), [&](Insert<kThreads>& ins, size_t i) {
        const Thread& t = m.threads[i];
        ins.set("tid", t.tid).set("pid", t.pid).set("name", t.name);
        setTime(ins, "start_ns", t.start);
        setTime(ins, "end_ns", t.end);
    });
    if (s) s = writeRows<kGpus>(m_db, m_tmpPath, m.gpus.size(), [&](Insert<kGpus>& ins, size_t i) {
        const Gpu& g = m.gpus[i];
        ins.set("device_id", g.deviceId).set("name", g.name).set("uuid", g.uuid).set("pci_bus_id", g.pciBusId);
        ins.set("sm_count", g.smCount).set("memory_bytes", g.memoryBytes).set("compute_major", g.computeMajor);
        ins.set("compute_minor", g.computeMinor).set("sm_clock_khz", g.smClockKHz).set("memory_clock_khz", g.memoryClockKHz);
        ins.set("memory_bandwidth", g.memoryBandwidthBytesPerSec);
    });
    if (s) s = writeRows<kCudaContexts>(m_db, m_tmpPath, m.contexts.size(), [&](Insert<kCudaContexts>& ins, size_t i) {
        const CudaContext& c = m.contexts[i];
        ins.set("pid", c.pid).set("device_id", c.deviceId).set("context_id", c.contextId).set("name", c.name);
    });
    if (s) s = writeRows<kCudaStreams>(m_db, m_tmpPath, m.streams.size(), [&](Insert<kCudaStreams>& ins, size_t i) {
        const CudaStream& c = m.streams[i];
        ins.set("pid", c.pid).set("device_id", c.deviceId).set("context_id", c.contextId).set("stream_id", c.streamId);
        ins.set("priority", c.priority).set("flags", c.flags).set("is_default", c.isDefault).set("name", c.name);
    });
    if (s) s = writeRows<kNvtxDomains>(m_db, m_tmpPath, m.nvtxDomains.size(), [&](Insert<kNvtxDomains>& ins, size_t i) {
        const NvtxDomain& d = m.nvtxDomains[i];
        ins.set("pid", d.pid).set("domain_id", d.domainId).set("name", d.name);
    });
    if (s) s = writeRows<kNvtxCategories>(m_db, m_tmpPath, m.nvtxCategories.size(), [&](Insert<kNvtxCategories>& ins, size_t i) {
        const NvtxCategory& c = m.nvtxCategories[i];
        ins.set("pid", c.pid).set("domain_id", c.domainId).set("category", c.category).set("name", c.name);
    });
    if (s) s = writeRows<kMetricSeries>(m_db, m_tmpPath, m.metricSeries.size(), [&](Insert<kMetricSeries>& ins, size_t i) {
        const MetricSeries& x = m.metricSeries[i];
        ins.set("series_id", x.seriesId).set("name", x.name).set("unit", x.unit).set("source", x.source);
        ins.set("device_id", x.deviceId).set("pid", x.pid);
    });
    if (s) s = writeRows<kKernelLaunches>(m_db, m_tmpPath, m.kernelLaunches.size(), [&](Insert<kKernelLaunches>& ins, size_t i) {
        const KernelLaunchInfo& k = m.kernelLaunches[i];
        ins.set("id", i).set("mangled_name", k.mangledName).set("short_name", k.shortName);
        ins.set("grid_x", k.grid[0]).set("grid_y", k.grid[1]).set("grid_z", k.grid[2]);
        ins.set("block_x", k.block[0]).set("block_y", k.block[1]).set("block_z", k.block[2]);
        ins.set("registers", k.registersPerThread).set("static_shared", k.staticSharedBytes);
        ins.set("dynamic_shared", k.dynamicSharedBytes).set("local_bytes", k.localBytesPerThread);
        ins.set("launch_type", static_cast<int64_t>(k.launchType)).set("graph_id", k.graphId).set("graph_node_id", k.graphNodeId);
    });
    if (s) s = writeRows<kStackFrames>(m_db, m_tmpPath, m.stackFrames.size(), [&](Insert<kStackFrames>& ins, size_t i) {
        const StackFrame& f = m.stackFrames[i];
        ins.set("id", i).set("function", f.function).set("module", f.module).set("offset", f.offset);
    });
    // Frame ids as little-endian uint32, leaf first (the machines we run on are little-endian;
    // the reader checks the blob's length).
    if (s) s = writeRows<kCallStacks>(m_db, m_tmpPath, m.callStacks.size(), [&](Insert<kCallStacks>& ins, size_t i) {
        const auto& frames = m.callStacks[i].frames;
        ins.set("id", i).setBlob("frames", frames.data(), frames.size() * sizeof(uint32_t));
    });
    if (s) s = writeBacktraces(m);
    if (s) s = writeRows<kDiagnostics>(m_db, m_tmpPath, m.diagnostics.size(), [&](Insert<kDiagnostics>& ins, size_t i) {
        const Diagnostic& d = m.diagnostics[i];
        ins.set("name", d.name).set("count", d.count).set("reason", d.reason).set("pid", d.pid);
    });
    if (s) s = writeRows<kProgramOutput>(m_db, m_tmpPath, m.programOutput.size(), [&](Insert<kProgramOutput>& ins, size_t i) {
        const ProgramOutput& o = m.programOutput[i];
        ins.set("pid", o.pid).set("stream", o.stream).set("time_ns", o.time).set("text", o.text);
    });
    // Ids 1..N (0, the empty string, is not stored).
    if (s) s = writeRows<kStrings>(m_db, m_tmpPath, m.strings.size() > 1 ? m.strings.size() - 1 : 0, [&](Insert<kStrings>& ins, size_t i) {
        const std::string_view v = m.strings.get(static_cast<uint32_t>(i + 1));
        ins.set("id", i + 1).setBlob("value", v.data(), v.size());
    });
    if (s) s = writeRows<kTracks>(m_db, m_tmpPath, m_tracks.size(), [&](Insert<kTracks>& ins, size_t i) {
        const TrackRow& t = m_tracks[i];
        const TrackKey& k = t.key;
        ins.set("id", t.id).set("kind", static_cast<int64_t>(k.kind)).set("pid", k.pid).set("tid", k.tid);
        ins.set("device", k.device).set("context", k.context).set("stream", k.stream).set("domain", k.domain);
        ins.set("series", k.series).set("event_count", t.count).set("lane_count", t.lanes);
        ins.set("t_min", t.tMin).set("t_max", t.tMax);
    });
    return s;
}

Status RepWriter::writeBacktraces(const Report& m) {
    if (m.backtraces.empty()) return {};
    // Backtraces of one (kind, pid, tid), in start order, as chunks of a sample-shaped track
    // (start = the event's start, stack = the backtrace): the chunk codec's delta coding and
    // zstd make them about a byte each where rows of integers took about 90.
    if (!m_db.hasTable(kEventBacktraces.name))
        if (Status s = m_db.exec(createTableSql(kEventBacktraces)); !s)
            return makeError("cannot create table 'event_backtraces' in '" + m_tmpPath + "': " + s.error());
    Insert<kEventBacktraces> ins(m_db);
    if (!ins.valid()) return makeError("cannot write table 'event_backtraces' to '" + m_tmpPath + "': " + ins.error());
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
        ins.set("kind", static_cast<int64_t>(first.kind)).set("pid", first.pid).set("tid", first.tid).set("seq", b);
        ins.set("count", m_chunk.count).set("raw_bytes", m_chunk.rawBytes).set("checksum", m_chunk.checksum);
        ins.setBlob("data", m_chunk.blob.data(), m_chunk.blob.size());
        if (Status s = ins.insert(); !s) return makeError("cannot write " + s.error() + " to '" + m_tmpPath + "'");
        b = e;
    }
    return {};
}

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
    if (st) st = writeRows<kSightlineMeta>(m_db, m_tmpPath, 1, [](Insert<kSightlineMeta>& ins, size_t) {
        ins.set("key", "complete").set("value", "1");
    });
    if (st) st = m_db.exec("COMMIT;");
    m_insertChunk.reset();
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
