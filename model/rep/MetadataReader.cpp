#include "model/rep/MetadataReader.h"

#include <cstring>
#include <type_traits>

#include "model/rep/ChunkCodec.h"
#include "model/rep/TableIo.h"

namespace sl {

using namespace repschema;

namespace {

// NULL is an unknown time (kUnknownTime).
template <const TableDef& T>
int64_t timeOrNull(const Row<T>& row, std::type_identity_t<Col<T>> c) {
    return row.isNull(c) ? kUnknownTime : row.i64(c);
}

template <class To, const TableDef& T>
To as(const Row<T>& row, std::type_identity_t<Col<T>> c) {
    return static_cast<To>(row.i64(c));
}

Status readSession(const sqlite::Db& db, Report& r) {
    Status s = forEachRow<kSession>(db, "", [&](const Row<kSession>& row) -> Status {
        Session& x = r.session;
        x.workingDirectory = row.text("working_directory");
        x.hostName = row.text("host_name");
        x.os = row.text("os");
        x.cpuModel = row.text("cpu_model");
        x.toolVersion = row.text("tool_version");
        x.captureOptions = row.text("capture_options");
        x.source = row.text("source");
        x.startUtcNs = row.i64("start_utc_ns");
        x.startMonotonicNs = row.i64("start_monotonic_ns");
        x.durationNs = row.i64("duration_ns");
        return {};
    });
    if (s)
        s = forEachRow<kSessionArgv>(db, "ORDER BY idx",
                                     [&](const Row<kSessionArgv>& row) -> Status {
                                         r.session.argv.emplace_back(row.text("arg"));
                                         return {};
                                     });
    if (s)
        s = forEachRow<kSessionEnv>(db, "", [&](const Row<kSessionEnv>& row) -> Status {
            r.session.environment.emplace_back(std::string(row.text("name")),
                                               std::string(row.text("value")));
            return {};
        });
    return s;
}

Status readProcesses(const sqlite::Db& db, Report& r) {
    Status s = forEachRow<kProcesses>(db, "", [&](const Row<kProcesses>& row) -> Status {
        Process p;
        p.pid = row.i64("pid");
        p.parentPid = row.i64("parent_pid");
        p.name = row.text("name");
        p.commandLine = row.text("command_line");
        p.start = timeOrNull(row, "start_ns");
        p.end = timeOrNull(row, "end_ns");
        p.exitCode = as<int32_t>(row, "exit_code");
        p.exitSignal = as<int32_t>(row, "exit_signal");
        r.processes.push_back(std::move(p));
        return {};
    });
    if (s)
        s = forEachRow<kProcessReparents>(db, "", [&](const Row<kProcessReparents>& row) -> Status {
            r.reparents.push_back({row.i64("pid"), timeOrNull(row, "time_ns"), row.i64("from_pid"),
                                   row.i64("to_pid")});
            return {};
        });
    if (s)
        s = forEachRow<kProcessMpiRanks>(db, "", [&](const Row<kProcessMpiRanks>& row) -> Status {
            for (auto& p : r.processes)
                if (p.pid == row.i64("pid")) {
                    p.mpiRank = as<int32_t>(row, "rank");
                    p.mpiWorldSize = as<int32_t>(row, "world_size");
                }
            return {};
        });
    if (s)
        s = forEachRow<kThreads>(db, "", [&](const Row<kThreads>& row) -> Status {
            Thread t;
            t.tid = row.i64("tid");
            t.pid = row.i64("pid");
            t.name = row.text("name");
            t.start = timeOrNull(row, "start_ns");
            t.end = timeOrNull(row, "end_ns");
            r.threads.push_back(std::move(t));
            return {};
        });
    return s;
}

Status readDevices(const sqlite::Db& db, Report& r) {
    Status s = forEachRow<kGpus>(db, "", [&](const Row<kGpus>& row) -> Status {
        Gpu g;
        g.deviceId = as<int32_t>(row, "device_id");
        g.name = row.text("name");
        g.uuid = row.text("uuid");
        g.pciBusId = row.text("pci_bus_id");
        g.smCount = as<int32_t>(row, "sm_count");
        g.memoryBytes = row.i64("memory_bytes");
        g.computeMajor = as<int32_t>(row, "compute_major");
        g.computeMinor = as<int32_t>(row, "compute_minor");
        g.smClockKHz = row.i64("sm_clock_khz");
        g.memoryClockKHz = row.i64("memory_clock_khz");
        g.memoryBandwidthBytesPerSec = row.i64("memory_bandwidth");
        r.gpus.push_back(std::move(g));
        return {};
    });
    if (s)
        s = forEachRow<kCudaContexts>(db, "", [&](const Row<kCudaContexts>& row) -> Status {
            r.contexts.push_back({row.i64("pid"), as<int32_t>(row, "device_id"),
                                  as<uint32_t>(row, "context_id"), std::string(row.text("name"))});
            return {};
        });
    if (s)
        s = forEachRow<kCudaStreams>(db, "", [&](const Row<kCudaStreams>& row) -> Status {
            CudaStream c;
            c.pid = row.i64("pid");
            c.deviceId = as<int32_t>(row, "device_id");
            c.contextId = as<uint32_t>(row, "context_id");
            c.streamId = as<uint32_t>(row, "stream_id");
            c.priority = as<int32_t>(row, "priority");
            c.flags = as<uint32_t>(row, "flags");
            c.isDefault = row.i64("is_default") != 0;
            c.name = row.text("name");
            r.streams.push_back(std::move(c));
            return {};
        });
    if (s)
        s = forEachRow<kNvtxDomains>(db, "", [&](const Row<kNvtxDomains>& row) -> Status {
            r.nvtxDomains.push_back(
                {row.i64("pid"), as<uint32_t>(row, "domain_id"), std::string(row.text("name"))});
            return {};
        });
    if (s)
        s = forEachRow<kNvtxCategories>(db, "", [&](const Row<kNvtxCategories>& row) -> Status {
            r.nvtxCategories.push_back({row.i64("pid"), as<uint32_t>(row, "domain_id"),
                                        as<uint32_t>(row, "category"),
                                        std::string(row.text("name"))});
            return {};
        });
    if (s)
        s = forEachRow<kMetricSeries>(db, "", [&](const Row<kMetricSeries>& row) -> Status {
            r.metricSeries.push_back({as<uint32_t>(row, "series_id"), std::string(row.text("name")),
                                      std::string(row.text("unit")),
                                      std::string(row.text("source")),
                                      as<int32_t>(row, "device_id"), row.i64("pid")});
            return {};
        });
    return s;
}

// Tables whose rows refer to strings: read after `strings`, each reference checked.
Status readLaunchesAndStacks(const sqlite::Db& db, Report& r) {
    const int64_t nstrings = static_cast<int64_t>(r.strings.size());
    auto checkString = [nstrings](int64_t id, const char* what) -> Status {
        if (id < 0 || id >= nstrings)
            return makeError(std::string(what) + " refers to missing string " + std::to_string(id));
        return {};
    };
    Status s = forEachRow<kKernelLaunches>(
        db, "ORDER BY id", [&](const Row<kKernelLaunches>& row) -> Status {
            if (row.i64("id") != static_cast<int64_t>(r.kernelLaunches.size()))
                return makeError("launch ids are not contiguous");
            KernelLaunchInfo k;
            k.mangledName = as<uint32_t>(row, "mangled_name");
            k.shortName = as<uint32_t>(row, "short_name");
            if (Status c = checkString(k.mangledName, "mangled_name"); !c) return c;
            if (Status c = checkString(k.shortName, "short_name"); !c) return c;
            k.grid[0] = as<uint32_t>(row, "grid_x");
            k.grid[1] = as<uint32_t>(row, "grid_y");
            k.grid[2] = as<uint32_t>(row, "grid_z");
            k.block[0] = as<uint32_t>(row, "block_x");
            k.block[1] = as<uint32_t>(row, "block_y");
            k.block[2] = as<uint32_t>(row, "block_z");
            k.registersPerThread = as<uint32_t>(row, "registers");
            k.staticSharedBytes = as<uint32_t>(row, "static_shared");
            k.dynamicSharedBytes = as<uint32_t>(row, "dynamic_shared");
            k.localBytesPerThread = as<uint32_t>(row, "local_bytes");
            k.launchType = as<LaunchType>(row, "launch_type");
            k.graphId = as<uint32_t>(row, "graph_id");
            k.graphNodeId = as<uint64_t>(row, "graph_node_id");
            r.kernelLaunches.push_back(k);
            return {};
        });
    if (s)
        s = forEachRow<kStackFrames>(
            db, "ORDER BY id", [&](const Row<kStackFrames>& row) -> Status {
                if (row.i64("id") != static_cast<int64_t>(r.stackFrames.size()))
                    return makeError("frame ids are not contiguous");
                StackFrame f{as<uint32_t>(row, "function"), as<uint32_t>(row, "module"),
                             as<uint64_t>(row, "offset")};
                if (Status c = checkString(f.function, "function"); !c) return c;
                if (Status c = checkString(f.module, "module"); !c) return c;
                r.stackFrames.push_back(f);
                return {};
            });
    if (s)
        s = forEachRow<kCallStacks>(db, "ORDER BY id", [&](const Row<kCallStacks>& row) -> Status {
            const int64_t id = row.i64("id");
            if (id != static_cast<int64_t>(r.callStacks.size()))
                return makeError("stack ids are not contiguous");
            const std::string_view blob = row.blob("frames");
            if (blob.size() % sizeof(uint32_t) != 0)
                return makeError("stack " + std::to_string(id) + ": frames blob of " +
                                 std::to_string(blob.size()) +
                                 " bytes is not a whole number of frame ids");
            CallStack stack;
            stack.frames.resize(blob.size() / sizeof(uint32_t));
            if (!blob.empty()) std::memcpy(stack.frames.data(), blob.data(), blob.size());
            for (uint32_t f : stack.frames)
                if (f >= r.stackFrames.size())
                    return makeError("stack " + std::to_string(id) + " refers to missing frame " +
                                     std::to_string(f));
            r.callStacks.push_back(std::move(stack));
            return {};
        });
    return s;
}

// Backtraces of events (--python-backtrace): chunks of a sample-shaped track per
// (kind, pid, tid), in key order.
Status readBacktraces(const sqlite::Db& db, Report& r) {
    ChunkDecoder decoder;
    return forEachRow<kEventBacktraces>(
        db, "ORDER BY kind, pid, tid, seq", [&](const Row<kEventBacktraces>& row) -> Status {
            const int64_t kind = row.i64("kind");
            if (kind < 1 || kind > 255 || !findSchema(static_cast<uint8_t>(kind)))
                return {};  // a newer kind
            const int64_t count = row.i64("count"), rawBytes = row.i64("raw_bytes");
            const std::string_view blob = row.blob("data");
            if (count < 0 || count > (1 << 20) || rawBytes < 0)
                return makeError("a backtrace chunk has an invalid count or size");
            Track t(TrackKey::forThread(EventKind::CpuSample, row.i64("pid"), row.i64("tid")));
            if (Status d = decoder.decode(blob.data(), blob.size(), static_cast<uint64_t>(rawBytes),
                                          static_cast<uint32_t>(count),
                                          static_cast<uint64_t>(row.i64("checksum")), t,
                                          ~uint64_t{0}, /*lane=*/true);
                !d)
                return makeError("backtraces of thread " + std::to_string(t.key.tid) + ": " +
                                 d.error());
            for (size_t i = 0; i < t.size(); ++i) {
                EventBacktrace b;
                b.kind = static_cast<EventKind>(kind);
                b.pid = t.key.pid;
                b.tid = t.key.tid;
                b.start = t.start[i];
                const int64_t stack = t.intAt(cols::CpuSample::Stack, i);
                if (stack < 0 || static_cast<uint64_t>(stack) >= r.callStacks.size())
                    return makeError("a backtrace refers to missing stack " +
                                     std::to_string(stack));
                b.stack = static_cast<uint32_t>(stack);
                if (!r.backtraces.empty() && !(r.backtraces.back().key() < b.key()))
                    return makeError("backtraces are not in order");
                r.backtraces.push_back(b);
            }
            return {};
        });
}

}  // namespace

Status readMetadataTables(const sqlite::Db& db, Report& r) {
    Status s = readSession(db, r);
    if (s) s = readProcesses(db, r);
    if (s) s = readDevices(db, r);
    if (s)
        s = forEachRow<kStrings>(db, "ORDER BY id", [&](const Row<kStrings>& row) -> Status {
            if (row.i64("id") != static_cast<int64_t>(r.strings.size()))
                return makeError("string ids are not contiguous at id " +
                                 std::to_string(row.i64("id")));
            r.strings.appendRaw(row.blob("value"));
            return {};
        });
    if (s) s = readLaunchesAndStacks(db, r);
    if (s) s = readBacktraces(db, r);
    if (s)
        s = forEachRow<kDiagnostics>(db, "", [&](const Row<kDiagnostics>& row) -> Status {
            r.diagnostics.push_back({std::string(row.text("name")), row.i64("count"),
                                     std::string(row.text("reason")), row.i64("pid")});
            return {};
        });
    if (s)
        s = forEachRow<kProgramOutput>(db, "", [&](const Row<kProgramOutput>& row) -> Status {
            r.programOutput.push_back({row.i64("pid"), as<int32_t>(row, "stream"),
                                       row.i64("time_ns"), std::string(row.text("text"))});
            return {};
        });
    return s;
}

}  // namespace sl
