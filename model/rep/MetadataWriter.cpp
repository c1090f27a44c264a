#include "model/rep/MetadataWriter.h"

namespace sl {

using namespace repschema;

Status TableWriter::prepare(const TableDef& table) {
    if (!table.optional || m_db.hasTable(table.name)) return {};
    if (Status s = m_db.exec(createTableSql(table)); !s)
        return makeError("table '" + std::string(table.name) + "': " + s.error());
    return {};
}

TableWriter& TableWriter::fail(const Status& s) {
    m_status = makeError("cannot write to '" + m_file + "': " + s.error());
    return *this;
}

namespace {

// An unknown time (kUnknownTime) is stored as NULL.
template <const TableDef& T>
void setTime(Insert<T>& ins, std::type_identity_t<Col<T>> c, int64_t t) {
    if (t == kUnknownTime)
        ins.setNull(c);
    else
        ins.set(c, t);
}

void writeSession(TableWriter& w, const Session& x) {
    w.rows<kSession>(1, [&](Insert<kSession>& ins, size_t) {
        ins.set("working_directory", x.workingDirectory).set("host_name", x.hostName).set("os", x.os);
        ins.set("cpu_model", x.cpuModel).set("tool_version", x.toolVersion);
        ins.set("capture_options", x.captureOptions).set("source", x.source);
        ins.set("start_utc_ns", x.startUtcNs).set("start_monotonic_ns", x.startMonotonicNs);
        ins.set("duration_ns", x.durationNs);
    });
    w.rows<kSessionArgv>(x.argv.size(), [&](Insert<kSessionArgv>& ins, size_t i) {
        ins.set("idx", i).set("arg", x.argv[i]);
    });
    w.rows<kSessionEnv>(x.environment.size(), [&](Insert<kSessionEnv>& ins, size_t i) {
        ins.set("name", x.environment[i].first).set("value", x.environment[i].second);
    });
}

void writeProcesses(TableWriter& w, const Report& m) {
    w.rows<kProcesses>(m.processes.size(), [&](Insert<kProcesses>& ins, size_t i) {
        const Process& p = m.processes[i];
        ins.set("pid", p.pid).set("parent_pid", p.parentPid);
        ins.set("name", p.name).set("command_line", p.commandLine);
        setTime(ins, "start_ns", p.start);
        setTime(ins, "end_ns", p.end);
        ins.set("exit_code", p.exitCode).set("exit_signal", p.exitSignal);
    });
    w.rows<kProcessReparents>(m.reparents.size(), [&](Insert<kProcessReparents>& ins, size_t i) {
        const ProcessReparent& rp = m.reparents[i];
        ins.set("pid", rp.pid).set("from_pid", rp.fromPid).set("to_pid", rp.toPid);
        setTime(ins, "time_ns", rp.time);
    });
    std::vector<const Process*> ranked;
    for (const auto& p : m.processes)
        if (p.mpiRank >= 0) ranked.push_back(&p);
    w.rows<kProcessMpiRanks>(ranked.size(), [&](Insert<kProcessMpiRanks>& ins, size_t i) {
        ins.set("pid", ranked[i]->pid).set("rank", ranked[i]->mpiRank);
        ins.set("world_size", ranked[i]->mpiWorldSize);
    });
    w.rows<kThreads>(m.threads.size(), [&](Insert<kThreads>& ins, size_t i) {
        const Thread& t = m.threads[i];
        ins.set("tid", t.tid).set("pid", t.pid).set("name", t.name);
        setTime(ins, "start_ns", t.start);
        setTime(ins, "end_ns", t.end);
    });
}

void writeDevices(TableWriter& w, const Report& m) {
    w.rows<kGpus>(m.gpus.size(), [&](Insert<kGpus>& ins, size_t i) {
        const Gpu& g = m.gpus[i];
        ins.set("device_id", g.deviceId).set("name", g.name).set("uuid", g.uuid);
        ins.set("pci_bus_id", g.pciBusId).set("sm_count", g.smCount);
        ins.set("memory_bytes", g.memoryBytes).set("compute_major", g.computeMajor);
        ins.set("compute_minor", g.computeMinor).set("sm_clock_khz", g.smClockKHz);
        ins.set("memory_clock_khz", g.memoryClockKHz);
        ins.set("memory_bandwidth", g.memoryBandwidthBytesPerSec);
    });
    w.rows<kCudaContexts>(m.contexts.size(), [&](Insert<kCudaContexts>& ins, size_t i) {
        const CudaContext& c = m.contexts[i];
        ins.set("pid", c.pid).set("device_id", c.deviceId);
        ins.set("context_id", c.contextId).set("name", c.name);
    });
    w.rows<kCudaStreams>(m.streams.size(), [&](Insert<kCudaStreams>& ins, size_t i) {
        const CudaStream& c = m.streams[i];
        ins.set("pid", c.pid).set("device_id", c.deviceId).set("context_id", c.contextId);
        ins.set("stream_id", c.streamId).set("priority", c.priority).set("flags", c.flags);
        ins.set("is_default", c.isDefault).set("name", c.name);
    });
    w.rows<kNvtxDomains>(m.nvtxDomains.size(), [&](Insert<kNvtxDomains>& ins, size_t i) {
        const NvtxDomain& d = m.nvtxDomains[i];
        ins.set("pid", d.pid).set("domain_id", d.domainId).set("name", d.name);
    });
    w.rows<kNvtxCategories>(m.nvtxCategories.size(), [&](Insert<kNvtxCategories>& ins, size_t i) {
        const NvtxCategory& c = m.nvtxCategories[i];
        ins.set("pid", c.pid).set("domain_id", c.domainId);
        ins.set("category", c.category).set("name", c.name);
    });
    w.rows<kMetricSeries>(m.metricSeries.size(), [&](Insert<kMetricSeries>& ins, size_t i) {
        const MetricSeries& x = m.metricSeries[i];
        ins.set("series_id", x.seriesId).set("name", x.name).set("unit", x.unit);
        ins.set("source", x.source).set("device_id", x.deviceId).set("pid", x.pid);
    });
}

void writeLaunchesAndStacks(TableWriter& w, const Report& m) {
    w.rows<kKernelLaunches>(m.kernelLaunches.size(), [&](Insert<kKernelLaunches>& ins, size_t i) {
        const KernelLaunchInfo& k = m.kernelLaunches[i];
        ins.set("id", i).set("mangled_name", k.mangledName).set("short_name", k.shortName);
        ins.set("grid_x", k.grid[0]).set("grid_y", k.grid[1]).set("grid_z", k.grid[2]);
        ins.set("block_x", k.block[0]).set("block_y", k.block[1]).set("block_z", k.block[2]);
        ins.set("registers", k.registersPerThread).set("static_shared", k.staticSharedBytes);
        ins.set("dynamic_shared", k.dynamicSharedBytes).set("local_bytes", k.localBytesPerThread);
        ins.set("launch_type", static_cast<int64_t>(k.launchType));
        ins.set("graph_id", k.graphId).set("graph_node_id", k.graphNodeId);
    });
    w.rows<kStackFrames>(m.stackFrames.size(), [&](Insert<kStackFrames>& ins, size_t i) {
        const StackFrame& f = m.stackFrames[i];
        ins.set("id", i).set("function", f.function).set("module", f.module);
        ins.set("offset", f.offset);
    });
    // Frame ids as little-endian uint32, leaf first (the machines we run on are little-endian;
    // the reader checks the blob's length).
    w.rows<kCallStacks>(m.callStacks.size(), [&](Insert<kCallStacks>& ins, size_t i) {
        const auto& frames = m.callStacks[i].frames;
        ins.set("id", i).setBlob("frames", frames.data(), frames.size() * sizeof(uint32_t));
    });
}

// Backtraces of one (kind, pid, tid), in start order, as chunks of a sample-shaped track
// (start = the event's start, stack = the backtrace): the chunk codec's delta coding and zstd
// make them about a byte each where rows of integers took about 90.
void writeBacktraces(TableWriter& w, const std::vector<EventBacktrace>& all, ChunkEncoder& encoder) {
    constexpr size_t kPerChunk = 1 << 16;
    std::vector<size_t> firsts;  // where each row's backtraces begin
    for (size_t i = 0; i < all.size(); ++i) {
        const bool same = i > 0 && i - firsts.back() < kPerChunk && all[i].kind == all[i - 1].kind &&
                          all[i].pid == all[i - 1].pid && all[i].tid == all[i - 1].tid;
        if (!same) firsts.push_back(i);
    }
    EncodedChunk chunk;
    w.rows<kEventBacktraces>(firsts.size(), [&](Insert<kEventBacktraces>& ins, size_t row) -> Status {
        const size_t b = firsts[row], e = row + 1 < firsts.size() ? firsts[row + 1] : all.size();
        const EventBacktrace& first = all[b];
        Track t(TrackKey::forThread(EventKind::CpuSample, first.pid, first.tid));
        for (size_t i = b; i < e; ++i) {
            const int64_t extra[] = {static_cast<int64_t>(all[i].stack), 0};
            t.append(all[i].start, all[i].start, 0, extra);
        }
        if (Status s = encoder.encode(t, 0, t.size(), chunk); !s) return s;
        ins.set("kind", static_cast<int64_t>(first.kind)).set("pid", first.pid);
        ins.set("tid", first.tid).set("seq", b).set("count", chunk.count);
        ins.set("raw_bytes", chunk.rawBytes).set("checksum", chunk.checksum);
        ins.setBlob("data", chunk.blob.data(), chunk.blob.size());
        return {};
    });
}

}  // namespace

void writeMetadataTables(TableWriter& w, const Report& m, ChunkEncoder& encoder) {
    writeSession(w, m.session);
    writeProcesses(w, m);
    writeDevices(w, m);
    writeLaunchesAndStacks(w, m);
    writeBacktraces(w, m.backtraces, encoder);
    w.rows<kDiagnostics>(m.diagnostics.size(), [&](Insert<kDiagnostics>& ins, size_t i) {
        const Diagnostic& d = m.diagnostics[i];
        ins.set("name", d.name).set("count", d.count).set("reason", d.reason).set("pid", d.pid);
    });
    w.rows<kProgramOutput>(m.programOutput.size(), [&](Insert<kProgramOutput>& ins, size_t i) {
        const ProgramOutput& o = m.programOutput[i];
        // Bytes, not text: each row is one read of the pipe, and repairing each as UTF-8 on
        // its own turned a character split between two reads into two U+FFFD.
        ins.set("pid", o.pid).set("stream", o.stream).set("time_ns", o.time)
            .setBlob("text", o.text.data(), o.text.size());
    });
    // Ids 1..N (0, the empty string, is not stored).
    const size_t strings = m.strings.size() > 1 ? m.strings.size() - 1 : 0;
    w.rows<kStrings>(strings, [&](Insert<kStrings>& ins, size_t i) {
        const std::string_view v = m.strings.get(static_cast<uint32_t>(i + 1));
        ins.set("id", i + 1).setBlob("value", v.data(), v.size());
    });
}

}  // namespace sl
