#include "model/analysis/StatsCommon.h"
#include "model/export/ChromeTraceExporter.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <set>

#include "model/analysis/CorrelationIndex.h"
#include "model/analysis/CudaLibCall.h"
#include "model/analysis/MpiCall.h"
#include "model/analysis/OpenMpConstruct.h"
#include "model/export/ChromeStackFrames.h"
#include "model/util/JsonWriter.h"
#include "model/util/OutputTarget.h"

namespace sl::exporter {
namespace {

class Writer {
public:
    explicit Writer(std::FILE* f) : m_f(f) { m_buf.reserve(1 << 20); }
    ~Writer() { flush(); }
    Writer& raw(std::string_view s) {
        m_buf += s;
        if (m_buf.size() > (1 << 20)) flush();
        return *this;
    }
    Writer& str(std::string_view s) {
        JsonWriter::escape(m_buf, s);  // adds the quotes
        return *this;
    }
    Writer& num(int64_t v) {
        char b[24];
        auto r = std::to_chars(b, b + sizeof b, v);
        m_buf.append(b, r.ptr);
        return *this;
    }
    // Nanoseconds as microseconds with three exact decimals.
    Writer& us(int64_t ns) {
        if (ns < 0) {
            m_buf += '-';
            ns = -ns;
        }
        num(ns / 1000);
        char b[5] = {'.', char('0' + ns % 1000 / 100), char('0' + ns % 100 / 10), char('0' + ns % 10), 0};
        m_buf += b;
        return *this;
    }
    Writer& real(double v) {
        char b[32];
        int n = std::snprintf(b, sizeof b, "%.17g", v);
        if (std::string_view(b, static_cast<size_t>(n)).find_first_of("ni") != std::string_view::npos) m_buf += "null";
        else m_buf.append(b, static_cast<size_t>(n));
        return *this;
    }
    // Starts the next event object (with the separating comma).
    Writer& event() {
        if (m_events++) m_buf += ",\n";
        m_buf += '{';
        return *this;
    }
    void flush() {
        if (!m_buf.empty()) std::fwrite(m_buf.data(), 1, m_buf.size(), m_f);
        m_buf.clear();
    }
    uint64_t events() const { return m_events; }

private:
    std::FILE* m_f;
    std::string m_buf;
    uint64_t m_events = 0;
};

std::string_view category(EventKind k) {
    switch (k) {
        case EventKind::CudaApi: return "cuda_api";
        case EventKind::OsRuntime: return "osrt";
        case EventKind::NvtxRange: return "nvtx";
        case EventKind::NvtxMark: return "nvtx";
        case EventKind::Kernel: return "kernel";
        case EventKind::Memcpy: return "memcpy";
        case EventKind::Memset: return "memset";
        case EventKind::Sync: return "sync";
        case EventKind::GraphTrace: return "cuda_graph";
        case EventKind::CuptiOverhead: return "overhead";
        case EventKind::ThreadState: return "thread_state";
        case EventKind::CpuSample: return "cpu_sample";
        case EventKind::Mpi: return "mpi";
        case EventKind::OpenMp: return "openmp";
        case EventKind::Cublas: return "cublas";
        case EventKind::Cudnn: return "cudnn";
        case EventKind::Nccl: return "nccl";
        default: return "other";
    }
}

// A sample is named by its leaf function, or "module+0x..." when that is unresolved.
std::string sampleName(const Report& r, const Track& t, size_t i) {
    if (t.nameAt(i) != 0) return std::string(r.str(t.nameAt(i)));
    const auto stack = static_cast<size_t>(t.intAt(cols::CpuSample::Stack, i));
    if (stack >= r.callStacks.size() || r.callStacks[stack].frames.empty()) return "[no call stack]";
    return r.frameText(r.callStacks[stack].frames.front());
}

std::string eventName(const Report& r, const Track& t, size_t i) {
    switch (t.key.kind) {
        case EventKind::CpuSample: return sampleName(r, t, i);
        case EventKind::Memcpy: {
            std::string s = "Memcpy ";
            s += copyKindName(static_cast<CopyKind>(t.col<uint8_t>(cols::Memcpy::CopyKind)[i]));
            return s;
        }
        case EventKind::Memset: return "Memset";
        case EventKind::Sync: return std::string(syncTypeName(static_cast<SyncType>(t.col<uint8_t>(cols::Sync::SyncType)[i])));
        case EventKind::ThreadState: return "Running";
        case EventKind::CuptiOverhead: return "CUPTI overhead";
        default: return std::string(r.str(t.nameAt(i)));
    }
}

std::string hexText(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

// An MPI call's args: its class and the columns it has (ranks and tags of -1, sizes and
// handles of 0 are left out); handles as hex strings (64-bit values do not survive a double).
void writeMpiArgs(Writer& w, const Track& t, size_t i) {
    const analysis::MpiCall c = analysis::mpiCallAt(t, i);
    w.raw(",\"args\":{\"class\":").str(mpiCallClassName(c.callClass));
    if (c.peer >= 0) w.raw(",\"peer\":").num(c.peer);
    if (c.tag >= 0) w.raw(",\"tag\":").num(c.tag);
    if (c.root >= 0) w.raw(",\"root\":").num(c.root);
    if (c.bytes != 0) w.raw(",\"bytes\":").num(c.bytes);
    if (c.recvBytes != 0) w.raw(",\"recv_bytes\":").num(c.recvBytes);
    if (c.comm != 0) w.raw(",\"comm\":").str(hexText(c.comm));
    if (c.request != 0) w.raw(",\"request\":").str(hexText(c.request));
    w.raw("}");
}

// An OpenMP event's args: the construct in words, then OMPT's kind value, the region and task
// ids, the count (iterations, requested threads, team size) and the thread number where set
// (kind, ids and count 0, index -1 left out), and the code address as a hex string.
void writeOpenMpArgs(Writer& w, const Track& t, size_t i) {
    const analysis::OpenMpConstruct c = analysis::openMpAt(t, i);
    w.raw(",\"args\":{\"construct\":").str(analysis::openMpConstructText(c));
    if (c.kind != 0) w.raw(",\"kind\":").num(static_cast<int64_t>(c.kind));
    if (c.parallelId != 0) w.raw(",\"parallel_id\":").num(static_cast<int64_t>(c.parallelId));
    if (c.taskId != 0) w.raw(",\"task_id\":").num(static_cast<int64_t>(c.taskId));
    if (c.count > 0) w.raw(",\"count\":").num(c.count);
    if (c.index >= 0) w.raw(",\"index\":").num(c.index);
    if (c.codePtr != 0) w.raw(",\"code_ptr\":").str(hexText(c.codePtr));
    w.raw("}");
}

// A cuBLAS, cuDNN or NCCL call's args: its status, handle (NCCL: communicator) and stream as hex
// strings, and NCCL's operation arguments where the call has them.
void writeCudaLibArgs(Writer& w, const Track& t, size_t i) {
    const analysis::CudaLibCall c = analysis::cudaLibCallAt(t, i);
    w.raw(",\"args\":{\"status\":").num(c.status);
    if (c.handle != 0) w.raw(t.key.kind == EventKind::Nccl ? ",\"comm\":" : ",\"handle\":").str(hexText(c.handle));
    w.raw(",\"stream\":").str(hexText(c.stream));
    if (c.count >= 0) w.raw(",\"count\":").num(c.count).raw(",\"bytes\":").num(c.bytes);
    if (!analysis::ncclDataTypeName(c.datatype).empty())
        w.raw(",\"datatype\":").str(analysis::ncclDataTypeName(c.datatype));
    if (!analysis::ncclRedOpName(c.redop).empty()) w.raw(",\"op\":").str(analysis::ncclRedOpName(c.redop));
    if (c.peer >= 0) w.raw(",\"peer\":").num(c.peer);
    if (c.rank >= 0) w.raw(",\"rank\":").num(c.rank);
    if (c.ranks >= 0) w.raw(",\"ranks\":").num(c.ranks);
    w.raw("}");
}

// Writes `,"samples":[...]` when the window holds CPU samples; returns how many.
uint64_t writeSamples(Writer& w, const Report& r, const ExportOptions& o, ChromeStackFrames& frames, int64_t origin) {
    uint64_t n = 0;
    for (const Track* t : r.tracksOfKind(EventKind::CpuSample))
        for (size_t i = 0; i < t->size(); ++i) {
            if (!o.inWindow(t->start[i], t->start[i])) continue;
            w.raw(n++ ? ",\n{" : ",\n\"samples\":[\n{");
            w.raw("\"cpu\":").num(t->intAt(cols::CpuSample::Cpu, i)).raw(",\"pid\":").num(t->key.pid);
            w.raw(",\"tid\":").num(t->key.tid).raw(",\"ts\":").us(t->start[i] - origin);
            w.raw(",\"name\":").str(sampleName(r, *t, i));
            const int64_t sf = frames.leafNode(static_cast<uint32_t>(t->intAt(cols::CpuSample::Stack, i)));
            if (sf >= 0) w.raw(",\"sf\":").num(sf);
            w.raw(",\"weight\":1}");
        }
    if (n) w.raw("\n]");
    return n;
}

}  // namespace

int64_t streamTrackTid(int32_t device, uint32_t stream) {
    return 1'000'000'000 + static_cast<int64_t>(device) * 1'000'000 + stream;
}

Result<ExportStats> exportChromeTrace(const Report& r, const std::string& wanted, const ExportOptions& o) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool toStdout = wanted == "-";
    if (!toStdout && fs::exists(fs::symlink_status(wanted, ec)) && !o.overwrite)
        return makeError(wanted + " already exists (use --force-overwrite to replace it)");
    // Written beside and renamed over: through a symbolic link to its file, never over a device.
    auto target = toStdout ? Result<std::string>(wanted) : outputTarget(wanted);
    if (!target) return makeError(target.error());
    const std::string& path = *target;
    const std::string tmp = toStdout ? "" : path + ".tmp-export";
    std::FILE* f = toStdout ? stdout : std::fopen(tmp.c_str(), "wb");
    if (!f) return makeError("cannot create " + tmp);
    const int64_t origin = r.timeOrigin();
    ExportStats stats;
    uint64_t flows = 0, samples = 0;
    {
        Writer w(f);
        w.raw("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"sightline\",\"source\":");
        w.str(r.session.source);
        // What the capture or import lost or left out, so that a reader of the JSON alone
        // still knows (chrome://tracing shows otherData as the trace's metadata).
        w.raw(",\"diagnostics\":[");
        for (size_t k = 0; k < r.diagnostics.size(); ++k) {
            const Diagnostic& d = r.diagnostics[k];
            w.raw(k ? ",\n{\"name\":" : "\n{\"name\":").str(d.name).raw(",\"count\":").num(d.count);
            w.raw(",\"reason\":").str(d.reason);
            if (d.pid > 0) w.raw(",\"pid\":").num(d.pid);
            w.raw("}");
        }
        w.raw("]},\n\"traceEvents\":[\n");
        // Step 1: names of processes, threads and GPU stream tracks.
        std::set<int64_t> pids;
        for (const auto& p : r.processes) {
            pids.insert(p.pid);
            w.event().raw("\"ph\":\"M\",\"name\":\"process_name\",\"pid\":").num(p.pid).raw(",\"args\":{\"name\":");
            w.str(p.name.empty() ? "pid " + std::to_string(p.pid) : p.name + " (" + std::to_string(p.pid) + ")").raw("}}");
            if (p.mpiRank >= 0) {  // -t mpi: the rank as the process's label
                w.event().raw("\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":").num(p.pid);
                w.raw(",\"args\":{\"labels\":").str("MPI rank " + std::to_string(p.mpiRank)).raw("}}");
            }
        }
        for (const auto& t : r.threads) {
            w.event().raw("\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":").num(t.pid).raw(",\"tid\":").num(t.tid);
            w.raw(",\"args\":{\"name\":").str(t.name.empty() ? "thread " + std::to_string(t.tid) : t.name).raw("}}");
        }
        std::set<std::tuple<int64_t, int32_t, uint32_t>> streams;
        for (const auto& t : r.tracks)
            if (schemaOf(t.key.kind).owner == OwnerKind::Stream) streams.insert({t.key.pid, t.key.device, t.key.stream});
        for (const auto& [pid, dev, stream] : streams) {
            const int64_t tid = streamTrackTid(dev, stream);
            std::string name = "GPU " + std::to_string(dev) + " stream " + std::to_string(stream);
            for (const auto& s : r.streams)
                if (s.pid == pid && s.deviceId == dev && s.streamId == stream && !s.name.empty()) name += " (" + s.name + ")";
            w.event().raw("\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":").num(pid).raw(",\"tid\":").num(tid);
            w.raw(",\"args\":{\"name\":").str(name).raw("}}");
            w.event().raw("\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":").num(pid).raw(",\"tid\":").num(tid);
            w.raw(",\"args\":{\"sort_index\":").num(tid).raw("}}");
        }
        // Step 2: slices, instants and counters. CPU samples are instants too (Perfetto UI reads
        // no "samples" array from JSON) and carry "sf", their stack's leaf in "stackFrames".
        analysis::CorrelationIndex ci(r);
        ChromeStackFrames frames(r);
        for (uint32_t ti = 0; ti < r.tracks.size(); ++ti) {
            const Track& t = r.tracks[ti];
            const KindSchema& s = t.schema();
            const bool gpu = s.owner == OwnerKind::Stream;
            const int64_t tid = gpu ? streamTrackTid(t.key.device, t.key.stream) : t.key.tid;
            const std::string_view cat = category(t.key.kind);
            for (uint32_t i = 0; i < t.size(); ++i) {
                if (!o.inWindow(t.start[i], t.endAt(i))) continue;
                ++stats.rows;
                if (t.key.kind == EventKind::Metric) {
                    const MetricSeries* ms = r.findSeries(t.key.series);
                    std::string name = ms ? ms->name : "series " + std::to_string(t.key.series);
                    if (ms && ms->deviceId >= 0) name += " (GPU " + std::to_string(ms->deviceId) + ")";
                    w.event().raw("\"ph\":\"C\",\"name\":").str(name).raw(",\"pid\":").num(ms ? ms->pid : 0);
                    w.raw(",\"ts\":").us(t.start[i] - origin).raw(",\"args\":{\"value\":");
                    w.real(t.col<double>(cols::Metric::Value)[i]).raw("}}");
                    continue;
                }
                if (t.key.kind == EventKind::CudaMemory) continue;  // allocations are in the SQLite export
                w.event().raw("\"ph\":").raw(s.hasEnd ? "\"X\"" : "\"i\",\"s\":\"t\"");
                w.raw(",\"cat\":\"").raw(cat).raw("\",\"name\":").str(eventName(r, t, i));
                w.raw(",\"pid\":").num(t.key.pid).raw(",\"tid\":").num(tid).raw(",\"ts\":").us(t.start[i] - origin);
                if (s.hasEnd) w.raw(",\"dur\":").us(t.end[i] - t.start[i]);
                // --python-backtrace: the stack at the event's start, as the format's "sf".
                if (!gpu && t.key.kind != EventKind::CpuSample && !r.backtraces.empty())
                    if (const CallStack* bt = r.backtraceOf(t.key.kind, t.key.pid, t.key.tid, t.start[i]))
                        if (const int64_t sf = frames.leafNode(static_cast<uint32_t>(bt - r.callStacks.data())); sf >= 0)
                            w.raw(",\"sf\":").num(sf);
                if (t.key.kind == EventKind::CpuSample) {
                    const int64_t sf = frames.leafNode(static_cast<uint32_t>(t.intAt(cols::CpuSample::Stack, i)));
                    if (sf >= 0) w.raw(",\"sf\":").num(sf);
                    w.raw(",\"args\":{\"cpu\":").num(t.intAt(cols::CpuSample::Cpu, i)).raw("}");
                }
                if (t.key.kind == EventKind::NvtxRange || t.key.kind == EventKind::NvtxMark) {
                    // The category as its name when it has one, else its number; none for 0.
                    if (const uint32_t c = t.col<uint32_t>(cols::Nvtx::Category)[i]) {
                        w.raw(",\"args\":{\"category\":");
                        if (std::string_view n = r.categoryName(t.key.pid, t.key.domain, c); !n.empty())
                            w.str(n);
                        else
                            w.num(c);
                        w.raw("}");
                    }
                }
                if (t.key.kind == EventKind::Mpi) writeMpiArgs(w, t, i);
                if (t.key.kind == EventKind::OpenMp) writeOpenMpArgs(w, t, i);
                if (analysis::isCudaLibKind(t.key.kind)) writeCudaLibArgs(w, t, i);
                if (t.key.kind == EventKind::CudaApi || gpu) {
                    const uint32_t corr = t.col<uint32_t>(0)[i];
                    w.raw(",\"args\":{\"correlation\":").num(corr);
                    if (t.key.kind == EventKind::Memcpy || t.key.kind == EventKind::Memset)
                        w.raw(",\"bytes\":").num(t.intAt(1, i));
                    w.raw("}");
                }
                w.raw("}");
                // Step 3: a flow from the launching call to each GPU operation.
                if (gpu && analysis::CorrelationIndex::isGpuOpKind(t.key.kind)) {
                    analysis::EventRef api = ci.launcherOf({ti, i});
                    if (!api.valid()) continue;
                    const Track& at = r.tracks[api.track];
                    if (!o.inWindow(at.start[api.index], at.end[api.index])) continue;
                    const int64_t id = static_cast<int64_t>(++flows);
                    w.event().raw("\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":").num(id);
                    w.raw(",\"pid\":").num(at.key.pid).raw(",\"tid\":").num(at.key.tid).raw(",\"ts\":").us(at.start[api.index] - origin);
                    w.raw("}");
                    w.event().raw("\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":").num(id);
                    w.raw(",\"pid\":").num(t.key.pid).raw(",\"tid\":").num(tid).raw(",\"ts\":").us(t.start[i] - origin);
                    w.raw("}");
                }
            }
        }
        w.raw("\n]");
        // Step 4: the trace format's own sample records ("samples" + "stackFrames"), which
        // chrome://tracing and speedscope turn into CPU profiles.
        samples = writeSamples(w, r, o, frames, origin);
        if (frames.nodeCount() > 0) w.raw(",\n").raw(frames.json());
        w.raw("}\n");
        w.flush();
    }
    stats.tables.emplace_back("traceEvents", stats.rows);
    stats.tables.emplace_back("flows", flows);
    if (samples) stats.tables.emplace_back("samples", samples);
    if (toStdout) {
        std::fflush(stdout);
        return stats;
    }
    const bool bad = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || bad) {
        fs::remove(tmp, ec);
        return makeError("error writing " + tmp);
    }
    fs::rename(tmp, path, ec);
    if (ec) return makeError("cannot rename " + tmp + " to " + path + ": " + ec.message());
    return stats;
}

}  // namespace sl::exporter
