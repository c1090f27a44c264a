#include "model/analysis/EventQueryDetails.h"

#include <bit>
#include <cstdio>

#include "model/analysis/EventQuery.h"
#include "model/analysis/EventQueryColumns.h"
#include "model/analysis/CudaLibCall.h"
#include "model/analysis/MpiCall.h"
#include "model/analysis/OpenMpConstruct.h"
#include "model/analysis/StatsCommon.h"
#include "model/util/Format.h"

namespace sl::analysis {
namespace {

using Fields = std::vector<EventField>;

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
    return formatBytes(b) + " (" + std::to_string(b) + " B)";
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
        f.push_back({"Launch configuration", "missing (index " + std::to_string(li) + ")"});
        return;
    }
    const KernelLaunchInfo& k = r.kernelLaunches[li];
    f.push_back({"Grid", dims(k.grid)});
    f.push_back({"Block", dims(k.block)});
    f.push_back({"Registers per thread", std::to_string(k.registersPerThread)});
    f.push_back({"Static shared memory", bytesText(k.staticSharedBytes)});
    f.push_back({"Dynamic shared memory", bytesText(k.dynamicSharedBytes)});
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
    f.push_back({"Size", bytesText(bytes)});
    f.push_back({"Copy kind", std::string(memcpyKindLabel(
                                  static_cast<CopyKind>(t.intAt(cols::Memcpy::CopyKind, i))))});
    f.push_back(
        {"Source memory",
         std::string(memoryKindName(static_cast<MemoryKind>(t.intAt(cols::Memcpy::SrcKind, i))))});
    f.push_back(
        {"Destination memory",
         std::string(memoryKindName(static_cast<MemoryKind>(t.intAt(cols::Memcpy::DstKind, i))))});
    f.push_back({"Source device", std::to_string(t.intAt(cols::Memcpy::SrcDevice, i))});
    f.push_back({"Destination device", std::to_string(t.intAt(cols::Memcpy::DstDevice, i))});
    f.push_back({"Asynchronous", (t.intAt(cols::Memcpy::Flags, i) & 1) ? "yes" : "no"});
    const int64_t d = t.durationAt(i);
    if (d > 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f GB/s",
                      static_cast<double>(bytes) / static_cast<double>(d));
        f.push_back({"Throughput", buf});
    }
}

void nvtxFields(const Report& r, const Track& t, size_t i, bool range, Fields& f) {
    f.push_back({"Domain", std::string(r.domainName(t.key.pid, t.key.domain))});
    const auto cat = static_cast<uint32_t>(t.intAt(cols::Nvtx::Category, i));
    std::string catName = std::to_string(cat);
    if (std::string_view name = r.categoryName(t.key.pid, t.key.domain, cat); !name.empty())
        catName = std::string(name) + " (" + catName + ")";
    f.push_back({"Category", catName});
    const auto color = static_cast<uint32_t>(t.intAt(cols::Nvtx::Color, i));
    f.push_back({"Color", color ? hex(color) : "none"});
    const auto pt = static_cast<PayloadType>(t.intAt(cols::Nvtx::PayloadType, i));
    f.push_back(
        {"Payload", pt == PayloadType::None
                        ? "none"
                        : payloadText(pt, static_cast<uint64_t>(t.intAt(cols::Nvtx::Payload, i))) +
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
    f.push_back({"Call class", std::string(mpiCallClassName(c.callClass))});
    if (c.peer >= 0) f.push_back({"Peer rank", std::to_string(c.peer)});
    if (c.tag >= 0) f.push_back({"Tag", std::to_string(c.tag)});
    if (c.root >= 0) f.push_back({"Root rank", std::to_string(c.root)});
    if (c.bytes > 0) f.push_back({"Bytes sent", bytesText(static_cast<uint64_t>(c.bytes))});
    if (c.recvBytes > 0) f.push_back({"Bytes received", bytesText(static_cast<uint64_t>(c.recvBytes))});
    if (c.comm != 0) f.push_back({"Communicator", hex(c.comm)});
    if (c.request != 0) f.push_back({"Request", hex(c.request)});
}

// An OpenMP event's columns in words: the construct, the ids of its parallel region and task
// (a parallel region's task is the one that started it), what its count is (iterations,
// requested threads, team size), its thread number and code address; those it does not have
// (ids and counts of 0, index -1) are left out.
void openMpFields(const Track& t, size_t i, Fields& f) {
    const OpenMpConstruct c = openMpAt(t, i);
    f.push_back({"Construct", openMpConstructText(c)});
    if (c.parallelId != 0) f.push_back({"Parallel region", std::to_string(c.parallelId)});
    if (c.taskId != 0)
        f.push_back({c.event == OpenMpEvent::Parallel ? "Parent task" : "Task", std::to_string(c.taskId)});
    if (const std::string_view label = openMpCountLabel(c); !label.empty() && c.count > 0)
        f.push_back({std::string(label), std::to_string(c.count)});
    if (c.index >= 0) f.push_back({"Thread number", std::to_string(c.index)});
    if (c.codePtr != 0) f.push_back({"Code address", hex(c.codePtr)});
}

// A cuBLAS, cuDNN or NCCL call's columns in words, and the CUDA API calls its thread made inside
// it (by time: the library's own runtime and driver calls). NCCL's arguments where it has them.
void cudaLibFields(const Report& r, const Track& t, size_t i, Fields& f) {
    const CudaLibCall c = cudaLibCallAt(t, i);
    const bool nccl = t.key.kind == EventKind::Nccl;
    f.push_back({"Status", std::to_string(c.status) + (c.status == 0 ? " (success)" : " (error)")});
    f.push_back({nccl ? "Communicator" : "Handle", c.handle ? hex(c.handle) : std::string("none")});
    f.push_back({"Stream", c.stream ? hex(c.stream) : std::string("default")});
    if (nccl && c.count >= 0) {
        f.push_back({"Count", std::to_string(c.count)});
        f.push_back({"Bytes", bytesText(static_cast<uint64_t>(c.bytes))});
    }
    if (const std::string_view dt = ncclDataTypeName(c.datatype); nccl && !dt.empty())
        f.push_back({"Data type", std::string(dt)});
    if (const std::string_view op = ncclRedOpName(c.redop); nccl && !op.empty())
        f.push_back({"Reduction", std::string(op)});
    if (nccl && c.peer >= 0) f.push_back({"Root or peer rank", std::to_string(c.peer)});
    if (nccl && c.rank >= 0)
        f.push_back({"Rank", std::to_string(c.rank) + (c.ranks >= 0 ? " of " + std::to_string(c.ranks) : "")});
    else if (nccl && c.ranks >= 0)
        f.push_back({"Ranks", std::to_string(c.ranks)});
    size_t inside = 0;
    for (const Track& api : r.tracks)
        if (api.key.kind == EventKind::CudaApi && api.key.pid == t.key.pid && api.key.tid == t.key.tid)
            for (size_t k = 0; k < api.size(); ++k)
                inside += api.start[k] >= t.start[i] && api.end[k] <= t.end[i];
    f.push_back({"CUDA API calls inside", std::to_string(inside)});
}

void kindFields(const Report& r, const Track& t, size_t i, Fields& f) {
    switch (t.key.kind) {
        case EventKind::OsRuntime:
            f.push_back({"Result", std::to_string(t.intAt(cols::OsRuntime::Result, i))});
            f.push_back({"errno", std::to_string(t.intAt(cols::OsRuntime::Errno, i))});
            break;
        case EventKind::CudaApi:
            f.push_back({"Callback ID", std::to_string(t.intAt(cols::CudaApi::Cbid, i))});
            f.push_back({"API", t.intAt(cols::CudaApi::Api, i) == 1 ? "Driver" : "Runtime"});
            f.push_back({"Result", std::to_string(t.intAt(cols::CudaApi::Result, i))});
            break;
        case EventKind::Kernel:
            kernelFields(r, t, i, f);
            break;
        case EventKind::Memcpy:
            memcpyFields(t, i, f);
            break;
        case EventKind::Memset:
            f.push_back(
                {"Size", bytesText(static_cast<uint64_t>(t.intAt(cols::Memset::Bytes, i)))});
            f.push_back({"Value", std::to_string(t.intAt(cols::Memset::Value, i))});
            f.push_back({"Memory", std::string(memoryKindName(static_cast<MemoryKind>(
                                       t.intAt(cols::Memset::MemKind, i))))});
            break;
        case EventKind::Sync:
            f.push_back({"Sync type", std::string(syncTypeName(static_cast<SyncType>(
                                          t.intAt(cols::Sync::SyncType, i))))});
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
            f.push_back({"Value", std::to_string(t.cols[cols::Metric::Value].doubleAt(i)) +
                                      (s ? " " + s->unit : "")});
            break;
        }
        case EventKind::CudaMemory:
            f.push_back({"Operation", t.intAt(cols::CudaMemory::Op, i) == 1 ? "Free" : "Alloc"});
            f.push_back(
                {"Address", hex(static_cast<uint64_t>(t.intAt(cols::CudaMemory::Address, i)))});
            f.push_back(
                {"Size", bytesText(static_cast<uint64_t>(t.intAt(cols::CudaMemory::Bytes, i)))});
            f.push_back({"Memory", std::string(memoryKindName(static_cast<MemoryKind>(
                                       t.intAt(cols::CudaMemory::MemKind, i))))});
            break;
        case EventKind::ThreadState:
            f.push_back({"CPU", std::to_string(t.intAt(cols::ThreadState::Cpu, i))});
            break;
        case EventKind::GraphTrace:
            f.push_back({"Graph ID", std::to_string(t.intAt(cols::GraphTrace::GraphId, i))});
            break;
        case EventKind::CuptiOverhead:
            f.push_back(
                {"Overhead kind", std::to_string(t.intAt(cols::CuptiOverhead::OverheadKind, i))});
            break;
        case EventKind::CpuSample: {
            f.push_back({"CPU", std::to_string(t.intAt(cols::CpuSample::Cpu, i))});
            const auto stack = static_cast<uint32_t>(t.intAt(cols::CpuSample::Stack, i));
            if (stack >= r.callStacks.size()) break;
            const auto& frames = r.callStacks[stack].frames;
            for (size_t k = 0; k < frames.size(); ++k)
                f.push_back({k == 0 ? "Call stack" : "", r.frameText(frames[k])});
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
    // native, maybe with Python frames spliced in), every frame.
    if (t.schema().owner == OwnerKind::Thread)
        if (const CallStack* bt = r.backtraceOf(t.key.kind, t.key.pid, t.key.tid, t.start[i]))
            for (size_t k = 0; k < bt->frames.size(); ++k) {
                const bool python = r.isPythonFrame(r.stackFrames[bt->frames[0]]);
                f.push_back({k == 0 ? (python ? "Python backtrace" : "Backtrace") : "",
                             r.frameText(bt->frames[k])});
            }
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
                f.push_back({"MPI rank", std::to_string(p->mpiRank) +
                                             (p->mpiWorldSize > 0
                                                  ? " of " + std::to_string(p->mpiWorldSize)
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

void correlationFields(const Report& r, const Track& t, EventRef e, const CorrelationIndex* index,
                       Fields& f) {
    const int cc = correlationColumn(t.key.kind);
    if (cc < 0) return;
    const auto corr = static_cast<uint32_t>(t.intAt(cc, e.index));
    f.push_back({"Correlation ID", std::to_string(corr)});
    if (!index || corr == 0) return;
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

}  // namespace

std::vector<EventField> eventDetails(const Report& r, EventRef e, const CorrelationIndex* index) {
    Fields f;
    if (!e.valid() || e.track >= r.tracks.size() || e.index >= r.tracks[e.track].size()) return f;
    const Track& t = r.tracks[e.track];
    const size_t i = e.index;
    f.push_back({"Name", eventDisplayName(r, t, i)});
    f.push_back({"Kind", std::string(t.schema().label)});
    f.push_back({"Row", r.trackTitle(t)});
    f.push_back({"Start", timeText(r, t.start[i])});
    if (t.schema().hasEnd) {
        f.push_back({"End", timeText(r, t.endAt(i))});
        f.push_back({"Duration", formatDuration(t.durationAt(i)) + " (" +
                                     std::to_string(t.durationAt(i)) + " ns)"});
    }
    ownerFields(r, t, f);
    kindFields(r, t, i, f);
    correlationFields(r, t, e, index, f);
    return f;
}

std::string detailValue(const std::vector<EventField>& fields, std::string_view field) {
    for (const auto& x : fields)
        if (x.field == field) return x.value;
    return {};
}

}  // namespace sl::analysis
