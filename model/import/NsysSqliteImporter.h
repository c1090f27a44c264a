#pragma once
// Imports an Nsight Systems SQLite export. Reads every table it knows with column-tolerant
// queries (see NsysColumns), maps rows onto the report model with ReportBuilder, and turns what
// it cannot map (unknown tables, unterminated ranges, rows without timestamps) into named
// diagnostics with counts. Single-threaded; one instance per import.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "model/core/ReportBuilder.h"
#include "model/import/ImportFile.h"
#include "model/import/NsysColumns.h"
#include "model/rep/Sqlite.h"

namespace sl::import {

// True when the open database has the tables of an nsys export.
bool looksLikeNsysExport(const sqlite::Db& db);

class NsysSqliteImporter {
public:
    NsysSqliteImporter(std::string path, ImportOptions options);
    Result<std::shared_ptr<Report>> run();

    // globalTid / globalPid packing (nsys): PID in bits 24-47, TID in bits 0-23.
    static int64_t pidOf(int64_t global) { return (global / 0x1000000) % 0x1000000; }
    static int64_t tidOf(int64_t global) { return global % 0x1000000; }

private:
    using StreamKey =
        std::tuple<int64_t, int32_t, uint32_t, uint32_t>;  // pid, device, context, stream

    Status open();
    void loadStrings();
    void readSession();
    void readGpus();
    void readProcessesAndThreads();
    void readStreams();
    void countUnmappedTables();

    // Event tables (NsysEventTables.cpp).
    Status readKernels();
    Status readMemcpy();
    Status readMemset();
    Status readSync();
    Status readCudaEvents();
    Status readRuntime();
    Status readNvtx();
    Status readOsrt();
    Status readMemoryUsage();
    Status readGpuMetrics();
    Status readSched();
    Status readSamples();  // NsysSamples.cpp
    Status readMpi();      // NsysMpiImport.cpp
    Status readCudaLibs();  // NsysCudaLibImport.cpp
    Status readDiagnostics();  // NsysDiagnosticImport.cpp
    void applyMpiRanks();  // after readProcessesAndThreads

    // Runs `fn(stmt)` for each row of `table` (skipped when absent); errors name the table.
    template <class Fn>
    Status forEachRow(const std::string& table, const std::vector<ColumnAlternatives>& wanted,
                      Fn&& fn, const std::string& where = {});
    bool tick();
    uint32_t stringId(int64_t nsysId);               // interned name of an nsys string id
    uint32_t nameAt(const sqlite::Stmt& st, int i);  // a column holding a string id or text
    std::string_view symbolText(const sqlite::Stmt& st, int i) const;  // its raw text, not interned
    uint32_t apiName(int64_t nsysId);                // "cudaMalloc_v3020" -> "cudaMalloc"
    uint32_t internText(std::string_view s);
    void noteThread(int64_t globalTid);
    void noteStream(int64_t pid, int32_t device, uint32_t context, uint32_t stream);
    void noteEnd(int64_t t) {
        if (t > m_maxEnd) m_maxEnd = t;
    }
    // An event's end, never before its start: an export whose end precedes its start (a damaged
    // or hand-edited file) was clamped to a zero length with nothing said; counted now
    // (nsys.inverted_intervals).
    int64_t endAfter(int64_t start, int64_t end) {
        if (end >= start) return end;
        ++m_invertedIntervals;
        return start;
    }

    std::string m_path;
    ImportOptions m_options;
    sqlite::Db m_db;
    ReportBuilder m_b;
    std::vector<std::string> m_rawStrings;  // nsys string id -> text (sanitized on use)
    std::vector<uint32_t> m_strings;        // nsys string id -> interned id, UINT32_MAX if not yet
    std::map<int64_t, uint32_t> m_apiNames;
    std::set<std::pair<int64_t, int64_t>> m_threads;  // (pid, tid) with events
    std::set<int64_t> m_pids;
    std::set<StreamKey> m_streams;
    std::map<std::pair<int64_t, int64_t>, std::string> m_nvtxThreadNames;
    std::set<std::string> m_readTables;
    std::map<int64_t, int32_t> m_mpiRanks;  // pid -> MPI_RANKS.rank
    int64_t m_maxEnd = 0;
    int64_t m_minStart = INT64_MAX;
    int64_t m_invertedIntervals = 0;
    uint64_t m_rowsDone = 0, m_rowsTotal = 1;
    bool m_cancelled = false;
};

template <class Fn>
Status NsysSqliteImporter::forEachRow(const std::string& table,
                                      const std::vector<ColumnAlternatives>& wanted, Fn&& fn,
                                      const std::string& where) {
    if (!m_db.hasTable(table)) return Status::success();
    m_readTables.insert(table);
    NsysColumns columns(m_db, table);
    if (!columns.has("start") && !columns.has("timestamp") && !columns.has("eventType") &&
        !columns.has("id"))
        return Error{"'" + m_path + "': table " + table + " has none of the expected columns"};
    sqlite::Stmt st(m_db, buildSelect(columns, wanted, where));
    if (!st.valid())
        return Error{"'" + m_path + "': cannot read table " + table + ": " + st.prepareError()};
    while (st.step()) {
        fn(st);
        if (!tick()) return Error{"cancelled"};
    }
    if (!st.ok())
        return Error{"'" + m_path + "': reading table " + table + " failed: " + st.error()};
    return Status::success();
}

}  // namespace sl::import
