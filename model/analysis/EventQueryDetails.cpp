#include "model/analysis/EventQueryDetails.h"

#include <bit>
#include <cstdio>

#include "model/analysis/CudaLibCall.h"
#include "model/analysis/EventQuery.h"
#include "model/analysis/EventQueryColumns.h"
#include "model/analysis/MpiCall.h"
#include "model/analysis/OpenMpConstruct.h"
#include "model/analysis/StatsCommon.h"
#include "model/util/Format.h"

namespace sl::analysis {
namespace {

constexpr size_t kTooltipFrames = 12;  // a tooltip's call stack: the leaf and its nearest callers

// The fields collected for one event, in the form asked for: the tooltip form keeps the key
// fields (key()), the full form every field (push_back() adds one to the full form only). The
// costly fields (a scan over other tracks) are computed only when full().
class Fields {
public:
    explicit Fields(DetailForm form) : m_form(form) {}
    bool full() const { return m_form == DetailForm::Full; }
    void key(EventField f) { m_out.push_back(std::move(f)); }
    void push_back(EventField f) {
        if (full()) m_out.push_back(std::move(f));
    }
    std::vector<EventField> take() { return std::move(m_out); }

private:
    DetailForm m_form;
    std::vector<EventField> m_out;
};

// A call stack, a frame per field (the first named `label`, the others unnamed). The tooltip
// form lists the leaf and its nearest callers and counts the rest.
void frameFields(const Report& r, const std::string& label, const std::vector<uint32_t>& frames,
                 Fields& f) {
    const size_t shown = f.full() ? frames.size() : std::min(frames.size(), kTooltipFrames);
    for (size_t k = 0; k < shown; ++k) f.key({k == 0 ? label : "", r.frameText(frames[k])});
    if (frames.size() > shown)
        f.key(
            {"", "... " + std::to_string(frames.size() - shown) + " more frames (click: details)"});
    if (frames.empty()) f.key({label, "(empty)"});
}

std::string hex(uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string dims(const uint32_t v[3]) {
    return std::to_string(v[0]) + " x " + std::to_string(v[1]) + " x " + std::to_string(v[2]);
}

std::string timeText(const Report& r, int64_t t) {
    return formatDuration(t - r.timeOrigin()) + " (" + std::to_string(t) + " ns)";
}

std::string bytesText(uint64_t b) {
    // The exact count beside a rounded size; a size already in bytes says it once ("64 B").
    const std::string human = formatBytes(b), exact = std::to_string(b) + " B";
    return human == exact ? human : human + " (" + exact + ")";
}

std::string payloadText(PayloadType type, uint64_t bits) {
    switch (type) {
        case PayloadType::None:
            return "";
        case PayloadType::U64:
            return std::to_string(bits);
        case PayloadType::I64:
            return std::to_string(static_cast<int64_t>(bits));
        case PayloadType::U32:
            return std::to_string(static_cast<uint32_t>(bits));
        case PayloadType::I32:
            return std::to_string(static_cast<int32_t>(bits));
        case PayloadType::F64:
            return std::to_string(std::bit_cast<double>(bits));
        case PayloadType::F32:
            return std::to_string(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    }
    return std::to_string(bits);
}

std::string apiCallText(const Report& r, EventRef api) {
    const Track& t = r.tracks[api.track];
    return std::string(apiDisplayName(r.str(t.nameAt(api.index)))) + " on " +
           r.threadTitle(t.key.pid, t.key.tid) + " at " +
           formatDuration(t.start[api.index] - r.timeOrigin());
}

void kernelFields(const Report& r, const Track& t, size_t i, Fields& f) {
    const uint32_t li = t.col<uint32_t>(cols::Kernel::Launch)[i];
    if (li >= r.kernelLaunches.size()) {
        f.key({"Launch configuration", "missing (index " + std::to_string(li) + ")"});
        return;
    }
    const KernelLaunchInfo& k = r.kernelLaunches[li];
    f.key({"Grid", dims(k.grid)});
    f.key({"Block", dims(k.block)});
    f.key({"Registers per thread", std::to_string(k.registersPerThread)});
    f.key({"Static shared memory", bytesText(k.staticSharedBytes)});
    f.key({"Dynamic shared memory", bytesText(k.dynamicSharedBytes)});
    f.push_back({"Local memory per thread", bytesText(k.localBytesPerThread)});
    f.push_back({"Launch type", std::to_string(static_cast<int>(k.launchType))});
    f.push_back({"Mangled name", std::string(r.str(k.mangledName))});
    f.push_back({"Short name", std::string(r.str(k.shortName))});
    if (k.graphId) {
        f.push_back({"Graph ID", std::to_string(k.graphId)});
        f.push_back({"Graph node ID", std::to_string(k.graphNodeId)});
    }
}

void memcpyFields(const Track& t, size_t i, Fields& f) {
    const auto bytes = static_cast<uint64_t>(t.intAt(cols::Memcpy::Bytes, i));
    f.key({"Size", bytesText(bytes)});
    f.key({"Copy kind", std::string(memcpyKindLabel(
                            static_cast<CopyKind>(t.intAt(cols::Memcpy::CopyKind, i))))});
    f.key({"Source memory", std::string(memoryKindName(
                                static_cast<MemoryKind>(t.intAt(cols::Memcpy::SrcKind, i))))});
    f.key({"Destination memory", std::string(memoryKindName(
                                     static_cast<MemoryKind>(t.intAt(cols::Memcpy::DstKind, i))))});
    f.push_back({"Source device", std::to_string(t.intAt(cols::Memcpy::SrcDevice, i))});
    f.push_back({"Destination device", std::to_string(t.intAt(cols::Memcpy::DstDevice, i))});
    f.push_back({"Asynchronous", (t.intAt(cols::Memcpy::Flags, i) & 1) ? "yes" : "no"});
    const int64_t d = t.durationAt(i);
    if (d > 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f GB/s",
                      static_cast<double>(bytes) / static_cast<double>(d));
        f.key({"Throughput", buf});
    }
}

void nvtxFields(const Report& r, const Track& t, size_t i, bool range, Fields& f) {
    if (t.key.device >= 0) {  // projected onto a GPU (the viewer's rows): times and name only
        f.key({"Projected onto", "GPU " + std::to_string(t.key.device)});
        return;
    }
    f.key({"Domain", std::string(r.domainName(t.key.pid, t.key.domain))});
    const auto cat = static_cast<uint32_t>(t.intAt(cols::Nvtx::Category, i));
    std::string catName = std::to_string(cat);
    if (std::string_view name = r.categoryName(t.key.pid, t.key.domain, cat); !name.empty())
        catName = std::string(name) + " (" + catName + ")";
    f.key({"Category", catName});
    const auto color = static_cast<uint32_t>(t.intAt(cols::Nvtx::Color, i));
    f.push_back({"Color", color ? hex(color) : "none"});
    const auto pt = static_cast<PayloadType>(t.intAt(cols::Nvtx::PayloadType, i));
    f.key({"Payload", pt == PayloadType::None ? "none"
                                              : payloadText(pt, static_cast<uint64_t>(t.intAt(
                                                                    cols::Nvtx::Payload, i))) +
                                                    " (" + std::string(payloadTypeName(pt)) + ")"});
    if (range) {
        f.push_back({"Range type", std::string(nvtxStyle(t, i))});
        const int64_t endTid = t.intAt(cols::Nvtx::EndTid, i);
        if (endTid) f.push_back({"Ended by", r.threadTitle(t.key.pid, endTid)});
    }
}

// An MPI call's columns in words ("Call class": "Kind" is already the event kind); those it
// does not have (-1 ranks and tags, 0 sizes and handles) are left out.
void mpiFields(const Track& t, size_t i, Fields& f) {
    const MpiCall c = mpiCallAt(t, i);
    f.key({"Call class", std::string(mpiCallClassName(c.callClass))});
    if (c.peer >= 0) f.key({"Peer rank", std::to_string(c.peer)});
    if (c.tag >= 0) f.key({"Tag", std::to_string(c.tag)});
    if (c.root >= 0) f.key({"Root rank", std::to_string(c.root)});
    if (c.bytes > 0) f.key({"Bytes sent", bytesText(static_cast<uint64_t>(c.bytes))});
    if (c.recvBytes > 0) f.key({"Bytes received", bytesText(static_cast<uint64_t>(c.recvBytes))});
    if (c.comm != 0) f.push_back({"Communicator", hex(c.comm)});
    if (c.request != 0) f.push_back({"Request", hex(c.request)});
}

// An OpenMP event's columns in words: the construct, the ids of its parallel region and task
// (a parallel region's task is the one that started it), what its count is (iterations,
// requested threads, team size), its thread number and code address; those it does not have
// (ids and counts of 0, index -1) are left out.
void openMpFields(const Track& t, size_t i, Fields& f) {
    const OpenMpConstruct c = openMpAt(t, i);
    f.key({"Construct", openMpConstructText(c)});
    if (c.parallelId != 0) f.key({"Parallel region", std::to_string(c.parallelId)});
    if (c.taskId != 0)
        f.key(
            {c.event == OpenMpEvent::Parallel ? "Parent task" : "Task", std::to_string(c.taskId)});
    if (const std::string_view label = openMpCountLabel(c); !label.empty() && c.count > 0)
        f.key({std::string(label), std::to_string(c.count)});
    if (c.index >= 0) f.key({"Thread number", std::to_string(c.index)});
    if (c.codePtr != 0) f.key({"Code address", hex(c.codePtr)});
}

// A cuBLAS, cuDNN or NCCL call's columns in words, and the CUDA API calls its thread made inside
// it (by time: the library's own runtime and driver calls). NCCL's arguments where it has them.
void cudaLibFields(const Report& r, const Track& t, size_t i, Fields& f) {
    const CudaLibCall c = cudaLibCallAt(t, i);
    const bool nccl = t.key.kind == EventKind::Nccl;
    f.key({"Status", std::to_string(c.status) + (c.status == 0 ? " (success)" : " (error)")});
    f.push_back({nccl ? "Communicator" : "Handle", c.handle ? hex(c.handle) : std::string("none")});
    f.push_back({"Stream", c.stream ? hex(c.stream) : std::string("default")});
    if (nccl && c.count >= 0) {
        f.push_back({"Count", std::to_string(c.count)});
        f.key({"Bytes", bytesText(static_cast<uint64_t>(c.bytes))});
    }
    if (const std::string_view dt = ncclDataTypeName(c.datatype); nccl && !dt.empty())
        f.key({"Data type", std::string(dt)});
    if (const std::string_view op = ncclRedOpName(c.redop); nccl && !op.empty())
        f.key({"Reduction", std::string(op)});
    if (nccl && c.peer >= 0) f.key({"Root or peer rank", std::to_string(c.peer)});
    if (nccl && c.rank >= 0)
        f.key({"Rank",
               std::to_string(c.rank) + (c.ranks >= 0 ? " of " + std::to_string(c.ranks) : "")});
    else if (nccl && c.ranks >= 0)
        f.key({"Ranks", std::to_string(c.ranks)});
    if (!f.full()) return;  // a scan over the thread's API calls: not for every hover
    size_t inside = 0;
    for (const Track& api : r.tracks)
        if (api.key.kind == EventKind::CudaApi && api.key.pid == t.key.pid &&
            api.key.tid == t.key.tid)
            for (size_t k = 0; k < api.size(); ++k)
                inside += api.start[k] >= t.start[i] && api.end[k] <= t.end[i];
    f.push_back({"CUDA API calls inside", std::to_string(inside)});
}

void kindFields(const Report& r, const Track& t, size_t i, Fields& f) {
    switch (t.key.kind) {
        case EventKind::OsRuntime:
            f.key({"Result", std::to_string(t.intAt(cols::OsRuntime::Result, i))});
            f.key({"errno", std::to_string(t.intAt(cols::OsRuntime::Errno, i))});
            break;
        case EventKind::CudaApi:
            f.push_back({"Callback ID", std::to_string(t.intAt(cols::CudaApi::Cbid, i))});
            f.key({"API", t.intAt(cols::CudaApi::Api, i) == 1 ? "Driver" : "Runtime"});
            f.key({"Result", std::to_string(t.intAt(cols::CudaApi::Result, i))});
            break;
        case EventKind::Kernel:
            kernelFields(r, t, i, f);
            break;
        case EventKind::Memcpy:
            memcpyFields(t, i, f);
            break;
        case EventKind::Memset:
            f.key({"Size", bytesText(static_cast<uint64_t>(t.intAt(cols::Memset::Bytes, i)))});
            f.key({"Value", std::to_string(t.intAt(cols::Memset::Value, i))});
            f.push_back({"Memory", std::string(memoryKindName(static_cast<MemoryKind>(
                                       t.intAt(cols::Memset::MemKind, i))))});
            break;
        case EventKind::Sync:
            f.key({"Sync type", std::string(syncTypeName(
                                    static_cast<SyncType>(t.intAt(cols::Sync::SyncType, i))))});
            f.push_back({"CUDA event", std::to_string(t.intAt(cols::Sync::Event, i))});
            break;
        case EventKind::NvtxRange:
            nvtxFields(r, t, i, true, f);
            break;
        case EventKind::NvtxMark:
            nvtxFields(r, t, i, false, f);
            break;
        case EventKind::Metric: {
            const MetricSeries* s = r.findSeries(t.key.series);
            f.key({"Value", std::to_string(t.cols[cols::Metric::Value].doubleAt(i)) +
                                (s ? " " + s->unit : "")});
            break;
        }
        case EventKind::CudaMemory:
            f.key({"Operation", t.intAt(cols::CudaMemory::Op, i) == 1 ? "Free" : "Alloc"});
            f.push_back(
                {"Address", hex(static_cast<uint64_t>(t.intAt(cols::CudaMemory::Address, i)))});
            f.key({"Size", bytesText(static_cast<uint64_t>(t.intAt(cols::CudaMemory::Bytes, i)))});
            f.push_back({"Memory", std::string(memoryKindName(static_cast<MemoryKind>(
                                       t.intAt(cols::CudaMemory::MemKind, i))))});
            break;
        case EventKind::ThreadState:
            f.key({"CPU", std::to_string(t.intAt(cols::ThreadState::Cpu, i))});
            break;
        case EventKind::GraphTrace:
            f.key({"Graph ID", std::to_string(t.intAt(cols::GraphTrace::GraphId, i))});
            break;
        case EventKind::CuptiOverhead:
            f.key({"Overhead kind", std::to_string(t.intAt(cols::CuptiOverhead::OverheadKind, i))});
            break;
        case EventKind::CpuSample: {
            const int64_t cpu = t.intAt(cols::CpuSample::Cpu, i);
            f.key({"CPU", cpu < 0 ? std::string("unknown") : std::to_string(cpu)});
            const auto stack = static_cast<uint32_t>(t.intAt(cols::CpuSample::Stack, i));
            if (stack >= r.callStacks.size())
                f.key({"Call stack", "unknown (stack " + std::to_string(stack) + ")"});
            else
                frameFields(r, "Call stack", r.callStacks[stack].frames, f);
            break;
        }
        case EventKind::Mpi:
            mpiFields(t, i, f);
            break;
        case EventKind::OpenMp:
            openMpFields(t, i, f);
            break;
        case EventKind::Cublas:
        case EventKind::Cudnn:
        case EventKind::Nccl:
            cudaLibFields(r, t, i, f);
            break;
    }
    // The call stack taken when the event began (--python-backtrace; --osrt-backtrace-threshold,
    // native, maybe with Python frames spliced in). Not for ranges projected onto a GPU.
    if (t.schema().owner == OwnerKind::Thread && t.key.device < 0)
        if (const CallStack* bt = r.backtraceOf(t.key.kind, t.key.pid, t.key.tid, t.start[i]))
            frameFields(
                r, r.isPythonFrame(r.stackFrames[bt->frames[0]]) ? "Python backtrace" : "Backtrace",
                bt->frames, f);
}

void ownerFields(const Report& r, const Track& t, Fields& f) {
    const TrackKey& k = t.key;
    switch (t.schema().owner) {
        case OwnerKind::Thread:
            f.push_back(
                {"Process",
                 std::to_string(k.pid) +
                     (r.findProcess(k.pid) ? " (" + r.findProcess(k.pid)->name + ")" : "")});
            f.push_back({"Thread", r.threadTitle(k.pid, k.tid)});
            if (const Process* p = r.findProcess(k.pid); p && p->mpiRank >= 0)
                f.push_back(
                    {"MPI rank", std::to_string(p->mpiRank) +
                                     (p->mpiWorldSize > 0 ? " of " + std::to_string(p->mpiWorldSize)
                                                          : std::string())});
            break;
        case OwnerKind::Stream:
            f.push_back({"Process", std::to_string(k.pid)});
            f.push_back({"Device",
                         std::to_string(k.device) +
                             (r.findGpu(k.device) ? " (" + r.findGpu(k.device)->name + ")" : "")});
            f.push_back({"Context", std::to_string(k.context)});
            f.push_back({"Stream", std::to_string(k.stream)});
            break;
        case OwnerKind::Series:
            f.push_back({"Series", r.trackTitle(t)});
            break;
        case OwnerKind::ProcessDevice:
            f.push_back({"Process", std::to_string(k.pid)});
            f.push_back({"Device", std::to_string(k.device)});
            break;
    }
}

// `e` is invalid for a track outside the report's (nothing is correlated then).
void correlationFields(const Report& r, const Track& t, size_t i, EventRef e,
                       const CorrelationIndex* index, Fields& f) {
    const int cc = correlationColumn(t.key.kind);
    if (cc < 0) return;
    const auto corr = static_cast<uint32_t>(t.intAt(cc, i));
    f.key({"Correlation ID", std::to_string(corr)});
    if (!index || !e.valid() || corr == 0) return;
    if (t.key.kind == EventKind::CudaApi) {
        const auto ops = index->gpuOps(t.key.pid, corr);
        f.push_back({"Launched GPU operations", std::to_string(ops.size())});
        for (size_t k = 0; k < ops.size() && k < 8; ++k) {
            const Track& gt = r.tracks[ops[k].track];
            f.push_back(
                {"Launched", eventDisplayName(r, gt, ops[k].index) + " on " + r.trackTitle(gt)});
        }
    } else if (CorrelationIndex::isGpuOpKind(t.key.kind)) {
        const EventRef api = index->launcherOf(e);
        f.push_back({"Launched by",
                     api.valid() ? apiCallText(r, api) : "unknown (no API call with this id)"});
        if (api.valid()) {
            const Track& at = r.tracks[api.track];
            f.push_back({"Launching thread", r.threadTitle(at.key.pid, at.key.tid)});
        }
    }
}

std::vector<EventField> fieldsOf(const Report& r, const Track& t, size_t i, EventRef e,
                                 const CorrelationIndex* index, DetailForm form) {
    Fields f(form);
    f.key({"Name", eventName(r, t, i)});
    f.key({"Kind", std::string(t.schema().label)});
    f.push_back({"Row", r.trackTitle(t)});
    // Instants (marks, samples, metric points) have a time, not a start.
    f.key({t.schema().hasEnd ? "Start" : "Time", timeText(r, t.start[i])});
    if (t.schema().hasEnd) {
        f.push_back({"End", timeText(r, t.endAt(i))});
        f.key({"Duration",
               formatDuration(t.durationAt(i)) + " (" + std::to_string(t.durationAt(i)) + " ns)"});
    }
    ownerFields(r, t, f);
    kindFields(r, t, i, f);
    correlationFields(r, t, i, e, index, f);
    return f.take();
}

}  // namespace

std::string eventName(const Report& r, const Track& t, size_t i) {
    // Unresolved leaves have no name: where they are ("libfoo.so+0x1a").
    if (t.key.kind == EventKind::CpuSample && t.nameAt(i) == 0) {
        const auto stack = static_cast<uint64_t>(t.intAt(cols::CpuSample::Stack, i));
        if (stack < r.callStacks.size() && !r.callStacks[stack].frames.empty())
            return r.frameText(r.callStacks[stack].frames.front());
        return "[unknown]";
    }
    return eventDisplayName(r, t, i);
}

std::vector<EventField> eventDetails(const Report& r, EventRef e, const CorrelationIndex* index,
                                     DetailForm form) {
    if (!e.valid() || e.track >= r.tracks.size() || e.index >= r.tracks[e.track].size()) return {};
    return fieldsOf(r, r.tracks[e.track], e.index, e, index, form);
}

std::vector<EventField> eventDetails(const Report& r, const Track& t, size_t i, DetailForm form) {
    if (i >= t.size()) return {};
    // A track of the report still gets its place (and so nothing correlated: no index here).
    const bool own =
        !r.tracks.empty() && &t >= r.tracks.data() && &t < r.tracks.data() + r.tracks.size();
    const EventRef e =
        own ? EventRef{static_cast<uint32_t>(&t - r.tracks.data()), static_cast<uint32_t>(i)}
            : EventRef{};
    return fieldsOf(r, t, i, e, nullptr, form);
}

std::string detailValue(const std::vector<EventField>& fields, std::string_view field) {
    for (const auto& x : fields)
        if (x.field == field) return x.value;
    return {};
}

}  // namespace sl::analysis
