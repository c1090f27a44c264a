#include "capture/cupti/CuptiConverter.h"

#include <cinttypes>
#include <cstdio>

#include "capture/cupti/CuptiApiNames.h"

namespace sl::cuda {

CuptiConverter::CuptiConverter(CudaSink& sink, int64_t pid, bool keepMemory)
    : m_sink(sink), m_pid(pid), m_keepMemory(keepMemory) {}

void CuptiConverter::diag(const char* name, int64_t count, const char* reason) {
    m_sink.addDiagnostic(name, count, reason, m_pid);
}

void CuptiConverter::convert(const CUpti_Activity* rec) {
    ++m_stats.records;
    // The casts follow the kind-to-struct table of cupti_activity.h for this toolkit.
    switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            return kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(rec));
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            return memcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec));
        case CUPTI_ACTIVITY_KIND_MEMCPY2:
            return memcpyPeer(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(rec));
        case CUPTI_ACTIVITY_KIND_MEMSET:
            return memset(*reinterpret_cast<const CUpti_ActivityMemset4*>(rec));
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER:
        case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
            return api(*reinterpret_cast<const CUpti_ActivityAPI*>(rec));
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
            return sync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(rec));
        case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
            return cudaEvent(*reinterpret_cast<const CUpti_ActivityCudaEvent2*>(rec));
        case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
            return graphTrace(*reinterpret_cast<const CUpti_ActivityGraphTrace2*>(rec));
        case CUPTI_ACTIVITY_KIND_MEMORY2:
            if (!m_keepMemory) break;
            return memory(*reinterpret_cast<const CUpti_ActivityMemory4*>(rec));
        case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
            if (!m_keepMemory) break;
            return memoryPool(*reinterpret_cast<const CUpti_ActivityMemoryPool3*>(rec));
        case CUPTI_ACTIVITY_KIND_OVERHEAD:
            return overhead(*reinterpret_cast<const CUpti_ActivityOverhead3*>(rec));
        case CUPTI_ACTIVITY_KIND_DEVICE:
            return device(*reinterpret_cast<const CUpti_ActivityDevice5*>(rec));
        case CUPTI_ACTIVITY_KIND_CONTEXT:
            return context(*reinterpret_cast<const CUpti_ActivityContext3*>(rec));
        case CUPTI_ACTIVITY_KIND_STREAM:
            return stream(*reinterpret_cast<const CUpti_ActivityStream*>(rec));
        case CUPTI_ACTIVITY_KIND_NAME:
            return name(*reinterpret_cast<const CUpti_ActivityName*>(rec));
        case CUPTI_ACTIVITY_KIND_MARKER:
        case CUPTI_ACTIVITY_KIND_MARKER_DATA:
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        case CUPTI_ACTIVITY_KIND_DEVICE_ATTRIBUTE:
            break;  // NVTX comes from our NVTX injection; the others carry nothing we show
        default:
            ++m_stats.unknown;
            diag("cuda.unknown_records", 1,
                 "CUPTI delivered activity records of a kind this build does not convert; they are "
                 "left out");
            return;
    }
    ++m_stats.ignored;
}

bool CuptiConverter::checkTimes(uint64_t start, uint64_t& end) {
    if (start == 0 && end == 0) {
        ++m_stats.withoutTime;
        diag("cuda.records_without_time", 1,
             "CUPTI could not time some GPU operations (start and end 0); they are left out");
        return false;
    }
    if (end < start) {
        ++m_stats.clampedEnd;
        diag("cuda.end_before_start", 1,
             "GPU operations ended before they started; shown with zero duration");
        end = start;
    }
    return true;
}

int32_t CuptiConverter::deviceOf(uint32_t contextId) const {
    auto it = m_contextDevice.find(contextId);
    return it == m_contextDevice.end() ? -1 : static_cast<int32_t>(it->second);
}

GpuPlace CuptiConverter::place(uint32_t device, uint32_t context, uint32_t stream) const {
    GpuPlace p;
    p.pid = m_pid;
    p.device = static_cast<int32_t>(device);
    p.context = context;
    p.stream = stream;
    return p;
}

void CuptiConverter::kernel(const CUpti_ActivityKernel10& r) {
    uint64_t end = r.end;
    if (!checkTimes(r.start, end)) return;
    const auto& ids =
        m_names.lookup(r.name, [this](std::string_view s) { return m_sink.intern(s); });
    KernelExec e;
    e.place = place(r.deviceId, r.contextId, r.streamId);
    e.start = static_cast<int64_t>(r.start);
    e.end = static_cast<int64_t>(end);
    e.name = ids.demangled;
    e.correlation = r.correlationId;
    KernelLaunchInfo& l = e.launch;
    l.mangledName = ids.mangled;
    l.shortName = ids.shortName;
    l.grid[0] = static_cast<uint32_t>(r.gridX);
    l.grid[1] = static_cast<uint32_t>(r.gridY);
    l.grid[2] = static_cast<uint32_t>(r.gridZ);
    l.block[0] = static_cast<uint32_t>(r.blockX);
    l.block[1] = static_cast<uint32_t>(r.blockY);
    l.block[2] = static_cast<uint32_t>(r.blockZ);
    l.registersPerThread = r.registersPerThread;
    l.staticSharedBytes = static_cast<uint32_t>(r.staticSharedMemory);
    l.dynamicSharedBytes = static_cast<uint32_t>(r.dynamicSharedMemory);
    l.localBytesPerThread = r.localMemoryPerThread;
    l.launchType = launchTypeFromCupti(r.launchType);
    l.graphId = r.graphId;
    l.graphNodeId = r.graphNodeId;
    m_sink.add(e);
    ++m_stats.converted;
}

void CuptiConverter::memcpy(const CUpti_ActivityMemcpy6& r) {
    uint64_t end = r.end;
    if (!checkTimes(r.start, end)) return;
    MemcpyOp e;
    e.place = place(r.deviceId, r.contextId, r.streamId);
    e.start = static_cast<int64_t>(r.start);
    e.end = static_cast<int64_t>(end);
    e.correlation = r.correlationId;
    e.bytes = r.bytes;
    e.copyKind = copyKindFromCupti(r.copyKind);
    e.srcKind = memoryKindFromCupti(r.srcKind);
    e.dstKind = memoryKindFromCupti(r.dstKind);
    // The device takes part on the side whose memory is on it; host memory has no device.
    auto onDevice = [](MemoryKind k) {
        return k == MemoryKind::Device || k == MemoryKind::Array || k == MemoryKind::DeviceStatic ||
               k == MemoryKind::Managed || k == MemoryKind::ManagedStatic;
    };
    int16_t dev = static_cast<int16_t>(r.deviceId);
    e.srcDevice = onDevice(e.srcKind) ? dev : int16_t(-1);
    e.dstDevice = onDevice(e.dstKind) ? dev : int16_t(-1);
    e.flags = (r.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0;
    m_sink.add(e);
    ++m_stats.converted;
}

void CuptiConverter::memcpyPeer(const CUpti_ActivityMemcpyPtoP4& r) {
    uint64_t end = r.end;
    if (!checkTimes(r.start, end)) return;
    MemcpyOp e;
    e.place = place(r.deviceId, r.contextId, r.streamId);
    e.start = static_cast<int64_t>(r.start);
    e.end = static_cast<int64_t>(end);
    e.correlation = r.correlationId;
    e.bytes = r.bytes;
    e.copyKind = r.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN ? CopyKind::PtoP
                                                                  : copyKindFromCupti(r.copyKind);
    e.srcKind = memoryKindFromCupti(r.srcKind);
    e.dstKind = memoryKindFromCupti(r.dstKind);
    e.srcDevice = static_cast<int16_t>(r.srcDeviceId);
    e.dstDevice = static_cast<int16_t>(r.dstDeviceId);
    e.flags = (r.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) ? 1 : 0;
    m_sink.add(e);
    ++m_stats.converted;
}

void CuptiConverter::memset(const CUpti_ActivityMemset4& r) {
    uint64_t end = r.end;
    if (!checkTimes(r.start, end)) return;
    MemsetOp e;
    e.place = place(r.deviceId, r.contextId, r.streamId);
    e.start = static_cast<int64_t>(r.start);
    e.end = static_cast<int64_t>(end);
    e.correlation = r.correlationId;
    e.bytes = r.bytes;
    e.value = r.value;
    e.memKind = memoryKindFromCupti(r.memoryKind);
    m_sink.add(e);
    ++m_stats.converted;
}

void CuptiConverter::api(const CUpti_ActivityAPI& r) {
    uint64_t end = r.end;
    if (!checkTimes(r.start, end)) return;
    ApiKind kind = r.kind == CUPTI_ACTIVITY_KIND_RUNTIME ? ApiKind::Runtime : ApiKind::Driver;
    auto [nameIt, fresh] = m_apiNames.try_emplace((uint64_t(kind) << 32) | r.cbid);
    if (fresh) {
        std::string_view n = apiName(kind, r.cbid);
        char fallback[48];
        if (n.empty()) {
            std::snprintf(fallback, sizeof fallback, "%s API %u",
                          kind == ApiKind::Runtime ? "CUDA runtime" : "CUDA driver",
                          static_cast<unsigned>(r.cbid));
            n = fallback;
        }
        nameIt->second.name = m_sink.intern(n);
        nameIt->second.eventRecord = isEventRecordApi(kind, r.cbid);
    }
    CudaApiCall e;
    e.pid = r.processId ? static_cast<int64_t>(r.processId) : m_pid;
    e.tid = static_cast<int64_t>(r.threadId);
    e.start = static_cast<int64_t>(r.start);
    e.end = static_cast<int64_t>(end);
    e.name = nameIt->second.name;
    e.correlation = r.correlationId;
    e.cbid = r.cbid;
    e.api = kind;
    e.result = static_cast<int32_t>(r.returnValue);
    m_sink.add(e);
    ++m_stats.converted;
    if (nameIt->second.eventRecord) {
        auto it = m_pendingEvents.find(r.correlationId);
        if (it != m_pendingEvents.end()) {
            emitEventRecord(it->second, e.start);
            m_pendingEvents.erase(it);
        } else {
            m_eventApiStart[r.correlationId] = e.start;
        }
    }
}

void CuptiConverter::emitSync(const CUpti_ActivitySynchronization2& r, int32_t device) {
    uint64_t end = r.end;
    if (!checkTimes(r.start, end)) return;
    SyncOp e;
    // Context-wide synchronizations have no stream: they go on stream 0 of the context.
    uint32_t stream = r.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : r.streamId;
    e.place = place(0, r.contextId, stream);
    e.place.device = device;
    e.start = static_cast<int64_t>(r.start);
    e.end = static_cast<int64_t>(end);
    e.correlation = r.correlationId;
    e.type = syncTypeFromCupti(r.type);
    e.event = r.cudaEventId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : r.cudaEventId;
    m_sink.add(e);
    ++m_stats.converted;
}

void CuptiConverter::sync(const CUpti_ActivitySynchronization2& r) {
    int32_t dev = deviceOf(r.contextId);
    if (dev < 0) {
        m_pendingSync.push_back(r);
        return;
    }
    emitSync(r, dev);
}

void CuptiConverter::emitEventRecord(const CUpti_ActivityCudaEvent2& r, int64_t time) {
    SyncOp e;
    e.place = place(r.deviceId, r.contextId, r.streamId);
    e.start = e.end = time;
    e.correlation = r.correlationId;
    e.type = SyncType::EventRecord;
    e.event = r.eventId;
    m_sink.add(e);
    ++m_stats.converted;
}

void CuptiConverter::cudaEvent(const CUpti_ActivityCudaEvent2& r) {
    if (r.deviceTimestamp != 0) return emitEventRecord(r, static_cast<int64_t>(r.deviceTimestamp));
    auto it = m_eventApiStart.find(r.correlationId);
    if (it != m_eventApiStart.end()) {
        emitEventRecord(r, it->second);
        m_eventApiStart.erase(it);
        return;
    }
    m_pendingEvents[r.correlationId] = r;
}

void CuptiConverter::graphTrace(const CUpti_ActivityGraphTrace2& r) {
    uint64_t end = r.end;
    if (!checkTimes(r.start, end)) return;
    GraphExec e;
    e.place = place(r.deviceId, r.contextId, r.streamId);
    e.start = static_cast<int64_t>(r.start);
    e.end = static_cast<int64_t>(end);
    char label[40];
    std::snprintf(label, sizeof label, "CUDA graph %u", static_cast<unsigned>(r.graphId));
    e.name = m_sink.intern(label);
    e.correlation = r.correlationId;
    e.graphId = r.graphId;
    m_sink.add(e);
    ++m_stats.converted;
}

void CuptiConverter::memory(const CUpti_ActivityMemory4& r) {
    CudaMemoryEvent e;
    e.pid = r.processId ? static_cast<int64_t>(r.processId) : m_pid;
    e.device = static_cast<int32_t>(r.deviceId);
    e.time = static_cast<int64_t>(r.timestamp);
    e.address = r.address;
    e.bytes = r.bytes;
    e.memKind = memoryKindFromCupti(r.memoryKind);
    e.correlation = r.correlationId;
    if (r.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
        e.op = MemoryOp::Alloc;
    else if (r.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        e.op = MemoryOp::Free;
    else {
        diag("cuda.memory_records_invalid", 1,
             "CUDA memory records with an invalid operation type were left out");
        return;
    }
    m_sink.add(e);
    ++m_stats.converted;
}

void CuptiConverter::memoryPool(const CUpti_ActivityMemoryPool3& r) {
    // A pool's reserved size over time is a metric series per pool.
    auto [it, inserted] = m_poolSeries.try_emplace(r.address, 0);
    if (inserted) {
        it->second = m_nextSeries++;
        MetricSeries s;
        s.seriesId = it->second;
        char label[96];
        std::snprintf(label, sizeof label, "CUDA memory pool 0x%" PRIx64 " size",
                      static_cast<uint64_t>(r.address));
        s.name = label;
        s.unit = "bytes";
        s.source = "cupti";
        s.deviceId = static_cast<int32_t>(r.deviceId);
        s.pid = r.processId ? static_cast<int64_t>(r.processId) : m_pid;
        m_sink.addSeries(s);
    }
    MetricSample m;
    m.series = it->second;
    m.time = static_cast<int64_t>(r.timestamp);
    m.value = r.memoryPoolOperationType == CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED
                  ? 0.0
                  : static_cast<double>(r.size);
    m_sink.add(m);
    ++m_stats.converted;
}

void CuptiConverter::overhead(const CUpti_ActivityOverhead3& r) {
    uint64_t end = r.end;
    if (!checkTimes(r.start, end)) return;
    CuptiOverheadEvent e;
    if (r.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
        r.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        e.pid = r.objectId.pt.processId ? static_cast<int64_t>(r.objectId.pt.processId) : m_pid;
        e.tid = static_cast<int64_t>(r.objectId.pt.threadId);
    } else {
        e.pid = m_pid;  // device/context/stream overhead: shown on the process
        e.tid = 0;
    }
    e.start = static_cast<int64_t>(r.start);
    e.end = static_cast<int64_t>(end);
    e.kind = overheadKindFromCupti(r.overheadKind);
    m_sink.add(e);
    ++m_stats.converted;
}

void CuptiConverter::device(const CUpti_ActivityDevice5& r) {
    Gpu g;
    g.deviceId = static_cast<int32_t>(r.id);
    g.name = r.name ? r.name : "";
    g.uuid = formatUuid(reinterpret_cast<const uint8_t*>(r.uuid.bytes));
    g.smCount = static_cast<int32_t>(r.numMultiprocessors);
    g.memoryBytes = static_cast<int64_t>(r.globalMemorySize);
    g.computeMajor = static_cast<int32_t>(r.computeCapabilityMajor);
    g.computeMinor = static_cast<int32_t>(r.computeCapabilityMinor);
    g.smClockKHz = r.coreClockRate;                                                       // kHz
    g.memoryBandwidthBytesPerSec = static_cast<int64_t>(r.globalMemoryBandwidth) * 1000;  // KB/s
    m_sink.addGpu(g);
    ++m_stats.converted;
}

void CuptiConverter::noteContext(uint32_t contextId, uint32_t deviceId) {
    m_contextDevice[contextId] = deviceId;
    // Step 1: records that waited for this context's device.
    auto drain = [&](auto& pending, auto emit) {
        for (size_t i = 0; i < pending.size();) {
            if (pending[i].contextId == contextId) {
                emit(pending[i]);
                pending[i] = pending.back();
                pending.pop_back();
            } else {
                ++i;
            }
        }
    };
    int32_t dev = static_cast<int32_t>(deviceId);
    drain(m_pendingSync, [&](const auto& r) { emitSync(r, dev); });
    drain(m_pendingStreams, [&](const auto& r) { emitStream(r, dev); });
}

void CuptiConverter::context(const CUpti_ActivityContext3& r) {
    CudaContext c;
    c.pid = m_pid;
    c.deviceId = static_cast<int32_t>(r.deviceId);
    c.contextId = r.contextId;
    m_sink.addContext(c);
    // The context's NULL stream is the legacy default stream.
    CudaStream s;
    s.pid = m_pid;
    s.deviceId = c.deviceId;
    s.contextId = r.contextId;
    s.streamId = r.nullStreamId;
    s.isDefault = true;
    m_sink.addStream(s);
    ++m_stats.converted;
    noteContext(r.contextId, r.deviceId);
}

void CuptiConverter::emitStream(const CUpti_ActivityStream& r, int32_t device) {
    CudaStream s;
    s.pid = m_pid;
    s.deviceId = device;
    s.contextId = r.contextId;
    s.streamId = r.streamId;
    s.priority = static_cast<int32_t>(r.priority);
    s.flags = static_cast<uint32_t>(r.flag);
    s.isDefault =
        (r.flag & CUPTI_ACTIVITY_STREAM_CREATE_MASK) == CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL;
    m_sink.addStream(s);
    ++m_stats.converted;
}

void CuptiConverter::stream(const CUpti_ActivityStream& r) {
    int32_t dev = deviceOf(r.contextId);
    if (dev < 0) {
        m_pendingStreams.push_back(r);
        return;
    }
    emitStream(r, dev);
}

void CuptiConverter::name(const CUpti_ActivityName& r) {
    // NVTX names of contexts and streams (nvtxNameCuContext, nvtxNameCudaStream...).
    if (!r.name) return;
    if (r.objectKind == CUPTI_ACTIVITY_OBJECT_CONTEXT) {
        CudaContext c;
        c.pid = m_pid;
        c.deviceId = static_cast<int32_t>(r.objectId.dcs.deviceId);
        c.contextId = r.objectId.dcs.contextId;
        c.name = r.name;
        m_sink.addContext(c);
    } else if (r.objectKind == CUPTI_ACTIVITY_OBJECT_STREAM) {
        CudaStream s;
        s.pid = m_pid;
        s.deviceId = static_cast<int32_t>(r.objectId.dcs.deviceId);
        s.contextId = r.objectId.dcs.contextId;
        s.streamId = r.objectId.dcs.streamId;
        s.name = r.name;
        m_sink.addStream(s);
    } else {
        ++m_stats.ignored;
        return;
    }
    ++m_stats.converted;
}

void CuptiConverter::droppedRecords(uint32_t, uint32_t, uint64_t count) {
    if (count == 0) return;
    m_stats.dropped += count;
    diag("cuda.records_dropped", static_cast<int64_t>(count),
         "CUPTI dropped activity records because no buffer was free; flush more often "
         "(--cuda-flush-interval)");
}

void CuptiConverter::finish() {
    // Step 1: records whose context never showed up keep device -1 rather than being lost.
    if (!m_pendingSync.empty() || !m_pendingStreams.empty()) {
        diag("cuda.unknown_context",
             static_cast<int64_t>(m_pendingSync.size() + m_pendingStreams.size()),
             "Some CUDA records name a context that was never reported; they are shown without a "
             "device");
        for (const auto& r : m_pendingSync) emitSync(r, -1);
        for (const auto& r : m_pendingStreams) emitStream(r, -1);
        m_pendingSync.clear();
        m_pendingStreams.clear();
    }
    // Step 2: CUDA event records whose cudaEventRecord call never arrived have no time.
    if (!m_pendingEvents.empty()) {
        diag("cuda.event_records_without_time", static_cast<int64_t>(m_pendingEvents.size()),
             "Some CUDA event records had no device timestamp and no matching cudaEventRecord "
             "call; they are left out");
        m_pendingEvents.clear();
    }
    m_eventApiStart.clear();
}

// ---- enum mapping ----

MemoryKind memoryKindFromCupti(uint32_t k) {
    switch (k) {
        case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
            return MemoryKind::Pageable;
        case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
            return MemoryKind::Pinned;
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
            return MemoryKind::Device;
        case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
            return MemoryKind::Array;
        case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
            return MemoryKind::Managed;
        case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
            return MemoryKind::DeviceStatic;
        case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
            return MemoryKind::ManagedStatic;
        default:
            return MemoryKind::Unknown;
    }
}

CopyKind copyKindFromCupti(uint32_t k) {
    // CUpti_ActivityMemcpyKind 0..10 and nsys ENUM_CUDA_MEMCPY_OPER 0..10 agree.
    return k <= CUPTI_ACTIVITY_MEMCPY_KIND_PTOP ? static_cast<CopyKind>(k) : CopyKind::Unknown;
}

SyncType syncTypeFromCupti(uint32_t t) {
    return t <= CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE ? static_cast<SyncType>(t)
                                                                        : SyncType::Unknown;
}

LaunchType launchTypeFromCupti(uint32_t t) {
    return t <= 3 ? static_cast<LaunchType>(t) : LaunchType::Regular;
}

uint8_t overheadKindFromCupti(uint32_t k) {
    if (k < 0x80) return static_cast<uint8_t>(k);
    uint32_t n = k >> 16;
    return n > 0 && n < 0x80 && (k & 0xFFFF) == 0 ? static_cast<uint8_t>(0x80 | n) : 0;
}

std::string_view overheadKindName(uint8_t packed) {
    switch (packed) {
        case 1:
            return "Driver compiler";
        case 0x81:
            return "CUPTI buffer flush";
        case 0x82:
            return "CUPTI instrumentation";
        case 0x83:
            return "CUPTI resource";
        case 0x84:
            return "Runtime-triggered module loading";
        case 0x85:
            return "Lazy function loading";
        case 0x86:
            return "Command buffer full";
        case 0x87:
            return "Activity buffer request";
        case 0x88:
            return "UVM activity init";
        default:
            return "Unknown";
    }
}

std::string formatUuid(const uint8_t b[16]) {
    char s[48];
    std::snprintf(s, sizeof s,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    return s;
}

}  // namespace sl::cuda
