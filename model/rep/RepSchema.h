#pragma once
// The metadata schema of a .rep file, declared once: each table's columns with their SQL type and
// meaning, and the indexes. The DDL, the writer's INSERTs, the reader's SELECTs (RepSchema.cpp,
// TableIo.h) and model/FORMAT.md's table reference come from these descriptors; the
// RepSchemaDoc test fails when FORMAT.md differs (scripts/update-format-doc.sh rewrites it).
//
// Compatibility (FORMAT.md): a table added after files were written is `optional` (the reader
// reads no rows from a file without it); a column appended to a table must be nullable (it reads
// as NULL from an older file). Anything else changes min_reader_version.
#include <span>
#include <string>
#include <string_view>

namespace sl::repschema {

struct ColumnDef {
    std::string_view name;
    std::string_view type;     // SQL declaration: "INTEGER", "TEXT NOT NULL", "INTEGER PRIMARY KEY"
    std::string_view meaning;  // one line for FORMAT.md

    // A column every file has: the reader refuses a file without it (nullable columns may be
    // missing from older files and read as NULL).
    constexpr bool required() const {
        return type.find("NOT NULL") != std::string_view::npos ||
               type.find("PRIMARY KEY") != std::string_view::npos;
    }
};

struct TableDef {
    std::string_view name;
    std::span<const ColumnDef> columns;
    std::string_view doc;   // FORMAT.md's text under the table's heading (markdown)
    bool optional = false;  // added without raising min_reader_version: older files lack it
};

struct IndexDef {
    std::string_view name;
    std::string_view table;
    std::string_view columns;  // "track_id, t_min, t_max"
    bool unique = false;
    std::string_view purpose;
};

// Index of `column` in `table`; a name the table does not have is a compile error where this is
// evaluated at compile time (TableIo.h's column names).
constexpr int columnIndex(const TableDef& table, std::string_view column) {
    for (size_t i = 0; i < table.columns.size(); ++i)
        if (table.columns[i].name == column) return static_cast<int>(i);
    throw "no such column in this table";  // not a constant expression: a compile error
}

// ---- Tables, in creation (and FORMAT.md) order ----

inline constexpr ColumnDef kSightlineMetaColumns[] = {
    {"key", "TEXT PRIMARY KEY", "one of the keys below"},
    {"value", "TEXT NOT NULL", "its value, as text"},
};
inline constexpr TableDef kSightlineMeta{"sightline_meta", kSightlineMetaColumns,
                                         R"(The file's identity and totals:

| key | value |
|---|---|
| magic | `sightline-report` |
| format_version | this file's format version (2; 1 before issue #23) |
| min_reader_version | oldest reader format that can read this file (2) |
| writer | `sightline <version>` |
| event_count, chunk_count, track_count, string_count | totals, for quick checks |
| complete | `1`, written last |)"};

inline constexpr ColumnDef kSessionColumns[] = {
    {"working_directory", "TEXT", "the profiled program's working directory"},
    {"host_name", "TEXT", "the machine's host name"},
    {"os", "TEXT", "its operating system"},
    {"cpu_model", "TEXT", "its CPU model"},
    {"tool_version", "TEXT", "Sightline version that wrote the report"},
    {"capture_options", "TEXT", "the capture options as given on the command line"},
    {"source", "TEXT", "`capture`, `nsys-sqlite`, `kineto-json`, `chrome-json` or `generated`"},
    {"start_utc_ns", "INTEGER", "wall clock at the session start, ns since the Unix epoch"},
    {"start_monotonic_ns", "INTEGER",
     "the event clock at the same instant; INT64_MIN when unknown (then viewers use the first "
     "event as 0). nsys imports store 0: their times count from the session start"},
    {"duration_ns", "INTEGER", "session duration"},
};
inline constexpr TableDef kSession{"session", kSessionColumns, "One row: the session."};

inline constexpr ColumnDef kSessionArgvColumns[] = {
    {"idx", "INTEGER PRIMARY KEY", "position in the command line, from 0"},
    {"arg", "TEXT NOT NULL", "the argument"},
};
inline constexpr TableDef kSessionArgv{"session_argv", kSessionArgvColumns,
                                       "The profiled command line, argv[0] first."};

inline constexpr ColumnDef kSessionEnvColumns[] = {
    {"name", "TEXT NOT NULL", "variable name"},
    {"value", "TEXT NOT NULL", "its value"},
};
inline constexpr TableDef kSessionEnv{
    "session_env", kSessionEnvColumns,
    "The subset of the profiled program's environment that was kept."};

inline constexpr ColumnDef kProcessesColumns[] = {
    {"pid", "INTEGER NOT NULL", "process id"},
    {"parent_pid", "INTEGER", "its parent's pid"},
    {"name", "TEXT", "executable name"},
    {"command_line", "TEXT", "its command line"},
    {"start_ns", "INTEGER", "start time; NULL when unknown"},
    {"end_ns", "INTEGER", "end time; NULL when unknown"},
    {"exit_code", "INTEGER", "exit status when `exit_signal` is 0"},
    {"exit_signal", "INTEGER", "the terminating signal (0 if it exited normally)"},
};
inline constexpr TableDef kProcesses{"processes", kProcessesColumns,
                                     "One row per process of the traced tree."};

inline constexpr ColumnDef kProcessReparentsColumns[] = {
    {"pid", "INTEGER NOT NULL", "the orphaned process"},
    {"time_ns", "INTEGER", "when its parent ended; NULL when that end was not seen"},
    {"from_pid", "INTEGER", "its parent (also its `parent_pid` in `processes`)"},
    {"to_pid", "INTEGER", "the process that adopted it"},
};
inline constexpr TableDef kProcessReparents{
    "process_reparents", kProcessReparentsColumns,
    R"(A process orphaned while it ran: its parent `from_pid` ended and `to_pid` adopted it (the
profiler, which is the tree's subreaper, or another subreaper or PID-namespace init). Added in
format 1 without raising `min_reader_version`: older files lack the table, older readers ignore it.)",
    true};

inline constexpr ColumnDef kProcessMpiRanksColumns[] = {
    {"pid", "INTEGER NOT NULL", "the process"},
    {"rank", "INTEGER NOT NULL", "its rank in MPI_COMM_WORLD"},
    {"world_size", "INTEGER NOT NULL", "that communicator's size"},
};
inline constexpr TableDef kProcessMpiRanks{
    "process_mpi_ranks", kProcessMpiRanksColumns,
    R"(The MPI rank of each process that initialised MPI under `-t mpi`. Added in format 1 without
raising `min_reader_version`.)",
    true};

inline constexpr ColumnDef kThreadsColumns[] = {
    {"tid", "INTEGER NOT NULL", "thread id"},
    {"pid", "INTEGER NOT NULL", "its process"},
    {"name", "TEXT", "the last name the thread had (rename history is not kept)"},
    {"start_ns", "INTEGER", "start time; NULL when unknown"},
    {"end_ns", "INTEGER", "end time; NULL when unknown"},
};
inline constexpr TableDef kThreads{"threads", kThreadsColumns, "One row per thread seen."};

inline constexpr ColumnDef kGpusColumns[] = {
    {"device_id", "INTEGER NOT NULL", "the CUDA device ordinal used by GPU tracks"},
    {"name", "TEXT", "product name"},
    {"uuid", "TEXT", "device UUID"},
    {"pci_bus_id", "TEXT", "PCI bus id"},
    {"sm_count", "INTEGER", "multiprocessors"},
    {"memory_bytes", "INTEGER", "global memory size"},
    {"compute_major", "INTEGER", "compute capability, major"},
    {"compute_minor", "INTEGER", "compute capability, minor"},
    {"sm_clock_khz", "INTEGER", "SM clock"},
    {"memory_clock_khz", "INTEGER", "memory clock"},
    {"memory_bandwidth", "INTEGER", "memory bandwidth, bytes per second"},
};
inline constexpr TableDef kGpus{"gpus", kGpusColumns, "One row per GPU."};

inline constexpr ColumnDef kCudaContextsColumns[] = {
    {"pid", "INTEGER", "owning process"},
    {"device_id", "INTEGER", "`gpus.device_id`"},
    {"context_id", "INTEGER", "CUDA context id"},
    {"name", "TEXT", "from NVTX resource naming (nvtxNameCuContext, ...)"},
};
inline constexpr TableDef kCudaContexts{"cuda_contexts", kCudaContextsColumns, "CUDA contexts."};

inline constexpr ColumnDef kCudaStreamsColumns[] = {
    {"pid", "INTEGER", "owning process"},
    {"device_id", "INTEGER", "`gpus.device_id`"},
    {"context_id", "INTEGER", "its context"},
    {"stream_id", "INTEGER", "CUDA stream id"},
    {"priority", "INTEGER", "stream priority"},
    {"flags", "INTEGER", "creation flags"},
    {"is_default", "INTEGER", "1 for the default (NULL) stream"},
    {"name", "TEXT", "from NVTX resource naming (nvtxNameCudaStream, ...)"},
};
inline constexpr TableDef kCudaStreams{"cuda_streams", kCudaStreamsColumns, "CUDA streams."};

inline constexpr ColumnDef kNvtxDomainsColumns[] = {
    {"pid", "INTEGER", "process (domain ids are per process)"},
    {"domain_id", "INTEGER", "domain id; 0 is the default domain"},
    {"name", "TEXT", "domain name"},
};
inline constexpr TableDef kNvtxDomains{"nvtx_domains", kNvtxDomainsColumns, "NVTX domains."};

inline constexpr ColumnDef kNvtxCategoriesColumns[] = {
    {"pid", "INTEGER", "process"},
    {"domain_id", "INTEGER", "`nvtx_domains.domain_id`"},
    {"category", "INTEGER", "category id"},
    {"name", "TEXT", "the name nvtxNameCategory gave"},
};
inline constexpr TableDef kNvtxCategories{"nvtx_categories", kNvtxCategoriesColumns,
                                          "Named NVTX categories."};

inline constexpr ColumnDef kMetricSeriesColumns[] = {
    {"series_id", "INTEGER PRIMARY KEY", "the id metric tracks refer to (`tracks.series`)"},
    {"name", "TEXT", "metric name"},
    {"unit", "TEXT", "unit of its values"},
    {"source", "TEXT", "`proc` (CPU metrics), `nvml`, `cupti-pm`, `import`, `generated`"},
    {"device_id", "INTEGER", "its GPU; -1 for series that belong to no GPU"},
    {"pid", "INTEGER", "its process; 0 for system-wide series"},
};
inline constexpr TableDef kMetricSeries{"metric_series", kMetricSeriesColumns,
                                        "Sampled metrics, one row per series."};

inline constexpr ColumnDef kKernelLaunchesColumns[] = {
    {"id", "INTEGER PRIMARY KEY", "the id kernel events refer to; contiguous from 0"},
    {"mangled_name", "INTEGER", "string id"},
    {"short_name", "INTEGER", "string id"},
    {"grid_x", "INTEGER", "grid size"},
    {"grid_y", "INTEGER", ""},
    {"grid_z", "INTEGER", ""},
    {"block_x", "INTEGER", "block size"},
    {"block_y", "INTEGER", ""},
    {"block_z", "INTEGER", ""},
    {"registers", "INTEGER", "registers per thread"},
    {"static_shared", "INTEGER", "static shared memory, bytes"},
    {"dynamic_shared", "INTEGER", "dynamic shared memory, bytes"},
    {"local_bytes", "INTEGER", "local memory per thread, bytes"},
    {"launch_type", "INTEGER", "CUpti_ActivityLaunchType"},
    {"graph_id", "INTEGER", "CUDA graph id (0 none)"},
    {"graph_node_id", "INTEGER", "CUDA graph node id (0 none)"},
};
inline constexpr TableDef kKernelLaunches{
    "kernel_launches", kKernelLaunchesColumns,
    "Launch parameters shared by kernel events (kernels repeat a few configurations millions of\n"
    "times)."};

inline constexpr ColumnDef kStackFramesColumns[] = {
    {"id", "INTEGER PRIMARY KEY", "contiguous from 0"},
    {"function", "INTEGER", "string id; 0 = not resolved (viewers show `module+0xoffset`)"},
    {"module", "INTEGER", "string id"},
    {"offset", "INTEGER",
     "the instruction's file offset in the module (for the pseudo modules `[kernel]` and "
     "`[unknown]` and "
     "frames imported from nsys, which gives only absolute addresses: the address itself)"},
};
inline constexpr TableDef kStackFrames{
    "stack_frames", kStackFramesColumns,
    R"(Each distinct frame of the call stacks of CPU samples (`cpu_sample` events). Added without
raising `min_reader_version`; files without this table have no samples.)",
    true};

inline constexpr ColumnDef kCallStacksColumns[] = {
    {"id", "INTEGER PRIMARY KEY", "contiguous from 0"},
    {"frames", "BLOB NOT NULL",
     "little-endian uint32 `stack_frames.id`s, the sampled instruction (leaf) first"},
};
inline constexpr TableDef kCallStacks{
    "call_stacks", kCallStacksColumns,
    R"(Each distinct call stack, stored once. Added without raising `min_reader_version`; files
without this table have no samples.)",
    true};

inline constexpr ColumnDef kEventBacktracesColumns[] = {
    {"kind", "INTEGER NOT NULL", "the event kind's number"},
    {"pid", "INTEGER NOT NULL", "the event's process"},
    {"tid", "INTEGER NOT NULL", "the event's thread"},
    {"seq", "INTEGER NOT NULL", "index of the row's first backtrace"},
    {"count", "INTEGER NOT NULL", "backtraces in the row (the chunk's)"},
    {"raw_bytes", "INTEGER NOT NULL", "the chunk's decompressed size"},
    {"checksum", "INTEGER NOT NULL", "XXH3-64 of `data`"},
    {"data", "BLOB NOT NULL", "the chunk"},
};
inline constexpr TableDef kEventBacktraces{
    "event_backtraces", kEventBacktracesColumns,
    R"(The call stack taken when an event began (`--python-backtrace`: the Python stack of an OS
runtime call, an NVTX push, start or mark, or a CUDA API call): the event is the one of `kind` on
thread (`pid`, `tid`) starting at the stored time. Each row holds up to 65,536 backtraces of one
(kind, pid, tid), encoded as a chunk (below) of a `cpu_sample`-shaped track: start = the event's
start, `stack` = a `call_stacks.id`, `cpu` = 0. Rows in (kind, pid, tid, seq) order give strictly
increasing (kind, pid, tid, start). Added without raising `min_reader_version`; files without it
have no backtraces.)",
    true};

inline constexpr ColumnDef kDiagnosticsColumns[] = {
    {"name", "TEXT NOT NULL", "`nvtx.events_dropped`, `import.skipped_rows`, ..."},
    {"count", "INTEGER NOT NULL", "how many"},
    {"reason", "TEXT", "a sentence a user can act on"},
    {"pid", "INTEGER", "the process it concerns; 0 for none"},
};
inline constexpr TableDef kDiagnostics{"diagnostics", kDiagnosticsColumns,
                                       "Named counters of anything lost or skipped. Never silent."};

inline constexpr ColumnDef kProgramOutputColumns[] = {
    {"pid", "INTEGER", "the writing process"},
    {"stream", "INTEGER", "1 stdout, 2 stderr"},
    {"time_ns", "INTEGER", "when it was written"},
    {"text", "TEXT", "the bytes as written, stored as a BLOB (one read of the pipe: a UTF-8 "
                     "character may be split between rows)"},
};
inline constexpr TableDef kProgramOutput{"program_output", kProgramOutputColumns,
                                         "The program's output, with `--show-output`."};

inline constexpr ColumnDef kStringsColumns[] = {
    {"id", "INTEGER PRIMARY KEY", "1..N, contiguous (0 is the empty string and not stored)"},
    {"value", "BLOB NOT NULL", "bytes (usually UTF-8; imported text may not be)"},
};
inline constexpr TableDef kStrings{"strings", kStringsColumns,
                                   "The interned strings events and tables refer to."};

inline constexpr ColumnDef kTracksColumns[] = {
    {"id", "INTEGER PRIMARY KEY", "track id (`chunks.track_id`)"},
    {"kind", "INTEGER NOT NULL", "one of the event kinds below"},
    {"pid", "INTEGER", "owner: process (0 when it does not apply)"},
    {"tid", "INTEGER", "owner: thread"},
    {"device", "INTEGER", "owner: GPU (-1 when it does not apply)"},
    {"context", "INTEGER", "owner: CUDA context"},
    {"stream", "INTEGER", "owner: CUDA stream"},
    {"domain", "INTEGER", "owner: NVTX domain"},
    {"series", "INTEGER", "owner: `metric_series.series_id`"},
    {"event_count", "INTEGER NOT NULL", "events in the track"},
    {"lane_count", "INTEGER NOT NULL", "lanes (below)"},
    {"t_min", "INTEGER", "first start"},
    {"t_max", "INTEGER", "last end"},
};
inline constexpr TableDef kTracks{
    "tracks", kTracksColumns,
    "A track is the events of one kind with one owner; the owner columns that do not apply are 0\n"
    "(`device` -1)."};

inline constexpr ColumnDef kChunksColumns[] = {
    {"track_id", "INTEGER NOT NULL", "`tracks.id`"},
    {"lane", "INTEGER NOT NULL", "lane of the track"},
    {"seq", "INTEGER NOT NULL", "position in the lane, from 0"},
    {"t_min", "INTEGER NOT NULL", "the chunk's first start"},
    {"t_max", "INTEGER NOT NULL", "its last end"},
    {"count", "INTEGER NOT NULL", "events"},
    {"raw_bytes", "INTEGER NOT NULL", "decompressed size"},
    {"checksum", "INTEGER NOT NULL", "XXH3-64 of `data`, stored as a signed 64-bit integer"},
    {"data", "BLOB NOT NULL", "the chunk (encoding below)"},
};
inline constexpr TableDef kChunks{
    "chunks", kChunksColumns,
    "The events, one row per chunk; lane `l` of a track is the concatenation of its chunks\n"
    "`seq = 0, 1, ...`."};

inline constexpr const TableDef* kTables[] = {
    &kSightlineMeta,    &kSession,         &kSessionArgv,     &kSessionEnv,   &kProcesses,
    &kProcessReparents, &kProcessMpiRanks, &kThreads,         &kGpus,         &kCudaContexts,
    &kCudaStreams,      &kNvtxDomains,     &kNvtxCategories,  &kMetricSeries, &kKernelLaunches,
    &kStackFrames,      &kCallStacks,      &kEventBacktraces, &kDiagnostics,  &kProgramOutput,
    &kStrings,          &kTracks,          &kChunks,
};

// Created after the chunks are written (one sort instead of index updates per insert).
inline constexpr IndexDef kIndexes[] = {
    {"chunks_by_time", "chunks", "track_id, t_min, t_max", false, "time windows of a track"},
    {"chunks_by_lane", "chunks", "track_id, lane, seq", true, "a track's chunks in lane order"},
};

// ---- Generated SQL and documentation (RepSchema.cpp) ----

std::string createTableSql(const TableDef& table);  // "CREATE TABLE t(a INTEGER, ...);"
std::string createIndexSql(const IndexDef& index);
std::string createIndexesSql();
std::string insertSql(const TableDef& table);  // "INSERT INTO t(a, b) VALUES(?,?)"
// "SELECT a, b FROM t": columns named in `present` are selected, the others read as NULL
// (a nullable column appended after the file was written).
std::string selectSql(const TableDef& table, std::span<const std::string> present);
// FORMAT.md's "Tables" section body: each table's heading, text and column table, then the indexes.
std::string markdownTables();

}  // namespace sl::repschema
