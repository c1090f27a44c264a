#include "model/import/NsysSqliteImporter.h"

#include <algorithm>
#include <filesystem>

#include "model/import/ImportText.h"
#include "model/import/UsedGpus.h"

namespace sl::import {
namespace {

// Tables that only describe other tables or hold nothing a timeline shows: not counted as
// unmapped. Anything else with rows that no reader touched becomes a diagnostic.
bool isDescriptiveTable(const std::string& t) {
    static const char* const kPrefixes[] = {"ENUM_",
                                            "TARGET_INFO_",
                                            "META_DATA_",
                                            "EXPORT_META_DATA",
                                            "StringIds",
                                            "ThreadNames",
                                            "PROCESSES",
                                            "ProcessStreams",
                                            "ANALYSIS_DETAILS",
                                            "ANALYSIS_FILE",
                                            "UnwindMethodType",
                                            "sqlite_"};
    for (const char* p : kPrefixes)
        if (t.rfind(p, 0) == 0) return true;
    return false;
}

// The event tables Sightline reads; their rows drive the progress fraction.
const char* const kEventTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                    "CUPTI_ACTIVITY_KIND_MEMCPY",
                                    "CUPTI_ACTIVITY_KIND_MEMSET",
                                    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                    "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
                                    "CUPTI_ACTIVITY_KIND_RUNTIME",
                                    "NVTX_EVENTS",
                                    "OSRT_API",
                                    "CUDA_GPU_MEMORY_USAGE_EVENTS",
                                    "GPU_METRICS",
                                    "COMPOSITE_EVENTS",
                                    "SAMPLING_CALLCHAINS",
                                    "MPI_P2P_EVENTS",
                                    "MPI_COLLECTIVES_EVENTS",
                                    "MPI_START_WAIT_EVENTS",
                                    "MPI_OTHER_EVENTS"};

}  // namespace

bool looksLikeNsysExport(const sqlite::Db& db) {
    if (db.hasTable("StringIds") || db.hasTable("NVTX_EVENTS") || db.hasTable("OSRT_API") ||
        db.hasTable("TARGET_INFO_SESSION_START_TIME"))
        return true;
    sqlite::Stmt st(db,
                    "SELECT 1 FROM sqlite_master WHERE type='table' AND name LIKE "
                    "'CUPTI_ACTIVITY_KIND_%' LIMIT 1");
    return st.valid() && st.step();
}

NsysSqliteImporter::NsysSqliteImporter(std::string path, ImportOptions options)
    : m_path(std::move(path)), m_options(std::move(options)) {}

Status NsysSqliteImporter::open() {
    if (auto st = m_db.openReadOnly(m_path); !st) return st;
    sqlite::Stmt probe(m_db, "SELECT count(*) FROM sqlite_master");
    if (!probe.valid() || !probe.step())
        return Error{"'" + m_path + "' is not a readable SQLite database: " + m_db.lastError()};
    if (!looksLikeNsysExport(m_db))
        return Error{"'" + m_path +
                     "' is an SQLite database but not an Nsight Systems export (no StringIds, "
                     "NVTX_EVENTS, OSRT_API "
                     "or CUPTI_ACTIVITY_KIND_* table)"};
    return Status::success();
}

bool NsysSqliteImporter::tick() {
    // Every 16384 rows, and at the first so even a small export can be cancelled.
    if ((++m_rowsDone & 0x3FFF) != 1 || !m_options.progress) return true;
    const double f =
        std::min(0.9, 0.9 * static_cast<double>(m_rowsDone) / static_cast<double>(m_rowsTotal));
    if (!m_options.progress(f)) m_cancelled = true;
    return !m_cancelled;
}

uint32_t NsysSqliteImporter::internText(std::string_view s) {
    if (isValidUtf8(s)) return m_b.intern(s);
    return m_b.intern(sanitizeUtf8(s));
}

void NsysSqliteImporter::loadStrings() {
    if (!m_db.hasTable("StringIds")) return;
    m_readTables.insert("StringIds");
    sqlite::Stmt st(m_db, "SELECT id, value FROM StringIds WHERE id >= 0 AND id < 100000000");
    if (!st.valid()) {
        m_b.addDiagnostic("nsys.strings_unreadable", 1,
                          "the StringIds table could not be read: names are missing");
        return;
    }
    while (st.step()) {
        const auto id = static_cast<size_t>(st.i64(0));
        if (id >= m_rawStrings.size()) m_rawStrings.resize(id + 1);
        m_rawStrings[id] = std::string(st.text(1));
    }
    m_strings.assign(m_rawStrings.size(), UINT32_MAX);
}

uint32_t NsysSqliteImporter::stringId(int64_t nsysId) {
    if (nsysId < 0 || static_cast<size_t>(nsysId) >= m_strings.size()) {
        m_b.addDiagnostic("nsys.unknown_string_ids", 1,
                          "rows name a string id missing from StringIds; shown unnamed");
        return m_b.intern("");
    }
    auto& slot = m_strings[static_cast<size_t>(nsysId)];
    if (slot == UINT32_MAX) slot = internText(m_rawStrings[static_cast<size_t>(nsysId)]);
    return slot;
}

uint32_t NsysSqliteImporter::nameAt(const sqlite::Stmt& st, int i) {
    switch (sqlite3_column_type(st.handle(), i)) {
        case SQLITE_INTEGER:
            return stringId(st.i64(i));
        case SQLITE_TEXT:
            return internText(st.text(i));
        default:
            return UINT32_MAX;
    }
}

uint32_t NsysSqliteImporter::apiName(int64_t nsysId) {
    auto it = m_apiNames.find(nsysId);
    if (it != m_apiNames.end()) return it->second;
    std::string_view s;
    if (nsysId >= 0 && static_cast<size_t>(nsysId) < m_rawStrings.size())
        s = m_rawStrings[static_cast<size_t>(nsysId)];
    // nsys names API entry points with their ABI version ("cudaLaunchKernel_v7000"); the
    // timeline and summaries use the plain name, as nsys stats does.
    const auto v = s.rfind("_v");
    if (v != std::string_view::npos && v + 2 < s.size() &&
        std::all_of(s.begin() + static_cast<long>(v) + 2, s.end(),
                    [](char c) { return c >= '0' && c <= '9'; }))
        s = s.substr(0, v);
    const uint32_t id = (nsysId >= 0 && static_cast<size_t>(nsysId) < m_rawStrings.size())
                            ? internText(s)
                            : stringId(nsysId);
    m_apiNames.emplace(nsysId, id);
    return id;
}

void NsysSqliteImporter::noteThread(int64_t globalTid) {
    const int64_t pid = pidOf(globalTid);
    m_threads.emplace(pid, tidOf(globalTid));
    m_pids.insert(pid);
}

void NsysSqliteImporter::noteStream(int64_t pid, int32_t device, uint32_t context,
                                    uint32_t stream) {
    m_pids.insert(pid);
    m_streams.emplace(pid, device, context, stream);
}

void NsysSqliteImporter::readSession() {
    Session& s = m_b.report().session;
    s.source = "nsys-sqlite";
    s.toolVersion = SIGHTLINE_VERSION;
    s.startMonotonicNs = 0;  // nsys event times are ns since the session start
    if (m_db.hasTable("TARGET_INFO_SESSION_START_TIME")) {
        NsysColumns c(m_db, "TARGET_INFO_SESSION_START_TIME");
        sqlite::Stmt st(m_db, buildSelect(c, {{"utcEpochNs"}}));
        if (st.valid() && st.step() && !st.isNull(0)) s.startUtcNs = st.i64(0);
    } else {
        m_b.addDiagnostic(
            "nsys.no_session_start_time", 1,
            "the export has no TARGET_INFO_SESSION_START_TIME table: wall-clock times are unknown");
    }
    std::string product, schema;
    if (m_db.hasTable("EXPORT_META_DATA")) {
        sqlite::Stmt st(m_db, "SELECT name, value FROM EXPORT_META_DATA");
        while (st.valid() && st.step()) {
            const auto name = st.text(0);
            if (name == "EXPORT_PRODUCT_VERSION")
                product = sanitizeUtf8(st.text(1));
            else if (name == "EXPORT_SCHEMA_VERSION")
                schema = sanitizeUtf8(st.text(1));
            else if (name == "EXPORT_HOST" && s.hostName.empty())
                s.hostName = sanitizeUtf8(st.text(1));
        }
    }
    if (m_db.hasTable("TARGET_INFO_SYSTEM_ENV")) {
        NsysColumns c(m_db, "TARGET_INFO_SYSTEM_ENV");
        sqlite::Stmt st(m_db, buildSelect(c, {{"name"}, {"value"}}));
        while (st.valid() && st.step()) {
            const auto name = st.text(0);
            if (name == "Hostname")
                s.hostName = sanitizeUtf8(st.text(1));
            else if (name == "OsDescription")
                s.os = sanitizeUtf8(st.text(1));
            else if (name == "CpuDescription")
                s.cpuModel = sanitizeUtf8(st.text(1));
        }
    }
    s.captureOptions = "imported from an Nsight Systems SQLite export";
    if (!product.empty())
        s.captureOptions +=
            " (nsys " + product + ", schema " + (schema.empty() ? "?" : schema) + ")";
    else
        s.captureOptions += " (no EXPORT_META_DATA: an older nsys)";
}

void NsysSqliteImporter::readGpus() {
    if (!m_db.hasTable("TARGET_INFO_GPU")) return;
    // CUDA device ordinals: TARGET_INFO_CUDA_DEVICE maps nsys GPU ids to them where present;
    // older exports list every adapter (Intel, WDDM) in TARGET_INFO_GPU, so there a GPU counts
    // as a CUDA device only when it has a compute capability.
    std::map<int64_t, int32_t> cudaIdOf;
    if (m_db.hasTable("TARGET_INFO_CUDA_DEVICE")) {
        NsysColumns c(m_db, "TARGET_INFO_CUDA_DEVICE");
        sqlite::Stmt st(m_db, buildSelect(c, {{"gpuId"}, {"cudaId", "id"}}));
        while (st.valid() && st.step())
            cudaIdOf.emplace(st.i64(0), static_cast<int32_t>(st.i64(1)));
    }
    NsysColumns c(m_db, "TARGET_INFO_GPU");
    sqlite::Stmt st(m_db, buildSelect(c, {{"id"},
                                          {"name"},
                                          {"uuid"},
                                          {"busLocation"},
                                          {"smCount"},
                                          {"totalMemory"},
                                          {"computeMajor"},
                                          {"computeMinor"},
                                          {"clockRate"},
                                          {"memoryBandwidth"},
                                          {"cuDevice"}}));
    int64_t skipped = 0;
    std::set<int32_t> used;
    while (st.valid() && st.step()) {
        Gpu g;
        const int64_t id = st.i64(0);
        if (!cudaIdOf.empty()) {
            auto it = cudaIdOf.find(id);
            if (it == cudaIdOf.end()) {
                ++skipped;
                continue;
            }
            g.deviceId = it->second;
        } else {
            if (st.i64(6) <= 0) {
                ++skipped;
                continue;
            }
            g.deviceId = static_cast<int32_t>(st.isNull(10) ? id : st.i64(10));
            if (used.count(g.deviceId)) g.deviceId = static_cast<int32_t>(id);
        }
        if (!used.insert(g.deviceId).second) {
            ++skipped;
            continue;
        }
        g.name = sanitizeUtf8(st.text(1));
        g.uuid = sanitizeUtf8(st.text(2));
        g.pciBusId = sanitizeUtf8(st.text(3));
        g.smCount = static_cast<int32_t>(st.i64(4));
        g.memoryBytes = st.i64(5);
        g.computeMajor = static_cast<int32_t>(st.i64(6));
        g.computeMinor = static_cast<int32_t>(st.i64(7));
        g.smClockKHz = st.i64(8) / 1000;  // clockRate is in Hz
        g.memoryBandwidthBytesPerSec = st.i64(9);
        m_b.report().gpus.push_back(g);
    }
    if (skipped)
        m_b.addDiagnostic("nsys.non_cuda_gpus", skipped,
                          "GPUs listed by the export that are not CUDA devices (no compute "
                          "capability) were left out");
}

void NsysSqliteImporter::readProcessesAndThreads() {
    std::map<int64_t, std::string> processNames;
    if (m_db.hasTable("PROCESSES")) {
        NsysColumns c(m_db, "PROCESSES");
        sqlite::Stmt st(m_db, buildSelect(c, {{"pid"}, {"name"}, {"globalPid"}}));
        while (st.valid() && st.step()) {
            const int64_t pid = st.isNull(0) ? pidOf(st.i64(2)) : st.i64(0);
            if (m_pids.count(pid)) processNames[pid] = sanitizeUtf8(st.text(1));
        }
    }
    std::map<std::pair<int64_t, int64_t>, std::string> threadNames;
    if (m_db.hasTable("ThreadNames")) {
        NsysColumns c(m_db, "ThreadNames");
        sqlite::Stmt st(m_db, buildSelect(c, {{"globalTid"}, {"nameId"}}));
        while (st.valid() && st.step()) {
            const int64_t g = st.i64(0), id = st.i64(1);
            std::pair<int64_t, int64_t> key{pidOf(g), tidOf(g)};
            if (!m_threads.count(key) || id < 0 || static_cast<size_t>(id) >= m_rawStrings.size())
                continue;
            threadNames[key] = sanitizeUtf8(m_rawStrings[static_cast<size_t>(id)]);
        }
    }
    for (int64_t pid : m_pids) {
        Process& p = m_b.ensureProcess(pid);
        if (auto it = processNames.find(pid); it != processNames.end()) p.name = it->second;
    }
    for (const auto& key : m_threads) {
        Thread& t = m_b.ensureThread(key.first, key.second);
        // A name given with nvtxNameOsThread wins over the OS thread name, as in nsys.
        if (auto it = m_nvtxThreadNames.find(key); it != m_nvtxThreadNames.end())
            t.name = it->second;
        else if (auto jt = threadNames.find(key); jt != threadNames.end())
            t.name = jt->second;
    }
}

void NsysSqliteImporter::readStreams() {
    std::map<std::tuple<int64_t, uint32_t, uint32_t>, std::pair<int32_t, uint32_t>>
        props;  // pid,ctx,stream
    if (m_db.hasTable("TARGET_INFO_CUDA_STREAM")) {
        NsysColumns c(m_db, "TARGET_INFO_CUDA_STREAM");
        sqlite::Stmt st(
            m_db,
            buildSelect(c, {{"processId"}, {"contextId"}, {"streamId"}, {"priority"}, {"flag"}}));
        while (st.valid() && st.step())
            props[{st.i64(0), static_cast<uint32_t>(st.i64(1)), static_cast<uint32_t>(st.i64(2))}] =
                {static_cast<int32_t>(st.i64(3)), static_cast<uint32_t>(st.i64(4))};
    }
    std::set<std::tuple<int64_t, uint32_t, uint32_t>> nullStreams;
    if (m_db.hasTable("TARGET_INFO_CUDA_NULL_STREAM")) {
        NsysColumns c(m_db, "TARGET_INFO_CUDA_NULL_STREAM");
        sqlite::Stmt st(m_db, buildSelect(c, {{"processId"}, {"contextId"}, {"streamId"}}));
        while (st.valid() && st.step())
            nullStreams.emplace(st.i64(0), static_cast<uint32_t>(st.i64(1)),
                                static_cast<uint32_t>(st.i64(2)));
    }
    Report& r = m_b.report();
    UsedContexts contexts;
    for (const auto& [pid, device, context, stream] : m_streams) {
        CudaStream s;
        s.pid = pid;
        s.deviceId = device;
        s.contextId = context;
        s.streamId = stream;
        if (auto it = props.find({pid, context, stream}); it != props.end()) {
            s.priority = it->second.first;
            s.flags = it->second.second;
        }
        s.isDefault = nullStreams.count({pid, context, stream}) != 0;
        r.streams.push_back(s);
        contexts.emplace(pid, device, context);
    }
    // GPUs that events use but TARGET_INFO_GPU does not describe still get a row.
    addUsedContextsAndGpus(r, contexts);
}

void NsysSqliteImporter::countUnmappedTables() {
    std::vector<std::string> tables;
    sqlite::Stmt st(m_db, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name");
    while (st.valid() && st.step()) tables.emplace_back(st.text(0));
    for (const auto& t : tables) {
        if (m_readTables.count(t) || isDescriptiveTable(t)) continue;
        sqlite::Stmt count(m_db, "SELECT count(*) FROM \"" + t + "\"");
        if (!count.valid() || !count.step() || count.i64(0) == 0) continue;
        m_b.addDiagnostic("nsys.unmapped_table." + sanitizeUtf8(t), count.i64(0),
                          "rows of an nsys table Sightline does not import");
    }
}

Result<std::shared_ptr<Report>> NsysSqliteImporter::run() {
    if (auto st = open(); !st) return Error{st.error()};
    for (const char* t : kEventTables) {
        if (!m_db.hasTable(t)) continue;
        sqlite::Stmt st(m_db, std::string("SELECT max(rowid) FROM \"") + t + "\"");
        if (st.valid() && st.step())
            m_rowsTotal += static_cast<uint64_t>(std::max<int64_t>(0, st.i64(0)));
    }
    loadStrings();
    readSession();
    readGpus();
    for (auto fn : {&NsysSqliteImporter::readKernels, &NsysSqliteImporter::readMemcpy,
                    &NsysSqliteImporter::readMemset, &NsysSqliteImporter::readSync,
                    &NsysSqliteImporter::readCudaEvents, &NsysSqliteImporter::readRuntime,
                    &NsysSqliteImporter::readNvtx, &NsysSqliteImporter::readOsrt,
                    &NsysSqliteImporter::readMemoryUsage, &NsysSqliteImporter::readGpuMetrics, &NsysSqliteImporter::readSched,
                    &NsysSqliteImporter::readSamples, &NsysSqliteImporter::readMpi,
                    &NsysSqliteImporter::readCudaLibs, &NsysSqliteImporter::readDiagnostics}) {
        if (auto st = (this->*fn)(); !st) return Error{st.error()};
    }
    readProcessesAndThreads();
    applyMpiRanks();
    readStreams();
    countUnmappedTables();
    if (m_invertedIntervals)
        m_b.addDiagnostic("nsys.inverted_intervals", m_invertedIntervals,
                          "events whose end comes before their start in the export (a damaged "
                          "file?) were given a zero duration");
    Session& s = m_b.report().session;
    s.durationNs = m_maxEnd > 0 ? m_maxEnd : 0;
    if (m_b.eventCount() == 0)
        m_b.addDiagnostic("nsys.no_events", 1, "the export holds no event Sightline can import");
    auto report = m_b.finish([this](double f) {
        if (m_options.progress) m_options.progress(0.9 + 0.1 * f);
    });
    return report;
}

}  // namespace sl::import
