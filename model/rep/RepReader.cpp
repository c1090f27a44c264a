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

namespace sl {

namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& p) { return "'" + p + "'"; }

int64_t timeOrNull(const sqlite::Stmt& st, int i) { return st.isNull(i) ? kUnknownTime : st.i64(i); }

// Runs `sql` and calls `row` for each row; an SQLite error becomes "table 'x': ...".
template <class Fn>
Status forEachRow(const sqlite::Db& db, const char* table, const std::string& sql, Fn&& row) {
    sqlite::Stmt st(db, sql);
    if (!st.valid()) return makeError(std::string("table '") + table + "': " + st.prepareError());
    while (st.step())
        if (Status s = row(st); !s) return makeError(std::string("table '") + table + "': " + s.error());
    if (!st.ok()) return makeError(std::string("table '") + table + "': " + st.error());
    return {};
}

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
        char head[16] = {};
        in.read(head, 16);
        if (in.gcount() < 16 || std::memcmp(head, "SQLite format 3\0", 16) != 0)
            return makeError(quoted(path) + " is not a Sightline report (not an SQLite database)");
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
    Status s = forEachRow(m_db, "sightline_meta", "SELECT key, value FROM sightline_meta", [&](const sqlite::Stmt& st) -> Status {
        std::string key(st.text(0)), value(st.text(1));
        if (key == "magic") magic = value;
        else if (key == "format_version") m_formatVersion = std::atoi(value.c_str());
        else if (key == "min_reader_version") minReader = std::atoi(value.c_str());
        else if (key == "complete") complete = value;
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
    s = forEachRow(m_db, "session", "SELECT * FROM session", [&](const sqlite::Stmt& st) -> Status {
        Session& x = r.session;
        x.workingDirectory = st.text(0);
        x.hostName = st.text(1);
        x.os = st.text(2);
        x.cpuModel = st.text(3);
        x.toolVersion = st.text(4);
        x.captureOptions = st.text(5);
        x.source = st.text(6);
        x.startUtcNs = st.i64(7);
        x.startMonotonicNs = st.i64(8);
        x.durationNs = st.i64(9);
        return {};
    });
    if (s) s = forEachRow(m_db, "session_argv", "SELECT arg FROM session_argv ORDER BY idx", [&](const sqlite::Stmt& st) -> Status {
        r.session.argv.emplace_back(st.text(0));
        return {};
    });
    if (s) s = forEachRow(m_db, "session_env", "SELECT name, value FROM session_env", [&](const sqlite::Stmt& st) -> Status {
        r.session.environment.emplace_back(std::string(st.text(0)), std::string(st.text(1)));
        return {};
    });
    if (s) s = forEachRow(m_db, "processes", "SELECT pid, parent_pid, name, command_line, start_ns, end_ns, exit_code, exit_signal FROM processes",
                          [&](const sqlite::Stmt& st) -> Status {
        Process p;
        p.pid = st.i64(0); p.parentPid = st.i64(1); p.name = st.text(2); p.commandLine = st.text(3);
        p.start = timeOrNull(st, 4); p.end = timeOrNull(st, 5);
        p.exitCode = static_cast<int32_t>(st.i64(6)); p.exitSignal = static_cast<int32_t>(st.i64(7));
        r.processes.push_back(std::move(p));
        return {};
    });
    // Added in format 1 without raising min_reader_version (older files do not have it).
    if (s && m_db.hasTable("process_reparents"))
        s = forEachRow(m_db, "process_reparents", "SELECT pid, time_ns, from_pid, to_pid FROM process_reparents",
                       [&](const sqlite::Stmt& st) -> Status {
            r.reparents.push_back({st.i64(0), timeOrNull(st, 1), st.i64(2), st.i64(3)});
            return {};
        });
    // Added in format 1 without raising min_reader_version, as process_reparents.
    if (s && m_db.hasTable("process_mpi_ranks"))
        s = forEachRow(m_db, "process_mpi_ranks", "SELECT pid, rank, world_size FROM process_mpi_ranks",
                       [&](const sqlite::Stmt& st) -> Status {
            for (auto& p : r.processes)
                if (p.pid == st.i64(0)) {
                    p.mpiRank = static_cast<int32_t>(st.i64(1));
                    p.mpiWorldSize = static_cast<int32_t>(st.i64(2));
                }
            return {};
        });
    if (s) s = forEachRow(m_db, "threads", "SELECT tid, pid, name, start_ns, end_ns FROM threads", [&](const sqlite::Stmt& st) -> Status {
        Thread t;
        t.tid = st.i64(0); t.pid = st.i64(1); t.name = st.text(2);
        t.start = timeOrNull(st, 3); t.end = timeOrNull(st, 4);
        r.threads.push_back(std::move(t));
        return {};
    });
    if (s) s = forEachRow(m_db, "gpus", "SELECT device_id, name, uuid, pci_bus_id, sm_count, memory_bytes, compute_major, compute_minor, sm_clock_khz, memory_clock_khz, memory_bandwidth FROM gpus",
                          [&](const sqlite::Stmt& st) -> Status {
        Gpu g;
        g.deviceId = static_cast<int32_t>(st.i64(0)); g.name = st.text(1); g.uuid = st.text(2); g.pciBusId = st.text(3);
        g.smCount = static_cast<int32_t>(st.i64(4)); g.memoryBytes = st.i64(5);
        g.computeMajor = static_cast<int32_t>(st.i64(6)); g.computeMinor = static_cast<int32_t>(st.i64(7));
        g.smClockKHz = st.i64(8); g.memoryClockKHz = st.i64(9); g.memoryBandwidthBytesPerSec = st.i64(10);
        r.gpus.push_back(std::move(g));
        return {};
    });
    if (s) s = forEachRow(m_db, "cuda_contexts", "SELECT pid, device_id, context_id, name FROM cuda_contexts", [&](const sqlite::Stmt& st) -> Status {
        r.contexts.push_back({st.i64(0), static_cast<int32_t>(st.i64(1)), static_cast<uint32_t>(st.i64(2)), std::string(st.text(3))});
        return {};
    });
    if (s) s = forEachRow(m_db, "cuda_streams", "SELECT pid, device_id, context_id, stream_id, priority, flags, is_default, name FROM cuda_streams",
                          [&](const sqlite::Stmt& st) -> Status {
        CudaStream c;
        c.pid = st.i64(0); c.deviceId = static_cast<int32_t>(st.i64(1)); c.contextId = static_cast<uint32_t>(st.i64(2));
        c.streamId = static_cast<uint32_t>(st.i64(3)); c.priority = static_cast<int32_t>(st.i64(4));
        c.flags = static_cast<uint32_t>(st.i64(5)); c.isDefault = st.i64(6) != 0; c.name = st.text(7);
        r.streams.push_back(std::move(c));
        return {};
    });
    if (s) s = forEachRow(m_db, "nvtx_domains", "SELECT pid, domain_id, name FROM nvtx_domains", [&](const sqlite::Stmt& st) -> Status {
        r.nvtxDomains.push_back({st.i64(0), static_cast<uint32_t>(st.i64(1)), std::string(st.text(2))});
        return {};
    });
    if (s) s = forEachRow(m_db, "nvtx_categories", "SELECT pid, domain_id, category, name FROM nvtx_categories", [&](const sqlite::Stmt& st) -> Status {
        r.nvtxCategories.push_back({st.i64(0), static_cast<uint32_t>(st.i64(1)), static_cast<uint32_t>(st.i64(2)), std::string(st.text(3))});
        return {};
    });
    if (s) s = forEachRow(m_db, "metric_series", "SELECT series_id, name, unit, source, device_id, pid FROM metric_series", [&](const sqlite::Stmt& st) -> Status {
        r.metricSeries.push_back({static_cast<uint32_t>(st.i64(0)), std::string(st.text(1)), std::string(st.text(2)),
                                  std::string(st.text(3)), static_cast<int32_t>(st.i64(4)), st.i64(5)});
        return {};
    });
    if (s) s = forEachRow(m_db, "strings", "SELECT id, value FROM strings ORDER BY id", [&](const sqlite::Stmt& st) -> Status {
        if (st.i64(0) != static_cast<int64_t>(r.strings.size()))
            return makeError("string ids are not contiguous at id " + std::to_string(st.i64(0)));
        r.strings.appendRaw(st.blob(1));
        return {};
    });
    const int64_t nstrings = static_cast<int64_t>(r.strings.size());
    auto checkString = [nstrings](int64_t id, const char* what) -> Status {
        if (id < 0 || id >= nstrings) return makeError(std::string(what) + " refers to missing string " + std::to_string(id));
        return {};
    };
    if (s) s = forEachRow(m_db, "kernel_launches", "SELECT * FROM kernel_launches ORDER BY id", [&](const sqlite::Stmt& st) -> Status {
        if (st.i64(0) != static_cast<int64_t>(r.kernelLaunches.size())) return makeError("launch ids are not contiguous");
        KernelLaunchInfo k;
        k.mangledName = static_cast<uint32_t>(st.i64(1)); k.shortName = static_cast<uint32_t>(st.i64(2));
        if (Status c = checkString(k.mangledName, "mangled_name"); !c) return c;
        if (Status c = checkString(k.shortName, "short_name"); !c) return c;
        for (int i = 0; i < 3; ++i) {
            k.grid[i] = static_cast<uint32_t>(st.i64(3 + i));
            k.block[i] = static_cast<uint32_t>(st.i64(6 + i));
        }
        k.registersPerThread = static_cast<uint32_t>(st.i64(9)); k.staticSharedBytes = static_cast<uint32_t>(st.i64(10));
        k.dynamicSharedBytes = static_cast<uint32_t>(st.i64(11)); k.localBytesPerThread = static_cast<uint32_t>(st.i64(12));
        k.launchType = static_cast<LaunchType>(st.i64(13)); k.graphId = static_cast<uint32_t>(st.i64(14));
        k.graphNodeId = static_cast<uint64_t>(st.i64(15));
        r.kernelLaunches.push_back(k);
        return {};
    });
    // Stacks of CPU samples (tables added in format 1 without raising min_reader_version; files
    // written before them have none).
    if (s && m_db.hasTable("stack_frames"))
        s = forEachRow(m_db, "stack_frames", "SELECT id, function, module, offset FROM stack_frames ORDER BY id",
                       [&](const sqlite::Stmt& st) -> Status {
            if (st.i64(0) != static_cast<int64_t>(r.stackFrames.size())) return makeError("frame ids are not contiguous");
            StackFrame f{static_cast<uint32_t>(st.i64(1)), static_cast<uint32_t>(st.i64(2)), static_cast<uint64_t>(st.i64(3))};
            if (Status c = checkString(f.function, "function"); !c) return c;
            if (Status c = checkString(f.module, "module"); !c) return c;
            r.stackFrames.push_back(f);
            return {};
        });
    if (s && m_db.hasTable("call_stacks"))
        s = forEachRow(m_db, "call_stacks", "SELECT id, frames FROM call_stacks ORDER BY id", [&](const sqlite::Stmt& st) -> Status {
            if (st.i64(0) != static_cast<int64_t>(r.callStacks.size())) return makeError("stack ids are not contiguous");
            const std::string_view blob = st.blob(1);
            if (blob.size() % sizeof(uint32_t) != 0)
                return makeError("stack " + std::to_string(st.i64(0)) + ": frames blob of " + std::to_string(blob.size()) +
                                 " bytes is not a whole number of frame ids");
            CallStack stack;
            stack.frames.resize(blob.size() / sizeof(uint32_t));
            if (!blob.empty()) std::memcpy(stack.frames.data(), blob.data(), blob.size());
            for (uint32_t f : stack.frames)
                if (f >= r.stackFrames.size())
                    return makeError("stack " + std::to_string(st.i64(0)) + " refers to missing frame " + std::to_string(f));
            r.callStacks.push_back(std::move(stack));
            return {};
        });
    // Backtraces of events (--python-backtrace; a table added without raising
    // min_reader_version: files without it have none): chunks of a sample-shaped track per
    // (kind, pid, tid), in key order.
    if (s && m_db.hasTable("event_backtraces")) {
        ChunkDecoder decoder;
        s = forEachRow(m_db, "event_backtraces",
                       "SELECT kind, pid, tid, count, raw_bytes, checksum, data FROM event_backtraces "
                       "ORDER BY kind, pid, tid, seq",
                       [&](const sqlite::Stmt& st) -> Status {
            const int64_t kind = st.i64(0);
            if (kind < 1 || kind > 255 || !findSchema(static_cast<uint8_t>(kind))) return {};  // a newer kind
            const int64_t count = st.i64(3);
            const std::string_view blob = st.blob(6);
            if (count < 0 || count > (1 << 20) || st.i64(4) < 0)
                return makeError("a backtrace chunk has an invalid count or size");
            Track t(TrackKey::forThread(EventKind::CpuSample, st.i64(1), st.i64(2)));
            if (Status d = decoder.decode(blob.data(), blob.size(), static_cast<uint64_t>(st.i64(4)),
                                          static_cast<uint32_t>(count), static_cast<uint64_t>(st.i64(5)), t);
                !d)
                return makeError("backtraces of thread " + std::to_string(st.i64(2)) + ": " + d.error());
            for (size_t i = 0; i < t.size(); ++i) {
                EventBacktrace b;
                b.kind = static_cast<EventKind>(kind);
                b.pid = t.key.pid;
                b.tid = t.key.tid;
                b.start = t.start[i];
                const int64_t stack = t.intAt(cols::CpuSample::Stack, i);
                if (stack < 0 || static_cast<uint64_t>(stack) >= r.callStacks.size())
                    return makeError("a backtrace refers to missing stack " + std::to_string(stack));
                b.stack = static_cast<uint32_t>(stack);
                if (!r.backtraces.empty() && !(r.backtraces.back().key() < b.key()))
                    return makeError("backtraces are not in order");
                r.backtraces.push_back(b);
            }
            return {};
        });
    }
    if (s) s = forEachRow(m_db, "diagnostics", "SELECT name, count, reason, pid FROM diagnostics", [&](const sqlite::Stmt& st) -> Status {
        r.diagnostics.push_back({std::string(st.text(0)), st.i64(1), std::string(st.text(2)), st.i64(3)});
        return {};
    });
    if (s) s = forEachRow(m_db, "program_output", "SELECT pid, stream, time_ns, text FROM program_output", [&](const sqlite::Stmt& st) -> Status {
        r.programOutput.push_back({st.i64(0), static_cast<int32_t>(st.i64(1)), st.i64(2), std::string(st.text(3))});
        return {};
    });
    if (s) s = forEachRow(m_db, "tracks", "SELECT id, kind, pid, tid, device, context, stream, domain, series, event_count, lane_count, t_min, t_max FROM tracks ORDER BY id",
                          [&](const sqlite::Stmt& st) -> Status {
        const int64_t rawKind = st.i64(1);
        if (!findSchema(static_cast<uint8_t>(rawKind)) || rawKind > 255) {
            // A newer writer's kind: skipped, and said so.
            bool found = false;
            for (auto& d : r.diagnostics)
                if (d.name == "report.unknown_track_kinds") { ++d.count; found = true; }
            if (!found)
                r.diagnostics.push_back({"report.unknown_track_kinds", 1,
                                         "tracks of event kinds this Sightline version does not know were skipped", 0});
            return {};
        }
        TrackInfo t;
        t.id = st.i64(0);
        t.key.kind = static_cast<EventKind>(rawKind);
        t.key.pid = st.i64(2); t.key.tid = st.i64(3); t.key.device = static_cast<int32_t>(st.i64(4));
        t.key.context = static_cast<uint32_t>(st.i64(5)); t.key.stream = static_cast<uint32_t>(st.i64(6));
        t.key.domain = static_cast<uint32_t>(st.i64(7)); t.key.series = static_cast<uint32_t>(st.i64(8));
        if (st.i64(9) < 0 || st.i64(10) < 1 || st.i64(10) > (1 << 24))
            return makeError("track " + std::to_string(t.id) + " has an invalid event or lane count");
        t.eventCount = static_cast<uint64_t>(st.i64(9));
        t.laneCount = static_cast<uint32_t>(st.i64(10));
        t.tMin = st.i64(11); t.tMax = st.i64(12);
        m_tracks.push_back(t);
        return {};
    });
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
    std::string sql = "SELECT lane, seq, count, raw_bytes, checksum, data, t_min, t_max FROM chunks WHERE track_id = ?";
    if (windowed) sql += " AND t_max >= ? AND t_min < ?";
    sql += " ORDER BY lane, seq";
    sqlite::Stmt st(m_db, sql);
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
        const int64_t lane = st.i64(0), seq = st.i64(1), count = st.i64(2);
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
        std::string_view blob = st.blob(5);
        if (onChunk) {  // each chunk alone: the same memory serves every chunk
            t.start.clear();
            t.end.clear();
            t.name.clear();
            for (auto& c : t.cols) c.clear();
        }
        const size_t before = t.size();
        Status ds = decoder.decode(blob.data(), blob.size(), static_cast<uint64_t>(st.i64(3)), static_cast<uint32_t>(count),
                                   static_cast<uint64_t>(st.i64(4)), t, columns);
        if (!ds) return makeError(m_path + ": " + chunkName + ": " + ds.error());
        // Lanes must stay sorted and non-overlapping across chunk boundaries too.
        if (laneStarted && t.start[before] < laneEnd)
            return makeError(m_path + ": " + chunkName + ": overlaps the previous chunk");
        laneEnd = t.endAt(t.size() - 1);
        laneStarted = true;
        if (!windowed && (t.start[before] != st.i64(6) || laneEnd != st.i64(7)))
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

    unsigned workers = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
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
    auto work = [&](RepFile* file) {
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
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, nullptr);
    // The calling thread works too and reports progress between tracks.
    std::thread::id self = std::this_thread::get_id();
    (void)self;
    if (options.progress) {
        std::thread mainWorker(work, &first);
        while (true) {
            bool finished = next.load() >= order.size() || stop;
            double frac = totalEvents ? static_cast<double>(doneEvents.load()) / static_cast<double>(totalEvents) : 1.0;
            if (!options.progress(std::min(frac, 1.0))) {
                stop = true;
                std::lock_guard lock(errorMutex);
                if (error.empty()) error = "cancelled";
            }
            if (finished) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        mainWorker.join();
    } else {
        work(&first);
    }
    for (auto& t : pool) t.join();
    if (!error.empty()) return makeError(error);
    return report;
}

}  // namespace sl
