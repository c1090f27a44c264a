// nsys SQLite exports from real runs (tests/data/import/NOTICE.md): counts, names, bytes,
// streams and correlations against what the fixtures hold.
#include <gtest/gtest.h>

#include <filesystem>

#include "ImportTestUtil.h"
#include "model/import/ImportText.h"
#include "model/rep/Sqlite.h"

namespace sl::test {
namespace {

// A hand-made export at `path`: the SQL's tables and rows.
::testing::AssertionResult makeExport(const std::string& path, const char* sql) {
    sqlite::Db db;
    if (!db.create(path).ok()) return ::testing::AssertionFailure() << "cannot create " << path;
    if (!db.exec(sql).ok()) return ::testing::AssertionFailure() << "bad SQL for " << path;
    return ::testing::AssertionSuccess();
}

// Correlation ids of the API calls in the source export (eventClass 67 rows are duplicates).
std::set<int64_t> sourceApiCorrelations(const std::string& path) {
    sqlite::Db db;
    EXPECT_TRUE(db.openReadOnly(path).ok());
    std::set<int64_t> out;
    sqlite::Stmt st(db,
                    "SELECT correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass != 67");
    while (st.step()) out.insert(st.i64(0));
    return out;
}

// Kernels of the source whose correlation id has an API call in the source, and those in the
// report.
void expectKernelCorrelations(const std::string& path, const Report& r, int expectedResolved,
                              int expectedUnresolved) {
    const auto source = sourceApiCorrelations(path);
    const auto imported = apiCorrelations(r);
    int resolved = 0, unresolved = 0;
    for (const Track* t : r.tracksOfKind(EventKind::Kernel)) {
        for (size_t i = 0; i < t->size(); ++i) {
            const int64_t c = t->intAt(cols::Kernel::Correlation, i);
            if (source.count(c)) {
                EXPECT_TRUE(imported.count(c))
                    << "kernel correlation " << c << " exists in the source but not the report";
                ++resolved;
            } else {
                EXPECT_FALSE(imported.count(c)) << "correlation " << c << " was invented";
                ++unresolved;
            }
        }
    }
    EXPECT_EQ(resolved, expectedResolved);
    EXPECT_EQ(unresolved, expectedUnresolved);
}

uint64_t memcpyBytes(const Report& r, CopyKind kind, int* count) {
    uint64_t bytes = 0;
    *count = 0;
    for (const Track* t : r.tracksOfKind(EventKind::Memcpy))
        for (size_t i = 0; i < t->size(); ++i)
            if (t->intAt(cols::Memcpy::CopyKind, i) == static_cast<int64_t>(kind)) {
                bytes += static_cast<uint64_t>(t->intAt(cols::Memcpy::Bytes, i));
                ++*count;
            }
    return bytes;
}

TEST(NsysImport, PipitSaxpyCountsNamesBytesAndStreams) {
    const std::string path = fixture("pipit_saxpy_mpi_cuda.sqlite");
    auto r = importOk(path);
    EXPECT_EQ(r->session.source, "nsys-sqlite");
    EXPECT_EQ(r->session.startUtcNs, 1687813257637297504LL);
    EXPECT_EQ(r->session.hostName, "nid001608");
    EXPECT_NE(r->session.captureOptions.find("2022.2.1.31"), std::string::npos);

    EXPECT_EQ(r->eventCount(EventKind::Kernel), 5u);
    EXPECT_EQ(
        nameCounts(*r, EventKind::Kernel),
        (std::map<std::string, int>{{"saxpy(double *, double *, double *, double, int)", 5}}));
    auto kernels = r->tracksOfKind(EventKind::Kernel);
    ASSERT_EQ(kernels.size(), 1u);  // one stream
    EXPECT_EQ(kernels[0]->key.stream, 7u);
    EXPECT_EQ(kernels[0]->key.device, 0);
    EXPECT_EQ(kernels[0]->key.pid, 1230493);
    const KernelLaunchInfo& launch =
        r->kernelLaunches[static_cast<size_t>(kernels[0]->intAt(cols::Kernel::Launch, 0))];
    EXPECT_EQ(r->str(launch.shortName), "saxpy");
    EXPECT_EQ(launch.grid[0], 2u);
    EXPECT_EQ(launch.block[0], 512u);
    EXPECT_EQ(launch.registersPerThread, 26u);

    int htod = 0, dtoh = 0;
    EXPECT_EQ(memcpyBytes(*r, CopyKind::HtoD, &htod), 2621440000u);
    EXPECT_EQ(memcpyBytes(*r, CopyKind::DtoH, &dtoh), 1310720000u);
    EXPECT_EQ(htod, 10);
    EXPECT_EQ(dtoh, 5);
    EXPECT_EQ(r->eventCount(EventKind::Memcpy), 15u);

    // 95 RUNTIME rows, 38 of them eventClass 67 backtrace duplicates.
    EXPECT_EQ(r->eventCount(EventKind::CudaApi), 57u);
    EXPECT_EQ(r->diagnosticCount("nsys.runtime_backtrace_rows"), 38);
    auto api = nameCounts(*r, EventKind::CudaApi);
    EXPECT_EQ(api["cudaLaunchKernel"], 5);  // the "_v7000" ABI suffix is dropped
    EXPECT_EQ(api.count("cudaLaunchKernel_v7000"), 0u);
    int driver = 0;
    for (const Track* t : r->tracksOfKind(EventKind::CudaApi))
        for (size_t i = 0; i < t->size(); ++i)
            driver += t->intAt(cols::CudaApi::Api, i) == int64_t(ApiKind::Driver);
    EXPECT_EQ(driver, 1);  // one eventClass 1 row

    // NVTX: 22 ranges, names from `text` and through `textId`, a domain "MPI".
    EXPECT_EQ(r->eventCount(EventKind::NvtxRange), 22u);
    EXPECT_EQ(nameCounts(*r, EventKind::NvtxRange),
              (std::map<std::string, int>{{"MPI_Send", 10},
                                          {"saxpy", 5},
                                          {"MPI_Recv", 5},
                                          {"MPI_Init", 1},
                                          {"MPI_Finalize", 1}}));
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "MPI"), 17u);
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "default"), 5u);

    // nvtxNameOsThread (eventType 39) names the thread; PROCESSES names the process.
    const Thread* t = r->findThread(1230493, 302119224788637LL % 0x1000000);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->name, "MPI Rank 0");
    ASSERT_NE(r->findProcess(1230493), nullptr);
    EXPECT_EQ(r->findProcess(1230493)->name, "./saxpy-mpi-cuda");

    ASSERT_EQ(r->gpus.size(), 1u);
    EXPECT_EQ(r->gpus[0].name, "NVIDIA A100-SXM4-40GB");
    EXPECT_EQ(r->gpus[0].smCount, 108);
    EXPECT_EQ(r->gpus[0].computeMajor, 8);
    EXPECT_EQ(r->gpus[0].pciBusId, "0000:03:00.0");
    const CudaStream* s = r->findStream(1230493, 0, 1, 7);
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->isDefault);  // TARGET_INFO_CUDA_NULL_STREAM
    EXPECT_EQ(s->flags, 3u);

    expectKernelCorrelations(path, *r, 5, 0);
    // Tables nsys wrote that Sightline does not map are counted, not silently dropped.
    EXPECT_EQ(r->diagnosticCount("nsys.unmapped_table.CUDA_CALLCHAINS"), 296);
    // SCHED_EVENTS: 1,619 sched-in and 1,619 sched-out rows on 8 threads pair into running periods.
    EXPECT_EQ(r->eventCount(EventKind::ThreadState), 1619u);
    EXPECT_EQ(r->tracksOfKind(EventKind::ThreadState).size(), 8u);
    EXPECT_EQ(r->diagnosticCount("nsys.unmapped_table.SCHED_EVENTS"), 0);
    EXPECT_EQ(r->diagnosticCount("nsys.sched_unpaired"), 0);
    EXPECT_EQ(r->threads.size(), 8u);
    for (const Track* ts : r->tracksOfKind(EventKind::ThreadState))
        for (size_t i = 0; i < ts->size(); ++i) EXPECT_GE(ts->intAt(cols::ThreadState::Cpu, i), 0);
}

TEST(NsysImport, ExtrapConcurrentStreamsNvtxAndNonCudaGpus) {
    const std::string path = fixture("extrap_concurrent_s1.sqlite");
    auto r = importOk(path);
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 12u);
    EXPECT_EQ(r->tracksOfKind(EventKind::Kernel).size(), 10u);  // 10 streams
    EXPECT_EQ(r->eventCount(EventKind::Memcpy), 30u);
    EXPECT_EQ(r->eventCount(EventKind::Memset), 17u);
    EXPECT_EQ(r->eventCount(EventKind::CudaApi), 184u);
    EXPECT_EQ(r->eventCount(EventKind::Sync), 16u);
    EXPECT_EQ(r->eventCount(EventKind::CudaMemory), 60u);
    // 77 NVTX rows: 76 nested push/pop ranges and one domain creation.
    EXPECT_EQ(r->eventCount(EventKind::NvtxRange), 76u);
    EXPECT_EQ(domainEvents(*r, EventKind::NvtxRange, "de.tu-darmstadt.parallel.extra_prof"), 76u);
    auto nvtx = r->tracksOfKind(EventKind::NvtxRange);
    ASSERT_EQ(nvtx.size(), 1u);
    EXPECT_EQ(nvtx[0]->laneCount(), 4u);  // nesting depth
    EXPECT_EQ(nameCounts(*r, EventKind::NvtxRange)["main"], 1);
    // TARGET_INFO_GPU lists an Intel and a WDDM adapter too: only the CUDA GPU is kept.
    ASSERT_EQ(r->gpus.size(), 1u);
    EXPECT_EQ(r->gpus[0].name, "GeForce GTX 1060 with Max-Q Design");
    EXPECT_EQ(r->diagnosticCount("nsys.non_cuda_gpus"), 2);
    // Extra tables the repo's authors added are reported with their row counts.
    EXPECT_EQ(r->diagnosticCount("nsys.unmapped_table.EXTRAP_RESOLVED_CALLPATHS"), 257);
    EXPECT_EQ(r->diagnosticCount("nsys.cuda_events_without_time"), 5);
    expectKernelCorrelations(path, *r, 12, 0);
    EXPECT_EQ(resolvedCount(*r, EventKind::Memcpy), 30);
    // Every string of the report is valid UTF-8 (the export holds Latin-1 bytes).
    for (size_t i = 0; i < r->strings.size(); ++i)
        EXPECT_TRUE(import::isValidUtf8(r->strings.get(static_cast<uint32_t>(i))));
    for (const auto& g : r->gpus) EXPECT_TRUE(import::isValidUtf8(g.name));
    EXPECT_TRUE(import::isValidUtf8(r->session.hostName));
}

TEST(NsysImport, ExtrapConKernelCountsKernelsWithoutRuntimeRows) {
    const std::string path = fixture("extrap_con_kernel.sqlite");
    auto r = importOk(path);
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 9u);
    EXPECT_EQ(r->tracksOfKind(EventKind::Kernel).size(), 5u);
    EXPECT_EQ(r->eventCount(EventKind::Memcpy), 11u);
    EXPECT_EQ(r->eventCount(EventKind::Memset), 1u);
    EXPECT_EQ(r->eventCount(EventKind::CudaApi), 71u);
    EXPECT_EQ(r->eventCount(EventKind::NvtxRange), 0u);  // no NVTX table
    // Two kernels have no RUNTIME row for their correlation id: kept, not matched to anything.
    expectKernelCorrelations(path, *r, 7, 2);
}

// A kernel whose end precedes its start (a damaged or edited export) was clamped to a zero
// length with nothing said: its summary's total and minimum changed silently.
TEST(NsysImport, InvertedIntervalsAreCounted) {
    TempDir dir;
    const std::string path = dir.file("inverted.sqlite");
    std::filesystem::copy_file(fixture("extrap_con_kernel.sqlite"), path);
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());  // opens the copy read-write
        ASSERT_TRUE(db.exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 100 WHERE rowid = 1").ok());
    }
    auto r = importOk(path);
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 9u);
    EXPECT_EQ(r->diagnosticCount("nsys.inverted_intervals"), 1);
    EXPECT_EQ(importOk(fixture("extrap_con_kernel.sqlite"))->diagnosticCount("nsys.inverted_intervals"), 0);
}

TEST(NsysImport, ToleratesMissingColumnsNullsAndOldSchemas) {
    TempDir dir;
    const std::string path = dir.file("old.sqlite");
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        // An old export: no metadata tables, KERNEL without most columns, names as text, NULLs.
        ASSERT_TRUE(db.exec(R"(
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
            INSERT INTO StringIds VALUES (1, 'k1'), (2, 'cudaMemcpy_v3020'), (3, 'read'), (4, X'6E616DE9');
            CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
                streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 1, 7, 5, 16777216 * 77, 1),
                                                          (300, 250, 0, 1, 7, NULL, 16777216 * 77, 99);
            CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,
                correlationId INTEGER, nameId INTEGER);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 90, 16777216 * 77 + 78, 5, 2);
            CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER,
                color INTEGER, category INTEGER, domainId INTEGER, int64Value INTEGER);
            INSERT INTO NVTX_EVENTS VALUES (5, NULL, 59, 'never ends', 16777216 * 77 + 78, NULL, NULL, NULL, NULL),
                                           (6, 60, 60, 'colored', 16777216 * 77 + 78, 4278190335, 3, 0, -7),
                                           (7, NULL, 34, 'mark', 16777216 * 77 + 78, NULL, NULL, NULL, NULL),
                                           (1, NULL, 33, 'my category', 16777216 * 77 + 78, NULL, 3, 0, NULL),
                                           (8, 9, 999, 'odd', 16777216 * 77 + 78, NULL, NULL, NULL, NULL);
            CREATE TABLE OSRT_API (start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER, returnValue INTEGER);
            INSERT INTO OSRT_API VALUES (20, 40, 16777216 * 77 + 78, 3, -1), (50, 60, 16777216 * 77 + 78, 4, 0);
            CREATE TABLE SOMETHING_NEW (start INTEGER, x INTEGER);
            INSERT INTO SOMETHING_NEW VALUES (1, 2), (3, 4), (5, 6);
        )")
                        .ok());
    }
    auto r = importOk(path);
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 2u);
    EXPECT_EQ(nameCounts(*r, EventKind::Kernel)["k1"], 1);
    EXPECT_EQ(r->diagnosticCount("nsys.unknown_string_ids"), 1);
    // An end before the start is clamped to a zero-length event.
    const Track* k = r->tracksOfKind(EventKind::Kernel)[0];
    EXPECT_EQ(k->durationAt(1), 0);
    EXPECT_EQ(nameCounts(*r, EventKind::CudaApi)["cudaMemcpy"], 1);
    EXPECT_EQ(r->eventCount(EventKind::NvtxRange), 1u);
    EXPECT_EQ(r->eventCount(EventKind::NvtxMark), 1u);
    EXPECT_EQ(r->diagnosticCount("nsys.nvtx_unterminated_ranges"), 1);
    EXPECT_EQ(r->diagnosticCount("nsys.nvtx_unknown_event_type"), 1);
    const Track* nv = r->tracksOfKind(EventKind::NvtxRange)[0];
    EXPECT_EQ(static_cast<uint32_t>(nv->intAt(cols::Nvtx::Color, 0)), 0xFF0000FFu);
    EXPECT_EQ(nv->intAt(cols::Nvtx::Category, 0), 3);
    EXPECT_EQ(nv->intAt(cols::Nvtx::RangeType, 0), int64_t(RangeType::StartEnd));
    EXPECT_EQ(nv->intAt(cols::Nvtx::PayloadType, 0), int64_t(PayloadType::I64));
    EXPECT_EQ(nv->intAt(cols::Nvtx::Payload, 0), -7);
    ASSERT_EQ(r->nvtxCategories.size(), 1u);
    EXPECT_EQ(r->nvtxCategories[0].name, "my category");
    EXPECT_EQ(r->nvtxCategories[0].category, 3u);
    auto os = nameCounts(*r, EventKind::OsRuntime);
    EXPECT_EQ(os["read"], 1);
    EXPECT_EQ(os["nam\xEF\xBF\xBD"], 1);  // a Latin-1 byte becomes U+FFFD
    EXPECT_EQ(r->diagnosticCount("nsys.unmapped_table.SOMETHING_NEW"), 3);
    EXPECT_EQ(r->diagnosticCount("nsys.no_session_start_time"), 1);
    ASSERT_NE(r->findThread(77, 78), nullptr);
    ASSERT_EQ(r->gpus.size(), 1u);  // a row for the device events use
    EXPECT_EQ(r->gpus[0].deviceId, 0);
}

// nsys's DIAGNOSTIC_EVENT: its warnings and errors are what it lost; they stay visible after
// the import, one diagnostic per message and process. Informational messages are not losses.
TEST(NsysImport, DiagnosticWarningsAndErrorsBecomeDiagnostics) {
    TempDir dir;
    const std::string path = dir.file("diag.sqlite");
    ASSERT_TRUE(makeExport(path, R"(
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
            CREATE TABLE OSRT_API (start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER);
            INSERT INTO StringIds VALUES (1, 'read');
            INSERT INTO OSRT_API VALUES (20, 40, 16777216 * 77 + 78, 1);
            CREATE TABLE ENUM_DIAGNOSTIC_SEVERITY_LEVEL (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
            INSERT INTO ENUM_DIAGNOSTIC_SEVERITY_LEVEL VALUES (1, 'DIAGNOSTIC_SEVERITY_LEVEL_INFO', 'Info'),
                (2, 'DIAGNOSTIC_SEVERITY_LEVEL_WARNING', 'Warning'), (3, 'DIAGNOSTIC_SEVERITY_LEVEL_ERROR', 'Error');
            CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER, timestampType INTEGER, source INTEGER,
                severity INTEGER, text TEXT, globalPid INTEGER);
            INSERT INTO DIAGNOSTIC_EVENT VALUES
                (0, 1, 3, 1, 'Profiling has started.', -144115188075855872),
                (10, 2, 1, 2, 'Not all NVTX events might have been collected.', 281474976710656 + 16777216 * 77),
                (11, 2, 1, 2, 'Not all NVTX events might have been collected.', 281474976710656 + 16777216 * 77),
                (12, 2, 1, 3, 'CUPTI buffers were lost.', NULL);
        )"));
    auto r = importOk(path);
    EXPECT_EQ(r->diagnosticCount("nsys.warning"), 2);
    EXPECT_EQ(r->diagnosticCount("nsys.error"), 1);
    EXPECT_EQ(r->diagnosticCount("nsys.info"), 0);
    EXPECT_EQ(r->diagnosticCount("nsys.unmapped_table.DIAGNOSTIC_EVENT"), 0);
    bool sawWarning = false;
    for (const auto& d : r->diagnostics)
        if (d.name == "nsys.warning") {
            sawWarning = true;
            EXPECT_EQ(d.reason, "Not all NVTX events might have been collected.");
            EXPECT_EQ(d.pid, 77);
        }
    EXPECT_TRUE(sawWarning);
    // A table of only (severity, text), without the enum: nsys's ids are assumed.
    const std::string bare = dir.file("bare.sqlite");
    ASSERT_TRUE(makeExport(bare, R"(
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
            CREATE TABLE DIAGNOSTIC_EVENT (severity INTEGER, text TEXT);
            INSERT INTO DIAGNOSTIC_EVENT VALUES (1, 'started'), (2, 'driver warning');
        )"));
    auto b = importOk(bare);
    EXPECT_EQ(b->diagnosticCount("nsys.warning"), 1);
    EXPECT_EQ(b->diagnosticCount("nsys.info"), 0);
    // Sightline's own rows with a count below 1, an empty name or no text; and a table that
    // cannot be read (a view over a dropped table), which costs its messages, not the import.
    const std::string odd = dir.file("odd.sqlite");
    ASSERT_TRUE(makeExport(odd, R"(
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
            CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER, timestampType INTEGER, source INTEGER,
                severity INTEGER, text TEXT, globalPid INTEGER, name TEXT, count INTEGER);
            INSERT INTO DIAGNOSTIC_EVENT VALUES (0, 2, 3, 2, 'y', NULL, 'x.negative', -3),
                                                (0, 2, 3, 2, NULL, NULL, 'x.no_text', 2),
                                                (0, 2, 3, 2, 'unnamed', NULL, '', 5);
        )"));
    auto o = importOk(odd);
    EXPECT_EQ(o->diagnosticCount("x.negative"), 1);
    EXPECT_EQ(o->diagnosticCount("x.no_text"), 2);
    EXPECT_EQ(o->diagnosticCount("nsys.warning"), 1);  // the unnamed row, as nsys's
    for (const auto& d : o->diagnostics) EXPECT_FALSE(d.reason.empty()) << d.name;
    const std::string view = dir.file("view.sqlite");
    ASSERT_TRUE(makeExport(view, R"(
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
            CREATE TABLE OSRT_API (start INTEGER, end INTEGER, globalTid INTEGER, nameId INTEGER);
            INSERT INTO StringIds VALUES (1, 'read');
            INSERT INTO OSRT_API VALUES (20, 40, 16777216 * 77 + 78, 1);
            CREATE TABLE t (severity INTEGER, text TEXT);
            CREATE VIEW DIAGNOSTIC_EVENT AS SELECT * FROM t;
            DROP TABLE t;
        )"));
    auto v = importOk(view);
    EXPECT_EQ(v->eventCount(EventKind::OsRuntime), 1u);
    EXPECT_EQ(v->diagnosticCount("nsys.diagnostics_unreadable"), 1);
}

TEST(NsysImport, NewerSchemaCudaDeviceMapGpuMetricsAndMemoryUsage) {
    TempDir dir;
    const std::string path = dir.file("new.sqlite");
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        // Schema 3.x shapes: GPUs mapped to CUDA ordinals through TARGET_INFO_CUDA_DEVICE, GPU
        // metrics sampled into GPU_METRICS and named by TARGET_INFO_GPU_METRICS.
        ASSERT_TRUE(db.exec(R"(
            CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
            INSERT INTO StringIds VALUES (1, 'k');
            CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
            INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1750000000000000000, '', '');
            CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, busLocation TEXT, computeMajor INTEGER,
                computeMinor INTEGER, smCount INTEGER, totalMemory INTEGER, extraColumn TEXT);
            INSERT INTO TARGET_INFO_GPU VALUES (5, 'H100 A', '0000:01:00.0', 9, 0, 132, 80, 'x'),
                                               (6, 'H100 B', '0000:02:00.0', 9, 0, 132, 80, 'y');
            CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER, uuid TEXT);
            INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (5, 1, 10, ''), (6, 0, 10, '');
            CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
                streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER,
                gridX INTEGER, blockX INTEGER, graphId INTEGER, newColumn INTEGER);
            INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 1, 1, 13, 1, 16777216 * 10, 1, 1, 8, 64, 3, 0);
            CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER, sourceId INTEGER, typeName TEXT, metricId INTEGER,
                metricName TEXT);
            INSERT INTO TARGET_INFO_GPU_METRICS VALUES (65541, 0, 'GA100', 0, 'SMs Active [Throughput %]'),
                                                       (65541, 0, 'GA100', 1, 'DRAM Bandwidth [Throughput %]');
            CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER, metricId INTEGER, value INTEGER);
            INSERT INTO GPU_METRICS VALUES (100, 65541, 0, 50), (200, 65541, 0, 75), (100, 65541, 1, 10);
            CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER, globalPid INTEGER, deviceId INTEGER,
                contextId INTEGER, address INTEGER, bytes INTEGER, memKind INTEGER, memoryOperationType INTEGER,
                correlationId INTEGER);
            INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (30, 16777216 * 10, 1, 1, 4096, 1000, 2, 0, 7),
                                                            (40, 16777216 * 10, 1, 1, 4096, 1000, 2, 1, 8);
        )")
                        .ok());
    }
    auto r = importOk(path);
    ASSERT_EQ(r->gpus.size(), 2u);
    EXPECT_EQ(r->gpus[0].deviceId, 0);
    EXPECT_EQ(r->gpus[0].name, "H100 B");
    EXPECT_EQ(r->gpus[1].deviceId, 1);
    EXPECT_EQ(r->gpus[1].name, "H100 A");
    EXPECT_EQ(r->session.startUtcNs, 1750000000000000000LL);
    const Track* k = r->tracksOfKind(EventKind::Kernel)[0];
    EXPECT_EQ(k->key.device, 1);
    EXPECT_EQ(k->key.stream, 13u);
    EXPECT_EQ(r->kernelLaunches[static_cast<size_t>(k->intAt(cols::Kernel::Launch, 0))].graphId,
              3u);
    ASSERT_EQ(r->metricSeries.size(), 2u);
    std::map<std::string, size_t> samples;
    for (const Track* t : r->tracksOfKind(EventKind::Metric)) {
        const MetricSeries* s = r->findSeries(t->key.series);
        samples[s->name] = t->size();
        EXPECT_EQ(s->deviceId, 5);  // typeId & 0xFF
        EXPECT_EQ(s->unit, "%");
    }
    EXPECT_EQ(samples, (std::map<std::string, size_t>{{"SMs Active [Throughput %]", 2},
                                                      {"DRAM Bandwidth [Throughput %]", 1}}));
    const Track* mem = r->tracksOfKind(EventKind::CudaMemory)[0];
    ASSERT_EQ(mem->size(), 2u);
    EXPECT_EQ(mem->intAt(cols::CudaMemory::Op, 0), int64_t(MemoryOp::Alloc));
    EXPECT_EQ(mem->intAt(cols::CudaMemory::Op, 1), int64_t(MemoryOp::Free));
    EXPECT_EQ(mem->intAt(cols::CudaMemory::MemKind, 0), int64_t(MemoryKind::Device));
    EXPECT_EQ(mem->key.pid, 10);
}

TEST(NsysImport, ProgressIsReportedAndCancelStops) {
    ImportOptions o;
    int calls = 0;
    double last = -1;
    bool monotonic = true;
    o.progress = [&](double f) {
        ++calls;
        monotonic = monotonic && f >= last;
        last = f;
        return true;
    };
    auto r = importFile(fixture("pipit_saxpy_mpi_cuda.sqlite"), o);
    ASSERT_TRUE(r.ok());
    EXPECT_GE(calls, 1);
    EXPECT_TRUE(monotonic);
    EXPECT_DOUBLE_EQ(last, 1.0);
    ImportOptions cancel;
    cancel.progress = [](double) { return false; };
    auto c = importFile(fixture("pipit_saxpy_mpi_cuda.sqlite"), cancel);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error(), "cancelled");
}

}  // namespace
}  // namespace sl::test
