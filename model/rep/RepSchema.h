#pragma once
// The SQL schema of a .rep file (documented column by column in model/FORMAT.md).
namespace sl::repschema {

inline constexpr const char* kCreateTables = R"SQL(
CREATE TABLE sightline_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE session(working_directory TEXT, host_name TEXT, os TEXT, cpu_model TEXT, tool_version TEXT,
  capture_options TEXT, source TEXT, start_utc_ns INTEGER, start_monotonic_ns INTEGER, duration_ns INTEGER);
CREATE TABLE session_argv(idx INTEGER PRIMARY KEY, arg TEXT NOT NULL);
CREATE TABLE session_env(name TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE processes(pid INTEGER NOT NULL, parent_pid INTEGER, name TEXT, command_line TEXT, start_ns INTEGER,
  end_ns INTEGER, exit_code INTEGER, exit_signal INTEGER);
CREATE TABLE process_reparents(pid INTEGER NOT NULL, time_ns INTEGER, from_pid INTEGER, to_pid INTEGER);
CREATE TABLE process_mpi_ranks(pid INTEGER NOT NULL, rank INTEGER NOT NULL, world_size INTEGER NOT NULL);
CREATE TABLE threads(tid INTEGER NOT NULL, pid INTEGER NOT NULL, name TEXT, start_ns INTEGER, end_ns INTEGER);
CREATE TABLE gpus(device_id INTEGER NOT NULL, name TEXT, uuid TEXT, pci_bus_id TEXT, sm_count INTEGER,
  memory_bytes INTEGER, compute_major INTEGER, compute_minor INTEGER, sm_clock_khz INTEGER,
  memory_clock_khz INTEGER, memory_bandwidth INTEGER);
CREATE TABLE cuda_contexts(pid INTEGER, device_id INTEGER, context_id INTEGER, name TEXT);
CREATE TABLE cuda_streams(pid INTEGER, device_id INTEGER, context_id INTEGER, stream_id INTEGER, priority INTEGER,
  flags INTEGER, is_default INTEGER, name TEXT);
CREATE TABLE nvtx_domains(pid INTEGER, domain_id INTEGER, name TEXT);
CREATE TABLE nvtx_categories(pid INTEGER, domain_id INTEGER, category INTEGER, name TEXT);
CREATE TABLE metric_series(series_id INTEGER PRIMARY KEY, name TEXT, unit TEXT, source TEXT, device_id INTEGER,
  pid INTEGER);
CREATE TABLE kernel_launches(id INTEGER PRIMARY KEY, mangled_name INTEGER, short_name INTEGER, grid_x INTEGER,
  grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, registers INTEGER,
  static_shared INTEGER, dynamic_shared INTEGER, local_bytes INTEGER, launch_type INTEGER, graph_id INTEGER,
  graph_node_id INTEGER);
CREATE TABLE stack_frames(id INTEGER PRIMARY KEY, function INTEGER, module INTEGER, offset INTEGER);
CREATE TABLE call_stacks(id INTEGER PRIMARY KEY, frames BLOB NOT NULL);
CREATE TABLE event_backtraces(kind INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  seq INTEGER NOT NULL, count INTEGER NOT NULL, raw_bytes INTEGER NOT NULL, checksum INTEGER NOT NULL,
  data BLOB NOT NULL);
CREATE TABLE diagnostics(name TEXT NOT NULL, count INTEGER NOT NULL, reason TEXT, pid INTEGER);
CREATE TABLE program_output(pid INTEGER, stream INTEGER, time_ns INTEGER, text TEXT);
CREATE TABLE strings(id INTEGER PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE tracks(id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, pid INTEGER, tid INTEGER, device INTEGER,
  context INTEGER, stream INTEGER, domain INTEGER, series INTEGER, event_count INTEGER NOT NULL,
  lane_count INTEGER NOT NULL, t_min INTEGER, t_max INTEGER);
CREATE TABLE chunks(track_id INTEGER NOT NULL, lane INTEGER NOT NULL, seq INTEGER NOT NULL, t_min INTEGER NOT NULL,
  t_max INTEGER NOT NULL, count INTEGER NOT NULL, raw_bytes INTEGER NOT NULL, checksum INTEGER NOT NULL,
  data BLOB NOT NULL);
)SQL";

inline constexpr const char* kCreateIndexes = R"SQL(
CREATE INDEX chunks_by_time ON chunks(track_id, t_min, t_max);
CREATE UNIQUE INDEX chunks_by_lane ON chunks(track_id, lane, seq);
)SQL";

}  // namespace sl::repschema
