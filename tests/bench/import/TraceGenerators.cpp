#include "TraceGenerators.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "model/rep/Sqlite.h"

namespace sl::bench {

Result<GeneratedTrace> writeNsysSqlite(const std::string& path, uint64_t targetEvents) {
    std::filesystem::remove(path);
    sqlite::Db db;
    if (auto st = db.create(path); !st) return Error{st.error()};
    const char* schema = R"(
        PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
        CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
        CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
            globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
            contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
            demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
            cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
            gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
            staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
            localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
            sharedMemoryLimitConfig INTEGER);
        CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
            category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
            domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
            int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
        INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '2023-11-14T22:13:20', '');
    )";
    if (auto st = db.exec(schema); !st) return Error{st.error()};
    if (auto st = db.exec("BEGIN"); !st) return Error{st.error()};
    {
        sqlite::Stmt s(db, "INSERT INTO StringIds VALUES (?1, ?2)");
        const char* names[] = {"cudaLaunchKernel_v7000",
                               "void gemm_kernel<float, 128>(float*, float const*, int)",
                               "gemm_kernel",
                               "_Z11gemm_kernelIfLi128EEvPfPKfi",
                               "forward",
                               "python"};
        for (int i = 0; i < 6; ++i) {
            s.bind(1, int64_t{i + 1}).bind(2, std::string_view(names[i]));
            s.step();
            s.reset();
        }
    }
    const int64_t pid = 4242, threads = 4;
    const int64_t globalPid = pid * 0x1000000;
    if (auto st = db.exec("INSERT INTO PROCESSES VALUES (" + std::to_string(globalPid) +
                          ", 4242, 'python train.py')");
        !st)
        return Error{st.error()};
    sqlite::Stmt rt(db,
                    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 0, ?3, ?4, 1, 0, 0)");
    sqlite::Stmt kn(db,
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, 0, 1, ?3, ?4, ?5, 2, "
                    "3, 4, 0, 0, 64, "
                    "128, 1, 1, 256, 1, 1, 0, 4096, 0, 0, ?4, 0, NULL, 0)");
    sqlite::Stmt nv(db,
                    "INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, textId, domainId) "
                    "VALUES (?1, ?2, 59, ?3, 5, 0)");
    GeneratedTrace g;
    const uint64_t steps = targetEvents / 3;
    int64_t t = 1000;
    for (uint64_t i = 0; i < steps; ++i) {
        const int64_t tid = pid + static_cast<int64_t>(i % threads);
        const int64_t globalTid = globalPid + tid;
        const auto corr = static_cast<int64_t>(i + 1);
        nv.bind(1, t).bind(2, t + 5000).bind(3, globalTid);
        nv.step();
        nv.reset();
        rt.bind(1, t + 100).bind(2, t + 2100).bind(3, globalTid).bind(4, corr);
        rt.step();
        rt.reset();
        kn.bind(1, t + 3000)
            .bind(2, t + 9000)
            .bind(3, 7 + static_cast<int64_t>(i % 4))
            .bind(4, corr)
            .bind(5, globalPid);
        kn.step();
        kn.reset();
        if (!kn.ok()) return Error{kn.error()};
        t += 1500;
        g.events += 3;
    }
    if (auto st = db.exec("COMMIT"); !st) return Error{st.error()};
    db.close();
    g.bytes = std::filesystem::file_size(path);
    return g;
}

Result<GeneratedTrace> writeKinetoJson(const std::string& path, uint64_t targetEvents) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) return Error{"cannot write " + path};
    FILE* out = f.get();
    std::fprintf(out,
                 "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": "
                 "\"NVIDIA H100\", "
                 "\"totalGlobalMem\": 85000000000, \"computeMajor\": 9, \"computeMinor\": 0, "
                 "\"numSms\": 132}],\n"
                 "  \"displayTimeUnit\": \"ms\",\n  \"traceEvents\": [\n");
    GeneratedTrace g;
    const uint64_t steps = targetEvents / 4;  // cpu_op, cuda_runtime, kernel (+2 flows, not events)
    const int64_t pid = 4242;
    uint64_t t = 1000;  // microseconds relative to baseTimeNanoseconds, with fractional ns
    for (uint64_t i = 0; i < steps; ++i) {
        const int64_t tid = pid + static_cast<int64_t>(i % 4);
        const uint64_t corr = i + 1;
        std::fprintf(
            out,
            "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": %" PRId64
            ", \"tid\": %" PRId64 ", \"ts\": %" PRIu64
            ".125, \"dur\": 9.500, \"args\": {\"External id\": %" PRIu64
            ", \"Record function id\": 0, \"Sequence number\": %" PRIu64 "}},\n",
            pid, tid, t, corr, corr);
        std::fprintf(out,
                     "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                     "\"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": %" PRIu64
                     ".250, \"dur\": 4.125, \"args\": {\"External id\": %" PRIu64
                     ", \"cbid\": 211, \"correlation\": %" PRIu64 "}},\n",
                     pid, tid, t + 1, corr, corr);
        std::fprintf(out,
                     "  {\"ph\": \"s\", \"id\": %" PRIu64 ", \"pid\": %" PRId64
                     ", \"tid\": %" PRId64 ", \"ts\": %" PRIu64
                     ".250, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n",
                     corr, pid, tid, t + 1);
        const char* cat = (i % 10 == 9) ? "gpu_memcpy" : "kernel";
        const char* name = (i % 10 == 9) ? "Memcpy HtoD (Pinned -> Device)"
                                         : "void at::native::vectorized_elementwise_kernel<4, "
                                           "at::native::FillFunctor<float> >";
        std::fprintf(
            out,
            "  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": "
            "%" PRIu64 ".375, \"dur\": 6.001, \"args\": {\"External id\": %" PRIu64
            ", \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": %d, \"correlation\": "
            "%" PRIu64
            ", \"registers per thread\": 32, \"shared memory\": 0, \"bytes\": 4096, \"grid\": "
            "[128, 1, 1], "
            "\"block\": [256, 1, 1]}},\n",
            cat, name, 7 + static_cast<int>(i % 4), t + 5, corr, 7 + static_cast<int>(i % 4), corr);
        std::fprintf(out,
                     "  {\"ph\": \"f\", \"id\": %" PRIu64
                     ", \"pid\": 0, \"tid\": %d, \"ts\": %" PRIu64
                     ".375, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n",
                     corr, 7 + static_cast<int>(i % 4), t + 5);
        // One user_annotation per 8 steps: a fourth kind of CPU row.
        if (i % 8 == 0)
            std::fprintf(
                out,
                "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%" PRIu64
                "\", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": %" PRIu64
                ", \"dur\": 90},\n",
                i / 8, pid, tid, t);
        g.events += 3 + (i % 8 == 0 ? 1 : 0);
        t += 12;
    }
    std::fprintf(out,
                 "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %" PRId64
                 ", \"tid\": 0, \"args\": {\"name\": \"python\"}}\n  ],\n"
                 "  \"baseTimeNanoseconds\": 1700000000000000000\n}\n",
                 pid);
    f.reset();
    g.bytes = std::filesystem::file_size(path);
    return g;
}

}  // namespace sl::bench
