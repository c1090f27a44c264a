// The per-name summaries folded from a .rep's chunks (DurationScan.h, what `sightline stats`
// does for kinds only those summaries read) must equal the summaries of the loaded report to
// the last bit, on any number of cores, with or without a time window; a damaged chunk is an
// error naming it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "model/analysis/DurationScan.h"
#include "model/analysis/StatsReports.h"
#include "model/core/ReportBuilder.h"
#include "model/rep/RepWriter.h"

namespace sl::analysis {
namespace {

// Three threads calling the CUDA API under two ABI names of one function (merged in
// cuda_api_sum) and OS functions, and three streams of kernels; durations from a fixed
// pseudo-random sequence, so that a different order of the values would change the floating-point sums.
std::shared_ptr<Report> makeReport() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.startMonotonicNs = 1000;
    b.ensureProcess(7).name = "app";
    const uint32_t api[] = {b.intern("cudaLaunchKernel_v7000"), b.intern("cudaMemcpyAsync_v3020"),
                            b.intern("cudaLaunchKernel")};
    const uint32_t os[] = {b.intern("read"), b.intern("write"), b.intern("poll")};
    const uint32_t kernels[] = {b.intern("kA"), b.intern("kB"), b.intern("kC"), b.intern("kD")};
    uint64_t x = 99;
    auto next = [&] {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<int64_t>(x >> 40);  // up to 16.7 M
    };
    for (int64_t tid = 8; tid < 11; ++tid) {
        b.ensureThread(7, tid);
        int64_t t = 2000;
        for (int i = 0; i < 40'000; ++i) {
            CudaApiCall c;
            c.pid = 7; c.tid = tid; c.start = t; c.end = t + 1 + next() % 5000;
            c.name = api[(i + tid) % 3];
            c.correlation = static_cast<uint32_t>(i + 1);
            b.add(c);
            t = c.end + 10;
            OsRuntimeCall o;
            o.pid = 7; o.tid = tid; o.start = t; o.end = t + next() % 3000; o.function = os[next() % 3];
            b.add(o);
            t = o.end + 10;
        }
    }
    for (uint32_t stream = 1; stream <= 3; ++stream) {
        int64_t t = 5000;
        for (int i = 0; i < 50'000; ++i) {
            KernelExec k;
            k.place = {7, 0, 1, stream};
            k.start = t; k.end = t + 1 + next(); k.name = kernels[next() % 4];
            k.correlation = static_cast<uint32_t>(i + 1);
            k.launch.shortName = k.name;
            b.add(k);
            t = k.end + 100;
        }
    }
    // NVTX ranges (nvtx_sum groups by style and "domain:name"): the default domain on three
    // threads; a domain "phase" in two processes under different ids (one group per name);
    // start/end and push/pop ranges of one name (two groups); and the default domain's
    // "x:y" against domain "x"'s "y" (one label: one group).
    b.ensureProcess(9).name = "other";
    r.nvtxDomains.push_back({7, 3, "phase"});
    r.nvtxDomains.push_back({9, 5, "phase"});
    r.nvtxDomains.push_back({9, 6, "x"});
    const uint32_t ranges[] = {b.intern("step"), b.intern("fwd"), b.intern("bwd")};
    const uint32_t xy = b.intern("x:y"), y = b.intern("y");
    auto range = [&](int64_t pid, int64_t tid, uint32_t domain, uint32_t name, RangeType type, int64_t& t) {
        NvtxRangeEvent e;
        e.pid = pid; e.tid = tid; e.domain = domain; e.message = name; e.rangeType = type;
        e.start = t; e.end = t + 1 + next() % 20000;
        b.add(e);
        t = e.end + 50;
    };
    for (int64_t tid = 8; tid < 11; ++tid) {
        int64_t t = 3000;
        for (int i = 0; i < 20'000; ++i) range(7, tid, 0, ranges[next() % 3], RangeType::PushPop, t);
        t = 3000;
        for (int i = 0; i < 5'000; ++i) range(7, tid, 3, ranges[1], i % 4 ? RangeType::PushPop : RangeType::StartEnd, t);
    }
    int64_t t = 3000;
    for (int i = 0; i < 8'000; ++i) range(7, 8, 0, xy, RangeType::PushPop, t);
    for (int64_t tid : {20, 21}) {
        t = 4000;
        for (int i = 0; i < 10'000; ++i) range(9, tid, 5, ranges[1 + next() % 2], RangeType::StartEnd, t);
    }
    t = 4000;
    for (int i = 0; i < 8'000; ++i) range(9, 21, 6, y, RangeType::PushPop, t);
    return b.finish();
}

void expectSameTable(const Table& a, const Table& b, const std::string& what) {
    EXPECT_EQ(a.skipped, b.skipped) << what;
    ASSERT_EQ(a.columns.size(), b.columns.size()) << what;
    ASSERT_EQ(a.rowCount(), b.rowCount()) << what;
    for (size_t c = 0; c < a.columns.size(); ++c) {
        EXPECT_EQ(a.columns[c].name, b.columns[c].name) << what;
        EXPECT_EQ(a.columns[c].ints, b.columns[c].ints) << what << " column " << a.columns[c].name;
        EXPECT_EQ(a.columns[c].reals, b.columns[c].reals) << what << " column " << a.columns[c].name;  // bit for bit
        EXPECT_EQ(a.columns[c].texts, b.columns[c].texts) << what << " column " << a.columns[c].name;
    }
}

class DurationScan : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_path = ::testing::TempDir() + "/duration_scan_" + std::to_string(::getpid()) + ".rep";
        WriteOptions wo;
        wo.overwrite = true;
        wo.chunkEvents = 4096;  // many chunks per track
        ASSERT_TRUE(writeReport(*makeReport(), s_path, wo).ok());
    }
    static void TearDownTestSuite() { std::filesystem::remove(s_path); }
    static std::string s_path;
};
std::string DurationScan::s_path;

TEST_F(DurationScan, SameTablesAsTheLoadedReport) {
    auto full = readReport(s_path);
    ASSERT_TRUE(full.ok()) << full.error();
    const Report& whole = **full;
    auto file = RepFile::open(s_path);
    ASSERT_TRUE(file.ok()) << file.error();
    for (const std::string spec : {"cuda_gpu_kern_sum", "cuda_api_sum", "osrt_sum", "nvtx_sum"}) {
        const KindSet scanned = scannedKindsFor({spec}, false);
        ASSERT_FALSE(scanned.empty()) << spec;
        auto part = readReport(s_path, statsReadOptions({spec}, false, scanned));
        ASSERT_TRUE(part.ok()) << part.error();
        for (const auto& t : (*part)->tracks) EXPECT_TRUE(t.empty() || !scanned.has(t.key.kind)) << spec;
        EXPECT_EQ((*part)->timeOrigin(), whole.timeOrigin()) << spec;
        // The window: the second quarter of the span of the kind's events.
        int64_t t0 = INT64_MAX, t1 = INT64_MIN;
        for (const auto& t : whole.tracks)
            if (scanned.has(t.key.kind) && !t.empty()) t0 = std::min(t0, t.tMin), t1 = std::max(t1, t.tMax);
        for (bool windowed : {false, true}) {
            StatsOptions o;
            if (windowed) o.start = t0 + (t1 - t0) / 4, o.end = t0 + (t1 - t0) / 2;
            auto expected = runReport(whole, spec, o);
            ASSERT_TRUE(expected.ok()) << expected.error();
            ASSERT_GT(expected->rowCount(), 1u) << spec << ": " << expected->skipped;
            for (unsigned threads : {1u, 2u, 3u, 7u}) {
                auto folded = scanKinds(**file, scanned, o, threads);
                ASSERT_TRUE(folded.ok()) << folded.error();
                StatsOptions so = o;
                so.scanned = *folded;
                auto got = runReport(**part, spec, so);
                ASSERT_TRUE(got.ok()) << got.error();
                expectSameTable(*expected, *got, spec + (windowed ? " windowed" : "") + " threads " + std::to_string(threads));
            }
        }
    }
}

TEST_F(DurationScan, NvtxGroupsByStyleAndDomainNameAcrossProcesses) {
    auto file = RepFile::open(s_path);
    ASSERT_TRUE(file.ok()) << file.error();
    auto folded = scanKinds(**file, KindSet{EventKind::NvtxRange}, {}, 2);
    ASSERT_TRUE(folded.ok()) << folded.error();
    ASSERT_NE((*folded)->nvtx, nullptr);
    auto part = readReport(s_path, statsReadOptions({"nvtx_sum"}, false, KindSet{EventKind::NvtxRange}));
    ASSERT_TRUE(part.ok()) << part.error();
    StatsOptions o;
    o.scanned = *folded;
    auto t = runReport(**part, "nvtx_sum", o);
    ASSERT_TRUE(t.ok()) << t.error();
    std::map<std::string, int64_t> instances;  // "Style Range" -> Instances
    const auto& style = t->columns.at(static_cast<size_t>(t->findColumn("Style"))).texts;
    const auto& name = t->columns.at(static_cast<size_t>(t->findColumn("Range"))).texts;
    const auto& count = t->columns.at(static_cast<size_t>(t->findColumn("Instances"))).ints;
    for (size_t i = 0; i < t->rowCount(); ++i) instances[style[i] + " " + name[i]] = count[i];
    EXPECT_EQ(instances["PushPop phase:fwd"], 3 * 3'750);
    EXPECT_EQ(instances["StartEnd phase:fwd"] + instances["StartEnd phase:bwd"], 3 * 1'250 + 20'000);
    EXPECT_EQ(instances["PushPop x:y"], 16'000);  // two domains, one label
    EXPECT_EQ(instances.count("PushPop y"), 0u);
}

TEST_F(DurationScan, OnlyPlainSummariesAreScanned) {
    EXPECT_TRUE(scannedKindsFor({"cuda_gpu_kern_sum"}, false).has(EventKind::Kernel));
    // The launch's base name groups otherwise; another report reads the whole kernels.
    EXPECT_TRUE(scannedKindsFor({"cuda_gpu_kern_sum:base"}, false).empty());
    EXPECT_FALSE(scannedKindsFor({"cuda_gpu_kern_sum", "cuda_gpu_trace"}, false).has(EventKind::Kernel));
    EXPECT_FALSE(scannedKindsFor({"cuda_api_sum", "cuda_kern_exec_sum"}, false).has(EventKind::CudaApi));
    EXPECT_TRUE(scannedKindsFor({"nvtx_sum", "cuda_api_sum"}, true).has(EventKind::CudaApi));
    EXPECT_TRUE(scannedKindsFor({"no_such_report"}, false).empty());
    EXPECT_TRUE(scannedKindsFor({"nvtx_sum"}, false).has(EventKind::NvtxRange));
    // --filter-nvtx and the push/pop trace read the ranges themselves.
    EXPECT_FALSE(scannedKindsFor({"nvtx_sum"}, true).has(EventKind::NvtxRange));
    EXPECT_FALSE(scannedKindsFor({"nvtx_sum", "nvtx_pushpop_trace"}, false).has(EventKind::NvtxRange));
}

TEST_F(DurationScan, DamagedChunkIsAnErrorNamingIt) {
    const std::string bad = s_path + ".bad.rep";
    std::filesystem::copy_file(s_path, bad, std::filesystem::copy_options::overwrite_existing);
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(bad).ok());
        ASSERT_TRUE(db.exec("UPDATE chunks SET checksum = checksum + 1 WHERE rowid = (SELECT max(c.rowid) FROM chunks "
                            "AS c JOIN tracks AS t ON t.id = c.track_id WHERE t.kind = " +
                            std::to_string(static_cast<int>(EventKind::Kernel)) + ")")
                        .ok());
    }
    auto file = RepFile::open(bad);
    ASSERT_TRUE(file.ok()) << file.error();
    for (unsigned threads : {1u, 2u}) {
        auto folded = scanKinds(**file, KindSet{EventKind::Kernel}, {}, threads);
        ASSERT_FALSE(folded.ok());
        EXPECT_NE(folded.error().find("checksum mismatch"), std::string::npos) << folded.error();
        EXPECT_NE(folded.error().find("chunk"), std::string::npos) << folded.error();
    }
    // The kinds not damaged still fold.
    EXPECT_TRUE(scanKinds(**file, KindSet{EventKind::CudaApi}, {}, 2).ok());
    std::filesystem::remove(bad);
}

}  // namespace
}  // namespace sl::analysis
