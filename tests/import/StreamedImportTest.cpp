// The streamed import (events held compressed in a TrackSpool, written track by track) must write
// the same report as the in-memory import written whole: every table of the two files, chunk
// blobs included, row for row. Tiny spool sizes force many runs, merges in rounds and the
// writer's lane chunks to cross run boundaries.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>

#include "ImportTestUtil.h"
#include "model/import/KinetoJsonImporter.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"
#include "model/rep/Sqlite.h"

namespace sl::test {
namespace {

// Every row of every table of a .rep file, as text; chunk rows sorted (their insertion order
// follows when lanes fill, which is not content).
std::map<std::string, std::vector<std::string>> dumpTables(const std::string& path) {
    std::map<std::string, std::vector<std::string>> out;
    sqlite::Db db;
    EXPECT_TRUE(db.openReadOnly(path).ok()) << path;
    std::vector<std::string> tables;
    {
        sqlite::Stmt st(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
        while (st.step()) tables.emplace_back(st.text(0));
    }
    for (const std::string& t : tables) {
        sqlite::Stmt st(db, "SELECT * FROM \"" + t + "\"");
        auto& rows = out[t];
        while (st.step()) {
            std::string row;
            for (int c = 0; c < st.columnCount(); ++c) {
                row += std::string(st.columnName(c)) + "=";
                if (st.isNull(c)) {
                    row += "NULL";
                } else {
                    const auto b = st.blob(c);
                    for (unsigned char ch : b) {
                        char hex[3];
                        std::snprintf(hex, sizeof hex, "%02x", ch);
                        row += hex;
                    }
                }
                row += ";";
            }
            rows.push_back(row);
        }
        if (t == "chunks") std::sort(rows.begin(), rows.end());
    }
    return out;
}

struct Lcg {
    uint64_t s = 12345;
    uint64_t next(uint64_t n) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return (s >> 33) % n;
    }
};

// A Kineto-shaped trace with what the merge must get right: ranges written when they end
// (children before parents), equal starts, B/E pairs, two processes, GPU work before and after
// its API call, kernels of one stream launched by two processes, kernels without a call,
// annotations, counters, memory instants, CPU samples, metadata, and baseTimeNanoseconds last.
std::string makeTrace(int steps) {
    Lcg r;
    std::string j = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU A"}],)"
                    R"( "stackFrames": {"1": {"name": "main", "category": "app"},)"
                    R"( "2": {"name": "work", "category": "app", "parent": "1"}},)"
                    R"( "traceEvents": [)";
    char buf[512];
    auto add = [&j, &buf](int n) {
        j.append(buf, static_cast<size_t>(n));
        j += ",\n";
    };
    uint64_t corr = 1;
    for (int i = 0; i < steps; ++i) {
        const int pid = (i % 5 == 4) ? 200 : 100;
        const int tid = pid + static_cast<int>(r.next(3));
        const uint64_t t = 1000 + static_cast<uint64_t>(i) * 20 + r.next(40);  // out of order
        // A child then its parent (written at their ends), sometimes with the same start.
        add(std::snprintf(
            buf, sizeof buf,
            R"({"ph": "X", "cat": "cpu_op", "name": "child%d", "pid": %d, "tid": %d, "ts": %)" PRIu64
            R"(.5, "dur": 3, "args": {"External id": %d}})",
            i % 7, pid, tid, t + (i % 3 == 0 ? 0 : 2), i));
        add(std::snprintf(
            buf, sizeof buf,
            R"({"ph": "X", "cat": "cpu_op", "name": "parent%d", "pid": %d, "tid": %d, "ts": %)" PRIu64
            R"(.5, "dur": 9})",
            i % 4, pid, tid, t));
        // Equal ranges (same start and end, different names): arrival order decides.
        if (i % 6 == 0)
            add(std::snprintf(
                buf, sizeof buf,
                R"({"ph": "X", "cat": "cpu_op", "name": "twin%d", "pid": %d, "tid": %d, "ts": %)" PRIu64
                R"(.5, "dur": 9})",
                i, pid, tid, t));
        const uint64_t c = corr++;
        const bool gpuFirst = r.next(4) == 0;
        const int stream = 7 + static_cast<int>(r.next(2));
        const char* cat = i % 9 == 0 ? "gpu_memcpy" : (i % 11 == 0 ? "gpu_memset" : "kernel");
        const char* name = i % 9 == 0 ? "Memcpy HtoD (Pinned -> Device)"
                                      : (i % 11 == 0 ? "Memset (Device)" : "gemm");
        const bool uncorrelated = i % 13 == 0;
        auto gpu = [&] {
            if (uncorrelated)
                add(std::snprintf(
                    buf, sizeof buf,
                    R"({"ph": "X", "cat": "%s", "name": "%s", "pid": 0, "tid": %d, "ts": %)" PRIu64
                    R"(, "dur": 4, "args": {"device": 0, "stream": %d, "bytes": 64}})",
                    cat, name, stream, t + 6, stream));
            else
                add(std::snprintf(
                    buf, sizeof buf,
                    R"({"ph": "X", "cat": "%s", "name": "%s", "pid": 0, "tid": %d, "ts": %)" PRIu64
                    R"(, "dur": 4, "args": {"device": 0, "context": 1, "stream": %d, "correlation": %)" PRIu64
                    R"(, "bytes": 64, "grid": [%d, 1, 1], "block": [128, 1, 1]}})",
                    cat, name, stream, t + 6, stream, c, 1 + i % 3));
        };
        if (gpuFirst) gpu();
        add(std::snprintf(
            buf, sizeof buf,
            R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, "ts": %)" PRIu64
            R"(, "dur": 2, "args": {"correlation": %)" PRIu64 R"(, "cbid": 211}})",
            pid, tid, t + 1, c));
        if (!gpuFirst) gpu();
        if (i % 10 == 0)
            add(std::snprintf(
                buf, sizeof buf,
                R"({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": %)" PRIu64
                R"(, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": %)" PRIu64 "}}",
                t + 12, c));
        if (i % 8 == 0)
            add(std::snprintf(
                buf, sizeof buf,
                R"({"ph": "X", "cat": "gpu_user_annotation", "name": "step%d", "pid": 0, "tid": 7, "ts": %)" PRIu64
                R"(, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": %)" PRIu64 "}}",
                i, t, c));
        if (i % 4 == 0) {
            add(std::snprintf(
                buf, sizeof buf,
                R"({"ph": "B", "name": "outer", "cat": "user_annotation", "pid": %d, "tid": %d, "ts": %)" PRIu64
                "}",
                pid, tid + 10, t));
            add(std::snprintf(buf, sizeof buf,
                              R"({"ph": "E", "pid": %d, "tid": %d, "ts": %)" PRIu64 "}", pid,
                              tid + 10, t + 15));
        }
        if (i % 3 == 0)
            add(std::snprintf(buf, sizeof buf,
                              R"({"ph": "C", "name": "load", "pid": %d, "ts": %)" PRIu64
                              R"(, "args": {"value": %d.25}})",
                              pid, t, i % 17));
        if (i % 5 == 0)
            add(std::snprintf(
                buf, sizeof buf,
                R"({"ph": "i", "name": "[memory]", "pid": %d, "tid": %d, "ts": %)" PRIu64
                R"(, "args": {"Device Type": 1, "Device Id": 0, "Bytes": %d}})",
                pid, tid, t, 512 - i % 9));
        if (i % 7 == 0)
            add(std::snprintf(
                buf, sizeof buf,
                R"({"ph": "i", "cat": "cpu_sample", "name": "s", "pid": %d, "tid": %d, "ts": %)" PRIu64
                R"(, "sf": "2"})",
                pid, tid, t + 3));
        if (i % 29 == 0)
            add(std::snprintf(
                buf, sizeof buf,
                R"({"ph": "X", "cat": "cpu_op", "name": "bad", "pid": %d, "tid": %d, "ts": "x"})",
                pid, tid));
    }
    j +=
        R"({"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "trainer"}},)";
    j +=
        R"({"ph": "M", "name": "thread_name", "pid": 100, "tid": 101, "args": {"name": "worker"}}],)";
    j += R"( "baseTimeNanoseconds": 1700000000000000000})";
    return j;
}

constexpr import::SpoolPolicy kTinySpool{7, 16, 40, 3, 10};

TEST(StreamedImport, WritesTheSameReportAsTheInMemoryImport) {
    TempDir dir;
    const std::string input = dir.write("trace.json", makeTrace(700));
    for (const import::ChunkPolicy chunks :
         {import::ChunkPolicy{0, 4096}, import::ChunkPolicy{SIZE_MAX, 0}}) {
        auto mem = import::importChromeTrace(input, {}, chunks);
        ASSERT_TRUE(mem.ok()) << mem.error();
        WriteOptions w;
        w.chunkEvents = 5;  // lanes' chunks cross the spool's runs
        ASSERT_TRUE(writeReport(**mem, dir.file("memory.rep"), w).ok());
        auto streamed = import::importChromeTraceToReport(input, dir.file("streamed.rep"), {}, w,
                                                          chunks, kTinySpool);
        ASSERT_TRUE(streamed.ok()) << streamed.error();
        EXPECT_EQ(streamed->events, (*mem)->eventCount());
        EXPECT_EQ(streamed->diagnostics, (*mem)->diagnostics.size());
        EXPECT_EQ(streamed->source, "kineto-json");
        // The trace exercises what it should: GPU work of two processes, diagnostics, samples.
        EXPECT_GT((*mem)->eventCount(EventKind::Kernel), 100u);
        EXPECT_GT((*mem)->eventCount(EventKind::CpuSample), 10u);
        EXPECT_GT((*mem)->eventCount(EventKind::Metric), 10u);
        std::set<int64_t> kernelPids;
        for (const Track* t : (*mem)->tracksOfKind(EventKind::Kernel))
            kernelPids.insert(t->key.pid);
        EXPECT_EQ(kernelPids, (std::set<int64_t>{100, 200}));
        EXPECT_GE((*mem)->diagnostics.size(), 2u);
        const auto a = dumpTables(dir.file("memory.rep"));
        const auto b = dumpTables(dir.file("streamed.rep"));
        ASSERT_EQ(a.size(), b.size());
        for (const auto& [table, rows] : a) {
            ASSERT_TRUE(b.count(table)) << table;
            EXPECT_EQ(rows.size(), b.at(table).size()) << table;
            EXPECT_TRUE(rows == b.at(table)) << "table " << table << " differs";
        }
        EXPECT_GT(a.at("chunks").size(), 50u);
    }
}

TEST(StreamedImport, RealTracesGiveTheSameReport) {
    TempDir dir;
    for (const char* name : {"kineto_resnet50_legacy_2021.json.gz",
                             "hta_gpu_user_annotation.json.gz", "hta_compare_base.json.gz"}) {
        auto mem = importFile(fixture(name));
        ASSERT_TRUE(mem.ok()) << name;
        ASSERT_TRUE(writeReport(**mem, dir.file("memory.rep")).ok());
        auto streamed = import::importChromeTraceToReport(fixture(name), dir.file("streamed.rep"),
                                                          {}, {}, {}, kTinySpool);
        ASSERT_TRUE(streamed.ok()) << name << ": " << streamed.error();
        EXPECT_TRUE(dumpTables(dir.file("memory.rep")) == dumpTables(dir.file("streamed.rep")))
            << name;
    }
}

TEST(StreamedImport, TheCliWritesTheSameReportAsBefore) {
    // importFileToReport (what `sightline import` calls) streams Chrome traces; its report
    // reads back with the events and names of the in-memory import.
    TempDir dir;
    const std::string input = dir.write("trace.json", makeTrace(300));
    auto mem = importFile(input);
    ASSERT_TRUE(mem.ok());
    auto w = importFileToReport(input, dir.file("out.rep"));
    ASSERT_TRUE(w.ok()) << w.error();
    auto back = readReport(dir.file("out.rep"));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ((*back)->eventCount(), (*mem)->eventCount());
    for (EventKind k :
         {EventKind::NvtxRange, EventKind::CudaApi, EventKind::Kernel, EventKind::Memcpy})
        EXPECT_EQ(nameCounts(**back, k), nameCounts(**mem, k));
    EXPECT_EQ((*back)->tMin(), (*mem)->tMin());
    EXPECT_EQ((*back)->threads.size(), (*mem)->threads.size());
}

TEST(StreamedImport, ABrokenTraceLeavesNoFile) {
    TempDir dir;
    const std::string full = makeTrace(200);
    const std::string truncated = dir.write("cut.json", full.substr(0, full.size() * 2 / 3));
    std::string damaged = full;
    damaged[damaged.size() / 2] = '\x01';
    const std::string corrupt = dir.write("damaged.json", damaged);
    for (const std::string& input : {truncated, corrupt}) {
        for (const import::ChunkPolicy chunks :
             {import::ChunkPolicy{0, 1024}, import::ChunkPolicy{SIZE_MAX, 0}}) {
            auto r = import::importChromeTraceToReport(input, dir.file("out.rep"), {}, {}, chunks,
                                                       kTinySpool);
            ASSERT_FALSE(r.ok()) << input;
            EXPECT_NE(r.error().find("not valid JSON"), std::string::npos) << r.error();
            EXPECT_EQ(r.error().find('\n'), std::string::npos);
            EXPECT_EQ(dir.entries(), 2u) << "a partial report or temporary file was left";
        }
    }
}

TEST(StreamedImport, CancelStopsWithoutAFile) {
    TempDir dir;
    const std::string input = dir.write("trace.json", makeTrace(3000));
    ImportOptions o;
    o.progress = [](double f) { return f < 0.5; };
    auto r =
        import::importChromeTraceToReport(input, dir.file("out.rep"), o, {}, {0, 4096}, kTinySpool);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "cancelled");
    EXPECT_EQ(dir.entries(), 1u);
}

}  // namespace
}  // namespace sl::test
