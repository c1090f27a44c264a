// The event tables of an nsys export, one reader per table. Column positions in each reader
// follow the order of its wanted-columns list.
#include <bit>
#include <cstring>

#include "model/core/NsysNvtxTypes.h"
#include "model/import/ImportText.h"
#include "model/import/NsysSqliteImporter.h"

namespace sl::import {
namespace {

using namespace nsys;  // NVTX event types
constexpr int64_t kRuntimeClass = 0, kDriverClass = 1, kBacktraceClass = 67;

template <class E>
E clampEnum(int64_t v, E fallback, int64_t max) {
    return v >= 0 && v <= max ? static_cast<E>(v) : fallback;
}

GpuPlace placeOf(const sqlite::Stmt& st, int first) {
    // Columns first..first+3: deviceId, contextId, streamId, globalPid.
    GpuPlace p;
    p.device = static_cast<int32_t>(st.i64(first));
    p.context = static_cast<uint32_t>(st.i64(first + 1));
    p.stream = static_cast<uint32_t>(st.i64(first + 2));
    p.pid = NsysSqliteImporter::pidOf(st.i64(first + 3));
    return p;
}

}  // namespace

Status NsysSqliteImporter::readKernels() {
    return forEachRow(
        "CUPTI_ACTIVITY_KIND_KERNEL",
        {{"start"},
         {"end"},
         {"deviceId"},
         {"contextId"},
         {"streamId"},
         {"globalPid"},
         {"correlationId"},
         {"demangledName"},
         {"shortName"},
         {"mangledName"},
         {"gridX"},
         {"gridY"},
         {"gridZ"},
         {"blockX"},
         {"blockY"},
         {"blockZ"},
         {"registersPerThread"},
         {"staticSharedMemory"},
         {"dynamicSharedMemory"},
         {"localMemoryPerThread"},
         {"launchType"},
         {"graphId"},
         {"graphNodeId"}},
        [this](const sqlite::Stmt& st) {
            KernelExec k;
            k.start = st.i64(0);
            k.end = endAfter(k.start, st.i64(1));
            k.place = placeOf(st, 2);
            k.correlation = static_cast<uint32_t>(st.i64(6));
            uint32_t demangled = nameAt(st, 7), shortName = nameAt(st, 8), mangled = nameAt(st, 9);
            if (demangled == UINT32_MAX) demangled = shortName != UINT32_MAX ? shortName : mangled;
            k.name = demangled == UINT32_MAX ? m_b.intern("(unnamed kernel)") : demangled;
            KernelLaunchInfo& l = k.launch;
            l.mangledName = mangled == UINT32_MAX ? k.name : mangled;
            l.shortName = shortName == UINT32_MAX ? k.name : shortName;
            for (int i = 0; i < 3; ++i) {
                l.grid[i] = static_cast<uint32_t>(st.i64(10 + i));
                l.block[i] = static_cast<uint32_t>(st.i64(13 + i));
            }
            l.registersPerThread = static_cast<uint32_t>(st.i64(16));
            l.staticSharedBytes = static_cast<uint32_t>(st.i64(17));
            l.dynamicSharedBytes = static_cast<uint32_t>(st.i64(18));
            l.localBytesPerThread = static_cast<uint32_t>(st.i64(19));
            l.launchType = clampEnum(st.i64(20), LaunchType::Regular, 3);
            l.graphId = static_cast<uint32_t>(st.i64(21));
            l.graphNodeId = static_cast<uint64_t>(st.i64(22));
            m_b.add(k);
            noteStream(k.place.pid, k.place.device, k.place.context, k.place.stream);
            noteEnd(k.end);
        });
}

Status NsysSqliteImporter::readMemcpy() {
    return forEachRow(
        "CUPTI_ACTIVITY_KIND_MEMCPY",
        {{"start"},
         {"end"},
         {"deviceId"},
         {"contextId"},
         {"streamId"},
         {"globalPid"},
         {"correlationId"},
         {"bytes"},
         {"copyKind"},
         {"srcKind"},
         {"dstKind"},
         {"srcDeviceId"},
         {"dstDeviceId"}},
        [this](const sqlite::Stmt& st) {
            MemcpyOp m;
            m.start = st.i64(0);
            m.end = endAfter(m.start, st.i64(1));
            m.place = placeOf(st, 2);
            m.correlation = static_cast<uint32_t>(st.i64(6));
            m.bytes = static_cast<uint64_t>(st.i64(7));
            m.copyKind = clampEnum(st.i64(8), CopyKind::Unknown, 13);
            m.srcKind =
                st.isNull(9) ? MemoryKind::Unknown : clampEnum(st.i64(9), MemoryKind::Unknown, 7);
            m.dstKind =
                st.isNull(10) ? MemoryKind::Unknown : clampEnum(st.i64(10), MemoryKind::Unknown, 7);
            m.srcDevice = st.isNull(11) ? int16_t{-1} : static_cast<int16_t>(st.i64(11));
            m.dstDevice = st.isNull(12) ? int16_t{-1} : static_cast<int16_t>(st.i64(12));
            m_b.add(m);
            noteStream(m.place.pid, m.place.device, m.place.context, m.place.stream);
            noteEnd(m.end);
        });
}

Status NsysSqliteImporter::readMemset() {
    return forEachRow("CUPTI_ACTIVITY_KIND_MEMSET",
                      {{"start"},
                       {"end"},
                       {"deviceId"},
                       {"contextId"},
                       {"streamId"},
                       {"globalPid"},
                       {"correlationId"},
                       {"bytes"},
                       {"value"},
                       {"memKind"}},
                      [this](const sqlite::Stmt& st) {
                          MemsetOp m;
                          m.start = st.i64(0);
                          m.end = endAfter(m.start, st.i64(1));
                          m.place = placeOf(st, 2);
                          m.correlation = static_cast<uint32_t>(st.i64(6));
                          m.bytes = static_cast<uint64_t>(st.i64(7));
                          m.value = static_cast<uint32_t>(st.i64(8));
                          m.memKind = st.isNull(9) ? MemoryKind::Unknown
                                                   : clampEnum(st.i64(9), MemoryKind::Unknown, 7);
                          m_b.add(m);
                          noteStream(m.place.pid, m.place.device, m.place.context, m.place.stream);
                          noteEnd(m.end);
                      });
}

Status NsysSqliteImporter::readSync() {
    return forEachRow("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                      {{"start"},
                       {"end"},
                       {"deviceId"},
                       {"contextId"},
                       {"streamId"},
                       {"globalPid"},
                       {"correlationId"},
                       {"syncType"},
                       {"eventId"}},
                      [this](const sqlite::Stmt& st) {
                          SyncOp s;
                          s.start = st.i64(0);
                          s.end = endAfter(s.start, st.i64(1));
                          s.place = placeOf(st, 2);
                          s.correlation = static_cast<uint32_t>(st.i64(6));
                          s.type = clampEnum(st.i64(7), SyncType::Unknown, 4);
                          s.event = static_cast<uint32_t>(st.i64(8));
                          m_b.add(s);
                          noteStream(s.place.pid, s.place.device, s.place.context, s.place.stream);
                          noteEnd(s.end);
                      });
}

Status NsysSqliteImporter::readCudaEvents() {
    const std::string table = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
    if (!m_db.hasTable(table)) return Status::success();
    NsysColumns c(m_db, table);
    if (!c.has("start")) {
        // Older schemas record cudaEventRecord without a time: nothing to draw.
        m_readTables.insert(table);
        sqlite::Stmt n(m_db, "SELECT count(*) FROM " + table);
        if (n.valid() && n.step() && n.i64(0) > 0)
            m_b.addDiagnostic("nsys.cuda_events_without_time", n.i64(0),
                              "CUDA event records of this nsys version carry no timestamps and "
                              "were not imported");
        return Status::success();
    }
    return forEachRow(table,
                      {{"start"},
                       {"end"},
                       {"deviceId"},
                       {"contextId"},
                       {"streamId"},
                       {"globalPid"},
                       {"correlationId"},
                       {"eventId"}},
                      [this](const sqlite::Stmt& st) {
                          SyncOp s;
                          s.start = st.i64(0);
                          s.end = endAfter(s.start, st.i64(1));
                          s.place = placeOf(st, 2);
                          s.correlation = static_cast<uint32_t>(st.i64(6));
                          s.type = SyncType::EventRecord;
                          s.event = static_cast<uint32_t>(st.i64(7));
                          m_b.add(s);
                          noteStream(s.place.pid, s.place.device, s.place.context, s.place.stream);
                          noteEnd(s.end);
                      });
}

Status NsysSqliteImporter::readRuntime() {
    int64_t backtraces = 0, unknownClass = 0;
    auto st = forEachRow("CUPTI_ACTIVITY_KIND_RUNTIME",
                         {{"start"},
                          {"end"},
                          {"globalTid"},
                          {"correlationId"},
                          {"nameId"},
                          {"returnValue"},
                          {"eventClass"},
                          {"name"}},
                         [&](const sqlite::Stmt& row) {
                             const int64_t cls = row.isNull(6) ? kRuntimeClass : row.i64(6);
                             // eventClass 67 rows repeat a call to carry its backtrace: not calls.
                             if (cls == kBacktraceClass) {
                                 ++backtraces;
                                 return;
                             }
                             if (cls != kRuntimeClass && cls != kDriverClass) {
                                 ++unknownClass;
                                 return;
                             }
                             CudaApiCall c;
                             c.start = row.i64(0);
                             c.end = endAfter(c.start, row.i64(1));
                             const int64_t g = row.i64(2);
                             c.pid = pidOf(g);
                             c.tid = tidOf(g);
                             c.correlation = static_cast<uint32_t>(row.i64(3));
                             c.name = !row.isNull(4)   ? apiName(row.i64(4))
                                      : !row.isNull(7) ? internText(row.text(7))
                                                       : m_b.intern("(unnamed API call)");
                             c.result = static_cast<int32_t>(row.i64(5));
                             c.api = cls == kDriverClass ? ApiKind::Driver : ApiKind::Runtime;
                             m_b.add(c);
                             noteThread(g);
                             noteEnd(c.end);
                         });
    if (backtraces)
        m_b.addDiagnostic("nsys.runtime_backtrace_rows", backtraces,
                          "RUNTIME rows of eventClass 67 duplicate API calls to carry their "
                          "backtraces; not imported "
                          "as calls");
    if (unknownClass)
        m_b.addDiagnostic("nsys.runtime_unknown_class", unknownClass,
                          "RUNTIME rows of an eventClass other than 0 (runtime) and 1 (driver) "
                          "were not imported");
    return st;
}

Status NsysSqliteImporter::readNvtx() {
    int64_t unterminated = 0, unknownType = 0;
    std::map<uint32_t, std::string> globalDomains;
    std::map<std::pair<int64_t, uint32_t>, std::string> domains;
    std::set<std::pair<int64_t, uint32_t>> usedDomains;
    auto st = forEachRow(
        "NVTX_EVENTS",
        {{"start"},
         {"end"},
         {"eventType"},
         {"globalTid"},
         {"endGlobalTid"},
         {"text"},
         {"textId"},
         {"domainId"},
         {"category"},
         {"color"},
         {"uint64Value"},
         {"int64Value"},
         {"doubleValue"},
         {"uint32Value"},
         {"int32Value"},
         {"floatValue"}},
        [&](const sqlite::Stmt& row) {
            const int64_t type = row.i64(2);
            const int64_t g = row.i64(3);
            const int64_t pid = pidOf(g), tid = tidOf(g);
            const uint32_t domain = static_cast<uint32_t>(row.i64(7));
            std::string_view text = row.text(5);
            std::string textCopy;
            if (row.isNull(5) && !row.isNull(6)) {
                const int64_t id = row.i64(6);
                if (id >= 0 && static_cast<size_t>(id) < m_rawStrings.size())
                    text = m_rawStrings[static_cast<size_t>(id)];
            }
            switch (type) {
                case kNvtxDomainCreate:
                    domains[{pid, domain}] = sanitizeUtf8(text);
                    globalDomains[domain] = sanitizeUtf8(text);
                    return;
                case kNvtxDomainDestroy:
                    return;
                case kNvtxCategory:
                    m_b.report().nvtxCategories.push_back(NvtxCategory{
                        pid, domain, static_cast<uint32_t>(row.i64(8)), sanitizeUtf8(text)});
                    return;
                case kNvtxThreadName:
                    m_nvtxThreadNames[{pid, tid}] = sanitizeUtf8(text);
                    return;
                case kNvtxMark:
                case kNvtxPushPop:
                case kNvtxStartEnd:
                    break;
                default:
                    ++unknownType;
                    return;
            }
            const uint32_t message =
                (row.isNull(5) && row.isNull(6)) ? m_b.intern("") : internText(text);
            const uint32_t category = static_cast<uint32_t>(row.i64(8));
            const uint32_t color = static_cast<uint32_t>(row.i64(9));
            PayloadType pt = PayloadType::None;
            uint64_t payload = 0;
            if (!row.isNull(10)) {
                pt = PayloadType::U64;
                payload = static_cast<uint64_t>(row.i64(10));
            } else if (!row.isNull(11)) {
                pt = PayloadType::I64;
                payload = static_cast<uint64_t>(row.i64(11));
            } else if (!row.isNull(12)) {
                pt = PayloadType::F64;
                payload = std::bit_cast<uint64_t>(row.f64(12));
            } else if (!row.isNull(13)) {
                pt = PayloadType::U32;
                payload = static_cast<uint32_t>(row.i64(13));
            } else if (!row.isNull(14)) {
                pt = PayloadType::I32;
                payload = static_cast<uint64_t>(row.i64(14));
            } else if (!row.isNull(15)) {
                pt = PayloadType::F32;
                payload = std::bit_cast<uint32_t>(static_cast<float>(row.f64(15)));
            }
            noteThread(g);
            if (domain) usedDomains.emplace(pid, domain);
            if (type == kNvtxMark) {
                NvtxMarkEvent m{pid,      tid,   domain, row.i64(0), message,
                                category, color, pt,     payload};
                m_b.add(m);
                noteEnd(m.time);
                return;
            }
            if (row.isNull(1)) {
                ++unterminated;
                return;
            }
            NvtxRangeEvent r;
            r.pid = pid;
            r.tid = tid;
            r.domain = domain;
            r.start = row.i64(0);
            r.end = endAfter(r.start, row.i64(1));
            r.message = message;
            r.category = category;
            r.color = color;
            r.payloadType = pt;
            r.payload = payload;
            r.rangeType = type == kNvtxStartEnd ? RangeType::StartEnd : RangeType::PushPop;
            if (!row.isNull(4) && row.i64(4) != g) r.endTid = tidOf(row.i64(4));
            m_b.add(r);
            noteEnd(r.end);
        });
    for (const auto& key : usedDomains) {
        std::string name;
        if (auto it = domains.find(key); it != domains.end())
            name = it->second;
        else if (auto jt = globalDomains.find(key.second); jt != globalDomains.end())
            name = jt->second;
        else
            name = "domain " + std::to_string(key.second);
        m_b.report().nvtxDomains.push_back(NvtxDomain{key.first, key.second, name});
    }
    if (unterminated)
        m_b.addDiagnostic("nsys.nvtx_unterminated_ranges", unterminated,
                          "NVTX ranges that never ended (no end time) were not imported");
    if (unknownType)
        m_b.addDiagnostic(
            "nsys.nvtx_unknown_event_type", unknownType,
            "NVTX_EVENTS rows of an eventType Sightline does not know were not imported");
    return st;
}

Status NsysSqliteImporter::readOsrt() {
    return forEachRow("OSRT_API", {{"start"}, {"end"}, {"globalTid"}, {"nameId"}, {"returnValue"}},
                      [this](const sqlite::Stmt& st) {
                          OsRuntimeCall c;
                          c.start = st.i64(0);
                          c.end = endAfter(c.start, st.i64(1));
                          const int64_t g = st.i64(2);
                          c.pid = pidOf(g);
                          c.tid = tidOf(g);
                          c.function = nameAt(st, 3);
                          if (c.function == UINT32_MAX) c.function = m_b.intern("(unnamed call)");
                          c.result = st.i64(4);
                          m_b.add(c);
                          noteThread(g);
                          noteEnd(c.end);
                      });
}

Status NsysSqliteImporter::readMemoryUsage() {
    return forEachRow("CUDA_GPU_MEMORY_USAGE_EVENTS",
                      {{"start"},
                       {"globalPid"},
                       {"deviceId"},
                       {"address"},
                       {"bytes"},
                       {"memKind"},
                       {"memoryOperationType"},
                       {"correlationId"}},
                      [this](const sqlite::Stmt& st) {
                          CudaMemoryEvent e;
                          e.time = st.i64(0);
                          e.pid = pidOf(st.i64(1));
                          e.device = static_cast<int32_t>(st.i64(2));
                          e.address = static_cast<uint64_t>(st.i64(3));
                          e.bytes = static_cast<uint64_t>(st.i64(4));
                          e.memKind = clampEnum(st.i64(5), MemoryKind::Unknown, 7);
                          // ENUM_CUDA_DEV_MEM_EVENT_OPER: 0 allocation, 1 deallocation.
                          e.op = st.i64(6) == 1 ? MemoryOp::Free : MemoryOp::Alloc;
                          e.correlation = static_cast<uint32_t>(st.i64(7));
                          m_b.add(e);
                          m_pids.insert(e.pid);
                          noteEnd(e.time);
                      });
}

Status NsysSqliteImporter::readGpuMetrics() {
    if (!m_db.hasTable("GPU_METRICS")) return Status::success();
    // TARGET_INFO_GPU_METRICS names each (typeId, metricId); typeId's low byte is the GPU.
    std::map<std::pair<int64_t, int64_t>, std::string> names;
    if (m_db.hasTable("TARGET_INFO_GPU_METRICS")) {
        NsysColumns c(m_db, "TARGET_INFO_GPU_METRICS");
        sqlite::Stmt st(m_db, buildSelect(c, {{"typeId"}, {"metricId"}, {"metricName"}}));
        while (st.valid() && st.step()) names[{st.i64(0), st.i64(1)}] = sanitizeUtf8(st.text(2));
    }
    std::map<std::pair<int64_t, int64_t>, uint32_t> seriesOf;
    auto& series = m_b.report().metricSeries;
    return forEachRow("GPU_METRICS", {{"timestamp", "start"}, {"typeId"}, {"metricId"}, {"value"}},
                      [&](const sqlite::Stmt& st) {
                          const std::pair<int64_t, int64_t> key{st.i64(1), st.i64(2)};
                          auto it = seriesOf.find(key);
                          if (it == seriesOf.end()) {
                              MetricSeries s;
                              s.seriesId = static_cast<uint32_t>(series.size() + 1);
                              auto nt = names.find(key);
                              s.name = nt != names.end()
                                           ? nt->second
                                           : "GPU metric " + std::to_string(key.second);
                              s.unit = s.name.find('%') != std::string::npos ? "%" : "";
                              s.source = "nsys-gpu-metrics";
                              s.deviceId = static_cast<int32_t>(key.first & 0xFF);
                              series.push_back(s);
                              it = seriesOf.emplace(key, s.seriesId).first;
                          }
                          MetricSample m{it->second, st.i64(0), st.f64(3)};
                          m_b.add(m);
                          noteEnd(m.time);
                      });
}

Status NsysSqliteImporter::readSched() {
    // SCHED_EVENTS holds context switches: a sched-in and the next sched-out of a thread bound
    // one period of running on a CPU.
    const std::string table = "SCHED_EVENTS";
    if (!m_db.hasTable(table)) return Status::success();
    NsysColumns c(m_db, table);
    if (!c.has("start") || !c.has("isSchedIn") || !c.has("globalTid")) return Status::success();
    int64_t unpaired = 0;
    int64_t pendingTid = INT64_MIN, pendingStart = 0, pendingCpu = -1;
    bool pending = false;
    auto st = forEachRow(
        table, {{"start"}, {"cpu"}, {"isSchedIn"}, {"globalTid"}},
        [&](const sqlite::Stmt& row) {
            const int64_t g = row.i64(3), t = row.i64(0);
            if (pending && g != pendingTid) {
                ++unpaired;  // the previous thread was still running when the capture ended
                pending = false;
            }
            if (row.i64(2) != 0) {
                if (pending) ++unpaired;
                pending = true;
                pendingTid = g;
                pendingStart = t;
                pendingCpu = row.i64(1);
                return;
            }
            if (!pending) {
                ++unpaired;  // running since before the capture started
                return;
            }
            ThreadRunning r{pidOf(g), tidOf(g), pendingStart, std::max(pendingStart, t),
                            static_cast<int16_t>(pendingCpu)};
            m_b.add(r);
            noteThread(g);
            noteEnd(r.end);
            pending = false;
        },
        "1 ORDER BY globalTid, start");
    if (pending) ++unpaired;
    if (unpaired)
        m_b.addDiagnostic("nsys.sched_unpaired", unpaired,
                          "context switches without their matching switch (at the capture's edges) "
                          "were not turned into running periods");
    return st;
}

}  // namespace sl::import
