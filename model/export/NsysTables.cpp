#include "model/export/NsysTables.h"

#include "model/analysis/StatsCommon.h"
#include "model/core/NsysNvtxTypes.h"
#include "model/export/NsysEnums.h"
#include "model/export/NsysCudaLibTables.h"
#include "model/export/NsysMpiTables.h"
#include "model/export/NsysOpenMpTables.h"
#include "model/export/NsysSampleTables.h"
#include "model/export/NsysDiagnosticTables.h"
#include "model/export/TableScope.h"

#include <bit>
#include <ctime>
#include <unordered_map>

namespace sl::exporter {
namespace {

constexpr int64_t kHardwareId = int64_t{1} << 48;  // the "vm/hardware" part of nsys GlobalIds

// nsys's NVTX_EVENTS eventType values and CUDA API eventClass values.
using namespace nsys;  // NVTX event types
constexpr int64_t kOsrtEventClass = 1;  // as nsys 2022 writes OSRT_API.eventClass

// Extra strings that live outside the report's string table (thread and domain names).
class ExtraStrings {
public:
    explicit ExtraStrings(const Report& r) : m_base(static_cast<uint32_t>(r.strings.size())), m_report(r) {}
    uint32_t id(const std::string& s) {
        if (auto found = m_report.strings.find(s)) return *found;
        auto [it, inserted] = m_ids.try_emplace(s, m_base + static_cast<uint32_t>(m_values.size()));
        if (inserted) m_values.push_back(s);
        return it->second;
    }
    uint32_t base() const { return m_base; }
    const std::vector<std::string>& values() const { return m_values; }

private:
    uint32_t m_base;
    const Report& m_report;
    std::unordered_map<std::string, uint32_t> m_ids;
    std::vector<std::string> m_values;
};

Cell I(int64_t v) { return Cell::of(v); }
Cell T(std::string_view v) { return Cell::text(v); }
Cell N() { return Cell::null(); }

std::string utcText(int64_t ns) {
    std::time_t secs = static_cast<std::time_t>(ns / 1'000'000'000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
}

class Emitter {
public:
    Emitter(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats)
        : m_r(r), m_o(o), m_sink(sink), m_stats(stats), m_extra(r), m_origin(r.timeOrigin()) {}

    Status run() {
        static constexpr Status (Emitter::*kSteps[])() = {
            &Emitter::runtime,     &Emitter::kernels,     &Emitter::memcpys,      &Emitter::memsets,
            &Emitter::syncs,       &Emitter::nvtx,        &Emitter::osrt,         &Emitter::sched,
            &Emitter::mpi,
            &Emitter::openmp,      &Emitter::cudaLibs,    &Emitter::samples,      &Emitter::memoryUsage,
            &Emitter::metrics,     &Emitter::threads,     &Emitter::processes,    &Emitter::gpus,
            &Emitter::cudaDevices, &Emitter::sessionStart, &Emitter::diagnostics, &Emitter::enums,
            &Emitter::metaData,    &Emitter::stringIds};
        for (auto step : kSteps) {
            if (Status s = (this->*step)(); !s) return s;
            ++m_step;
            if (m_o.progress) m_o.progress(static_cast<double>(m_step) / static_cast<double>(std::size(kSteps)));
        }
        return {};
    }

private:
    int64_t ts(int64_t t) const { return t - m_origin; }
    std::vector<const Track*> tracks(EventKind k) const { return m_r.tracksOfKind(k); }

    // Emits one row per event of `kind` inside the window; `fill` writes the cells.
    template <size_t N, class F>
    Status perEvent(std::string_view table, const ColumnDef (&defs)[N], EventKind kind, F fill) {
        auto list = tracks(kind);
        if (list.empty()) return {};
        TableScope t(m_sink, m_stats, table, defs);
        if (!t.open()) return {};
        Cell c[N];
        for (const Track* tr : list)
            for (size_t i = 0; i < tr->size(); ++i) {
                if (!m_o.inWindow(tr->start[i], tr->endAt(i))) continue;
                fill(*tr, i, c);
                t.row(c);
            }
        return t.finish();
    }

    Status runtime() {
        static constexpr ColumnDef d[] = {{"start", "INTEGER NOT NULL"},   {"end", "INTEGER NOT NULL"},
                                          {"eventClass", "INTEGER NOT NULL"}, {"globalTid", "INTEGER"},
                                          {"correlationId", "INTEGER"},    {"nameId", "INTEGER NOT NULL"},
                                          {"returnValue", "INTEGER NOT NULL"}, {"callchainId", "INTEGER"}};
        return perEvent("CUPTI_ACTIVITY_KIND_RUNTIME", d, EventKind::CudaApi, [&](const Track& t, size_t i, Cell* c) {
            const int64_t gt = globalTid(t.key.pid, t.key.tid);
            c[0] = I(ts(t.start[i]));
            c[1] = I(ts(t.end[i]));
            c[2] = I(t.col<uint8_t>(cols::CudaApi::Api)[i]);
            c[3] = I(gt);
            c[4] = I(t.col<uint32_t>(cols::CudaApi::Correlation)[i]);
            c[5] = I(t.name[i]);
            c[6] = I(t.col<int32_t>(cols::CudaApi::Result)[i]);
            const int64_t chain = callchainIdOf(m_r, t, i);  // --python-backtrace=cuda
            c[7] = chain ? I(chain) : N();
        });
    }

    Status kernels() {
        static constexpr ColumnDef d[] = {
            {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"}, {"deviceId", "INTEGER NOT NULL"},
            {"contextId", "INTEGER NOT NULL"}, {"streamId", "INTEGER NOT NULL"}, {"correlationId", "INTEGER"},
            {"globalPid", "INTEGER"}, {"demangledName", "INTEGER NOT NULL"}, {"shortName", "INTEGER NOT NULL"},
            {"mangledName", "INTEGER"}, {"launchType", "INTEGER"}, {"cacheConfig", "INTEGER"},
            {"registersPerThread", "INTEGER NOT NULL"}, {"gridX", "INTEGER NOT NULL"}, {"gridY", "INTEGER NOT NULL"},
            {"gridZ", "INTEGER NOT NULL"}, {"blockX", "INTEGER NOT NULL"}, {"blockY", "INTEGER NOT NULL"},
            {"blockZ", "INTEGER NOT NULL"}, {"staticSharedMemory", "INTEGER NOT NULL"},
            {"dynamicSharedMemory", "INTEGER NOT NULL"}, {"localMemoryPerThread", "INTEGER NOT NULL"},
            {"localMemoryTotal", "INTEGER NOT NULL"}, {"gridId", "INTEGER NOT NULL"}, {"sharedMemoryExecuted", "INTEGER"},
            {"graphNodeId", "INTEGER"}, {"sharedMemoryLimitConfig", "INTEGER"}, {"graphId", "INTEGER"}};
        int64_t gridId = 0;
        const KernelLaunchInfo none{};
        return perEvent("CUPTI_ACTIVITY_KIND_KERNEL", d, EventKind::Kernel, [&](const Track& t, size_t i, Cell* c) {
            const uint32_t launch = t.col<uint32_t>(cols::Kernel::Launch)[i];
            const KernelLaunchInfo& li = launch < m_r.kernelLaunches.size() ? m_r.kernelLaunches[launch] : none;
            c[0] = I(ts(t.start[i]));
            c[1] = I(ts(t.end[i]));
            c[2] = I(t.key.device);
            c[3] = I(t.key.context);
            c[4] = I(t.key.stream);
            c[5] = I(t.col<uint32_t>(cols::Kernel::Correlation)[i]);
            c[6] = I(globalPid(t.key.pid));
            c[7] = I(t.name[i]);
            c[8] = I(li.shortName ? li.shortName : t.name[i]);
            c[9] = li.mangledName ? I(li.mangledName) : N();
            c[10] = I(static_cast<int64_t>(li.launchType));
            c[11] = N();
            c[12] = I(li.registersPerThread);
            c[13] = I(li.grid[0]);
            c[14] = I(li.grid[1]);
            c[15] = I(li.grid[2]);
            c[16] = I(li.block[0]);
            c[17] = I(li.block[1]);
            c[18] = I(li.block[2]);
            c[19] = I(li.staticSharedBytes);
            c[20] = I(li.dynamicSharedBytes);
            c[21] = I(li.localBytesPerThread);
            c[22] = I(0);
            c[23] = I(++gridId);
            c[24] = N();
            c[25] = li.graphNodeId ? I(static_cast<int64_t>(li.graphNodeId)) : N();
            c[26] = N();
            c[27] = li.graphId ? I(li.graphId) : N();
        });
    }

    Status memcpys() {
        static constexpr ColumnDef d[] = {
            {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"}, {"deviceId", "INTEGER NOT NULL"},
            {"contextId", "INTEGER NOT NULL"}, {"streamId", "INTEGER NOT NULL"}, {"correlationId", "INTEGER"},
            {"globalPid", "INTEGER"}, {"bytes", "INTEGER NOT NULL"}, {"copyKind", "INTEGER NOT NULL"},
            {"deprecatedSrcId", "INTEGER"}, {"srcKind", "INTEGER"}, {"dstKind", "INTEGER"}, {"srcDeviceId", "INTEGER"},
            {"srcContextId", "INTEGER"}, {"dstDeviceId", "INTEGER"}, {"dstContextId", "INTEGER"},
            {"migrationCause", "INTEGER"}, {"graphNodeId", "INTEGER"}, {"virtualAddress", "INTEGER"}};
        return perEvent("CUPTI_ACTIVITY_KIND_MEMCPY", d, EventKind::Memcpy, [&](const Track& t, size_t i, Cell* c) {
            const int16_t src = t.col<int16_t>(cols::Memcpy::SrcDevice)[i], dst = t.col<int16_t>(cols::Memcpy::DstDevice)[i];
            c[0] = I(ts(t.start[i]));
            c[1] = I(ts(t.end[i]));
            c[2] = I(t.key.device);
            c[3] = I(t.key.context);
            c[4] = I(t.key.stream);
            c[5] = I(t.col<uint32_t>(cols::Memcpy::Correlation)[i]);
            c[6] = I(globalPid(t.key.pid));
            c[7] = I(t.intAt(cols::Memcpy::Bytes, i));
            c[8] = I(t.col<uint8_t>(cols::Memcpy::CopyKind)[i]);
            c[9] = N();
            c[10] = I(t.col<uint8_t>(cols::Memcpy::SrcKind)[i]);
            c[11] = I(t.col<uint8_t>(cols::Memcpy::DstKind)[i]);
            c[12] = src >= 0 ? I(src) : N();
            c[13] = src >= 0 ? I(t.key.context) : N();
            c[14] = dst >= 0 ? I(dst) : N();
            c[15] = dst >= 0 ? I(t.key.context) : N();
            c[16] = N();
            c[17] = N();
            c[18] = N();
        });
    }

    Status memsets() {
        static constexpr ColumnDef d[] = {
            {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"}, {"deviceId", "INTEGER NOT NULL"},
            {"contextId", "INTEGER NOT NULL"}, {"streamId", "INTEGER NOT NULL"}, {"correlationId", "INTEGER"},
            {"globalPid", "INTEGER"}, {"value", "INTEGER NOT NULL"}, {"bytes", "INTEGER NOT NULL"},
            {"graphNodeId", "INTEGER"}, {"memKind", "INTEGER"}};
        return perEvent("CUPTI_ACTIVITY_KIND_MEMSET", d, EventKind::Memset, [&](const Track& t, size_t i, Cell* c) {
            c[0] = I(ts(t.start[i]));
            c[1] = I(ts(t.end[i]));
            c[2] = I(t.key.device);
            c[3] = I(t.key.context);
            c[4] = I(t.key.stream);
            c[5] = I(t.col<uint32_t>(cols::Memset::Correlation)[i]);
            c[6] = I(globalPid(t.key.pid));
            c[7] = I(t.col<uint32_t>(cols::Memset::Value)[i]);
            c[8] = I(t.intAt(cols::Memset::Bytes, i));
            c[9] = N();
            c[10] = I(t.col<uint8_t>(cols::Memset::MemKind)[i]);
        });
    }

    Status syncs() {
        static constexpr ColumnDef d[] = {
            {"start", "INTEGER NOT NULL"}, {"end", "INTEGER NOT NULL"}, {"deviceId", "INTEGER NOT NULL"},
            {"contextId", "INTEGER NOT NULL"}, {"streamId", "INTEGER NOT NULL"}, {"correlationId", "INTEGER"},
            {"globalPid", "INTEGER"}, {"syncType", "INTEGER NOT NULL"}, {"eventId", "INTEGER NOT NULL"}};
        return perEvent("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", d, EventKind::Sync, [&](const Track& t, size_t i, Cell* c) {
            c[0] = I(ts(t.start[i]));
            c[1] = I(ts(t.end[i]));
            c[2] = I(t.key.device);
            c[3] = I(t.key.context);
            c[4] = I(t.key.stream);
            c[5] = I(t.col<uint32_t>(cols::Sync::Correlation)[i]);
            c[6] = I(globalPid(t.key.pid));
            c[7] = I(t.col<uint8_t>(cols::Sync::SyncType)[i]);
            c[8] = I(t.col<uint32_t>(cols::Sync::Event)[i]);
        });
    }

    Status nvtx() {
        static constexpr ColumnDef d[] = {
            {"start", "INTEGER NOT NULL"}, {"end", "INTEGER"}, {"eventType", "INTEGER NOT NULL"}, {"rangeId", "INTEGER"},
            {"category", "INTEGER"}, {"color", "INTEGER"}, {"text", "TEXT"}, {"globalTid", "INTEGER"},
            {"endGlobalTid", "INTEGER"}, {"textId", "INTEGER"}, {"domainId", "INTEGER"}, {"uint64Value", "INTEGER"},
            {"int64Value", "INTEGER"}, {"doubleValue", "REAL"}, {"uint32Value", "INTEGER"}, {"int32Value", "INTEGER"},
            {"floatValue", "REAL"}, {"jsonTextId", "INTEGER"}, {"jsonText", "TEXT"}};
        auto ranges = tracks(EventKind::NvtxRange), marks = tracks(EventKind::NvtxMark);
        if (ranges.empty() && marks.empty()) return {};
        TableScope t(m_sink, m_stats, "NVTX_EVENTS", d);
        if (!t.open()) return {};
        Cell c[19];
        // Names are in both `text` and `textId` (StringIds), so scripts reading either (or
        // coalesce(text, StringIds.value) as nsys's own reports do) find them.
        // Domain creations first, as nsys writes them (scripts join on them for domain names).
        for (const auto& dom : m_r.nvtxDomains) {
            if (dom.domainId == 0) continue;
            for (auto& x : c) x = N();
            c[0] = I(0);
            c[2] = I(kNvtxDomainCreate);
            c[6] = T(dom.name);
            c[7] = I(globalTid(dom.pid, dom.pid));
            c[9] = I(m_extra.id(dom.name));
            c[10] = I(dom.domainId);
            t.row(c);
        }
        // Category names (nvtxNameCategory, nvtxDomainNameCategory), as nsys writes them.
        for (const auto& cat : m_r.nvtxCategories) {
            for (auto& x : c) x = N();
            c[0] = I(0);
            c[2] = I(kNvtxCategory);
            c[4] = I(cat.category);
            c[6] = T(cat.name);
            c[7] = I(globalTid(cat.pid, cat.pid));
            c[9] = I(m_extra.id(cat.name));
            c[10] = I(cat.domainId);
            t.row(c);
        }
        int64_t rangeId = 0;
        auto payload = [&](const Track& tr, int typeCol, int valueCol, size_t i) {
            const auto type = static_cast<PayloadType>(tr.col<uint8_t>(typeCol)[i]);
            const uint64_t bits = static_cast<uint64_t>(tr.intAt(valueCol, i));
            switch (type) {
                case PayloadType::U64: c[11] = I(static_cast<int64_t>(bits)); break;
                case PayloadType::I64: c[12] = I(static_cast<int64_t>(bits)); break;
                case PayloadType::F64: c[13] = Cell::real(std::bit_cast<double>(bits)); break;
                case PayloadType::U32: c[14] = I(static_cast<int64_t>(bits & 0xFFFFFFFFu)); break;
                case PayloadType::I32: c[15] = I(static_cast<int32_t>(bits & 0xFFFFFFFFu)); break;
                case PayloadType::F32: c[16] = Cell::real(std::bit_cast<float>(static_cast<uint32_t>(bits))); break;
                case PayloadType::None: break;
            }
        };
        for (const Track* tr : ranges) {
            const auto& endTid = tr->col<int64_t>(cols::Nvtx::EndTid);
            for (size_t i = 0; i < tr->size(); ++i) {
                if (!m_o.inWindow(tr->start[i], tr->end[i])) continue;
                for (auto& x : c) x = N();
                const bool startEnd = tr->col<uint8_t>(cols::Nvtx::RangeType)[i] == static_cast<uint8_t>(RangeType::StartEnd);
                c[0] = I(ts(tr->start[i]));
                c[1] = I(ts(tr->end[i]));
                c[2] = I(startEnd ? kNvtxStartEnd : kNvtxPushPop);
                if (startEnd) c[3] = I(++rangeId);
                if (uint32_t cat = tr->col<uint32_t>(cols::Nvtx::Category)[i]) c[4] = I(cat);
                if (uint32_t color = tr->col<uint32_t>(cols::Nvtx::Color)[i]) c[5] = I(color);
                c[6] = T(m_r.str(tr->name[i]));
                c[7] = I(globalTid(tr->key.pid, tr->key.tid));
                c[9] = I(tr->name[i]);
                if (endTid[i] != 0 && endTid[i] != tr->key.tid) c[8] = I(globalTid(tr->key.pid, endTid[i]));
                c[10] = I(tr->key.domain);
                payload(*tr, cols::Nvtx::PayloadType, cols::Nvtx::Payload, i);
                t.row(c);
            }
        }
        for (const Track* tr : marks) {
            for (size_t i = 0; i < tr->size(); ++i) {
                if (!m_o.inWindow(tr->start[i], tr->start[i])) continue;
                for (auto& x : c) x = N();
                c[0] = I(ts(tr->start[i]));
                c[2] = I(kNvtxMark);
                if (uint32_t cat = tr->col<uint32_t>(0)[i]) c[4] = I(cat);
                if (uint32_t color = tr->col<uint32_t>(1)[i]) c[5] = I(color);
                c[6] = T(m_r.str(tr->name[i]));
                c[7] = I(globalTid(tr->key.pid, tr->key.tid));
                c[9] = I(tr->name[i]);
                c[10] = I(tr->key.domain);
                payload(*tr, 2, 3, i);
                t.row(c);
            }
        }
        return t.finish();
    }

    Status osrt() {
        static constexpr ColumnDef d[] = {{"start", "INTEGER NOT NULL"},     {"end", "INTEGER NOT NULL"},
                                          {"eventClass", "INTEGER NOT NULL"}, {"globalTid", "INTEGER"},
                                          {"nameId", "INTEGER NOT NULL"},     {"returnValue", "INTEGER NOT NULL"},
                                          {"nestingLevel", "INTEGER"},        {"callchainId", "INTEGER"}};
        return perEvent("OSRT_API", d, EventKind::OsRuntime, [&](const Track& t, size_t i, Cell* c) {
            c[0] = I(ts(t.start[i]));
            c[1] = I(ts(t.end[i]));
            c[2] = I(kOsrtEventClass);
            c[3] = I(globalTid(t.key.pid, t.key.tid));
            c[4] = I(t.name[i]);
            c[5] = I(t.col<int64_t>(cols::OsRuntime::Result)[i]);
            c[6] = I(t.laneOf(i));
            const int64_t chain = callchainIdOf(m_r, t, i);
            c[7] = chain ? I(chain) : N();
        });
    }

    // Context switches (--cpuctxsw) as nsys keeps them: a sched-in row at the start of each
    // running period and a sched-out row at its end, on the period's CPU. Our importer pairs
    // them back into the same periods (NsysEventTables.cpp, readSched).
    Status sched() {
        static constexpr ColumnDef d[] = {{"start", "INTEGER NOT NULL"},
                                          {"cpu", "INTEGER NOT NULL"},
                                          {"isSchedIn", "INTEGER NOT NULL"},
                                          {"globalTid", "INTEGER"}};
        auto list = tracks(EventKind::ThreadState);
        if (list.empty()) return {};
        TableScope t(m_sink, m_stats, "SCHED_EVENTS", d);
        if (!t.open()) return {};
        for (const Track* tr : list) {
            const int64_t gt = globalTid(tr->key.pid, tr->key.tid);
            for (size_t i = 0; i < tr->size(); ++i) {
                if (tr->col<uint8_t>(cols::ThreadState::State)[i] !=
                        static_cast<uint8_t>(ThreadStateKind::Running) ||
                    !m_o.inWindow(tr->start[i], tr->endAt(i)))
                    continue;
                const int64_t cpu = tr->intAt(cols::ThreadState::Cpu, i);
                Cell in[] = {I(ts(tr->start[i])), I(cpu < 0 ? 0 : cpu), I(1), I(gt)};
                t.row(in);
                Cell out[] = {I(ts(tr->endAt(i))), I(cpu < 0 ? 0 : cpu), I(0), I(gt)};
                t.row(out);
            }
        }
        return t.finish();
    }

    Status mpi() { return emitMpiTables(m_r, m_o, m_sink, m_stats, m_origin); }
    Status openmp() { return emitOpenMpTables(m_r, m_o, m_sink, m_stats, m_origin); }
    Status cudaLibs() { return emitCudaLibTables(m_r, m_o, m_sink, m_stats, m_origin); }

    Status samples() {
        auto extra = [this](const std::string& s) { return m_extra.id(s); };
        if (Status s = emitSampleTables(m_r, m_o, m_sink, m_stats, m_origin, extra); !s) return s;
        return emitBacktraceCallchains(m_r, m_o, m_sink, m_stats, extra);
    }

    Status memoryUsage() {
        static constexpr ColumnDef d[] = {
            {"start", "INTEGER NOT NULL"}, {"globalPid", "INTEGER NOT NULL"}, {"deviceId", "INTEGER NOT NULL"},
            {"contextId", "INTEGER NOT NULL"}, {"address", "INTEGER NOT NULL"}, {"pc", "INTEGER NOT NULL"},
            {"bytes", "INTEGER NOT NULL"}, {"memKind", "INTEGER NOT NULL"}, {"memoryOperationType", "INTEGER NOT NULL"},
            {"name", "TEXT"}, {"correlationId", "INTEGER"}};
        return perEvent("CUDA_GPU_MEMORY_USAGE_EVENTS", d, EventKind::CudaMemory, [&](const Track& t, size_t i, Cell* c) {
            c[0] = I(ts(t.start[i]));
            c[1] = I(globalPid(t.key.pid));
            c[2] = I(t.key.device);
            c[3] = I(0);
            c[4] = I(t.intAt(cols::CudaMemory::Address, i));
            c[5] = I(0);
            c[6] = I(t.intAt(cols::CudaMemory::Bytes, i));
            c[7] = I(t.col<uint8_t>(cols::CudaMemory::MemKind)[i]);
            c[8] = I(t.col<uint8_t>(cols::CudaMemory::Op)[i]);
            c[9] = N();
            c[10] = I(t.col<uint32_t>(cols::CudaMemory::Correlation)[i]);
        });
    }

    Status metrics() {
        static constexpr ColumnDef d[] = {{"timestamp", "INTEGER NOT NULL"},
                                          {"typeId", "INTEGER NOT NULL"},
                                          {"metricId", "INTEGER NOT NULL"},
                                          {"value", "INTEGER NOT NULL"}};
        if (Status s = perEvent("GPU_METRICS", d, EventKind::Metric, [&](const Track& t, size_t i, Cell* c) {
                const MetricSeries* ms = m_r.findSeries(t.key.series);
                c[0] = I(ts(t.start[i]));
                c[1] = I(ms && ms->deviceId >= 0 ? ms->deviceId : 0);
                c[2] = I(t.key.series);
                c[3] = Cell::real(t.col<double>(cols::Metric::Value)[i]);
            });
            !s)
            return s;
        if (m_r.metricSeries.empty()) return {};
        static constexpr ColumnDef info[] = {{"typeId", "INTEGER NOT NULL"},
                                             {"sourceId", "INTEGER NOT NULL"},
                                             {"typeName", "TEXT NOT NULL"},
                                             {"metricId", "INTEGER NOT NULL"},
                                             {"metricName", "TEXT NOT NULL"}};
        TableScope t(m_sink, m_stats, "TARGET_INFO_GPU_METRICS", info);
        if (t.open()) {
            for (const auto& ms : m_r.metricSeries) {
                const std::string name = ms.unit.empty() ? ms.name : ms.name + " [" + ms.unit + "]";
                Cell c[] = {I(ms.deviceId >= 0 ? ms.deviceId : 0), I(ms.deviceId >= 0 ? ms.deviceId : 0), T(ms.source),
                            I(ms.seriesId), T(name)};
                t.row(c);
            }
        }
        return t.finish();
    }

    Status threads() {
        if (m_r.threads.empty()) return {};
        static constexpr ColumnDef d[] = {{"nameId", "INTEGER NOT NULL"}, {"priority", "INTEGER"}, {"globalTid", "INTEGER"}};
        TableScope t(m_sink, m_stats, "ThreadNames", d);
        if (t.open())
            for (const auto& th : m_r.threads) {
                Cell c[] = {I(m_extra.id(th.name)), N(), I(globalTid(th.pid, th.tid))};
                t.row(c);
            }
        return t.finish();
    }

    Status processes() {
        if (m_r.processes.empty()) return {};
        static constexpr ColumnDef d[] = {{"globalPid", "INTEGER"}, {"pid", "INTEGER"}, {"name", "TEXT"}};
        TableScope t(m_sink, m_stats, "PROCESSES", d);
        if (t.open())
            for (const auto& p : m_r.processes) {
                Cell c[] = {I(globalPid(p.pid)), I(p.pid), T(p.name)};
                t.row(c);
            }
        return t.finish();
    }

    Status gpus() {
        if (m_r.gpus.empty()) return {};
        static constexpr ColumnDef d[] = {
            {"vmId", "INTEGER NOT NULL"}, {"id", "INTEGER NOT NULL"}, {"name", "TEXT"}, {"busLocation", "TEXT"},
            {"isDiscrete", "INTEGER"}, {"totalMemory", "INTEGER"}, {"memoryBandwidth", "INTEGER"}, {"clockRate", "INTEGER"},
            {"smCount", "INTEGER"}, {"uuid", "TEXT"}, {"cuDevice", "INTEGER"}, {"computeMajor", "INTEGER"},
            {"computeMinor", "INTEGER"}};
        TableScope t(m_sink, m_stats, "TARGET_INFO_GPU", d);
        if (t.open())
            for (const auto& g : m_r.gpus) {
                Cell c[] = {I(kHardwareId), I(g.deviceId), T(g.name), T(g.pciBusId), I(1), I(g.memoryBytes),
                            I(g.memoryBandwidthBytesPerSec), I(g.smClockKHz * 1000), I(g.smCount), T(g.uuid),
                            I(g.deviceId), I(g.computeMajor), I(g.computeMinor)};
                t.row(c);
            }
        return t.finish();
    }

    Status cudaDevices() {
        if (m_r.gpus.empty()) return {};
        static constexpr ColumnDef d[] = {{"gpuId", "INTEGER"},       {"cudaId", "INTEGER NOT NULL"},
                                          {"pid", "INTEGER"},         {"uuid", "TEXT"},
                                          {"busLocation", "TEXT"},    {"name", "TEXT"},
                                          {"totalGlobalMemory", "INTEGER"}, {"numMultiprocessors", "INTEGER"},
                                          {"computeMajor", "INTEGER"}, {"computeMinor", "INTEGER"}};
        TableScope t(m_sink, m_stats, "TARGET_INFO_CUDA_DEVICE", d);
        if (!t.open()) return {};
        // One row per process that used a device (its CUDA contexts), else one per device.
        std::vector<std::pair<int64_t, int32_t>> uses;
        for (const auto& ctx : m_r.contexts)
            if (std::find(uses.begin(), uses.end(), std::make_pair(ctx.pid, ctx.deviceId)) == uses.end())
                uses.emplace_back(ctx.pid, ctx.deviceId);
        if (uses.empty())
            for (const auto& g : m_r.gpus) uses.emplace_back(m_r.processes.empty() ? 0 : m_r.processes[0].pid, g.deviceId);
        for (const auto& [pid, dev] : uses) {
            const Gpu* g = m_r.findGpu(dev);
            const Gpu empty;
            const Gpu& gpu = g ? *g : empty;
            Cell c[] = {I(dev), I(dev), I(pid), T(gpu.uuid), T(gpu.pciBusId), T(gpu.name), I(gpu.memoryBytes), I(gpu.smCount),
                        I(gpu.computeMajor), I(gpu.computeMinor)};
            t.row(c);
        }
        return t.finish();
    }

    Status sessionStart() {
        static constexpr ColumnDef d[] = {{"utcEpochNs", "INTEGER"}, {"utcTime", "TEXT"}, {"localTime", "TEXT"}};
        TableScope t(m_sink, m_stats, "TARGET_INFO_SESSION_START_TIME", d);
        if (t.open()) {
            const std::string utc = utcText(m_r.session.startUtcNs);
            Cell c[] = {I(m_r.session.startUtcNs), T(utc), T(utc)};
            t.row(c);
        }
        return t.finish();
    }

    Status diagnostics() { return emitNsysDiagnostics(m_r, m_sink, m_stats); }

    Status enums() { return emitNsysEnumTables(m_sink, m_stats); }

    Status metaData() {
        static constexpr ColumnDef d[] = {{"name", "TEXT NOT NULL"}, {"value", "TEXT"}};
        TableScope t(m_sink, m_stats, "META_DATA_EXPORT", d);
        if (t.open()) {
            const std::string version = SIGHTLINE_VERSION;
            const std::pair<const char*, std::string> rows[] = {
                {"EXPORT_PRODUCT_NAME", "Sightline"},
                {"EXPORT_PRODUCT_VERSION", version},
                {"EXPORT_SCHEMA_VERSION", "3.11.0"},
                {"EXPORT_SCHEMA_NOTE", "nsys export schema subset: core CUDA, NVTX, OSRT, MPI, OpenMP, CPU samples, metrics and target tables"},
                {"EXPORT_SOURCE", m_r.session.source},
                {"EXPORT_TIMESTAMPS", "ns since the session start"},
            };
            for (const auto& [k, v] : rows) {
                Cell c[] = {T(k), T(v)};
                t.row(c);
            }
        }
        return t.finish();
    }

    // Last: the names other tables referenced (including the extra ones) are all known now.
    Status stringIds() {
        static constexpr ColumnDef d[] = {{"id", "INTEGER NOT NULL PRIMARY KEY"}, {"value", "TEXT NOT NULL"}};
        TableScope t(m_sink, m_stats, "StringIds", d);
        if (t.open()) {
            for (uint32_t id = 0; id < m_r.strings.size(); ++id) {
                Cell c[] = {I(id), T(m_r.str(id))};
                t.row(c);
            }
            for (size_t k = 0; k < m_extra.values().size(); ++k) {
                Cell c[] = {I(m_extra.base() + static_cast<int64_t>(k)), T(m_extra.values()[k])};
                t.row(c);
            }
        }
        return t.finish();
    }

    const Report& m_r;
    const ExportOptions& m_o;
    RowSink& m_sink;
    ExportStats& m_stats;
    ExtraStrings m_extra;
    int64_t m_origin;
    int m_step = 0;
};

}  // namespace

int64_t globalPid(int64_t pid) { return kHardwareId | ((pid & 0xFFFFFF) << 24); }
int64_t globalTid(int64_t pid, int64_t tid) { return globalPid(pid) | (tid & 0xFFFFFF); }

Status emitNsysTables(const Report& report, const ExportOptions& options, RowSink& sink, ExportStats& stats) {
    Emitter e(report, options, sink, stats);
    return e.run();
}

}  // namespace sl::exporter
