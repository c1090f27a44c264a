// The rules of `sightline analyze` (model/analysis/rules): each pattern crafted with the
// answer worked out by hand, a clean report on which no rule warns, and nsys's rules on the
// real nsys exports against SQL written here over the original files.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "model/analysis/TableFormatter.h"
#include "model/analysis/rules/KernelCategory.h"
#include "model/analysis/rules/Rule.h"
#include "model/core/ReportBuilder.h"
#include "model/rep/Sqlite.h"
#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"
#include "tests/analysis/GoldenFixtures.h"
#endif

namespace sl::analysis {
namespace {

// A report of one process (pid 10, thread 11) on GPU 0, built call by call; each launch call
// and its GPU operation share a new correlation id.
class Crafted {
public:
    Crafted() {
        b.ensureProcess(10).name = "app";
        b.ensureThread(10, 11).name = "main";
    }
    uint32_t api(const char* name, int64_t s, int64_t e) {
        CudaApiCall c;
        c.pid = 10, c.tid = 11, c.start = s, c.end = e, c.name = b.intern(name), c.correlation = ++corr;
        b.add(c);
        return corr;
    }
    void kernel(const char* name, int64_t s, int64_t e, uint32_t stream = 7, uint32_t correlation = 0) {
        KernelExec k;
        k.place = {10, 0, 1, stream};
        k.start = s, k.end = e, k.name = b.intern(name), k.correlation = correlation;
        KernelLaunchInfo li;
        li.shortName = li.mangledName = k.name;
        k.launch = li;
        b.add(k);
    }
    // A kernel with its launch call at [apiStart, apiStart + apiLength].
    void launched(const char* name, int64_t apiStart, int64_t s, int64_t e, uint32_t stream = 7, int64_t apiLength = 10) {
        kernel(name, s, e, stream, api("cudaLaunchKernel", apiStart, apiStart + apiLength));
    }
    void copy(const char* apiName, int64_t s, int64_t e, CopyKind kind, MemoryKind src, MemoryKind dst,
              uint64_t bytes, uint32_t stream = 7) {
        MemcpyOp m;
        m.place = {10, 0, 1, stream};
        m.start = s, m.end = e, m.copyKind = kind, m.srcKind = src, m.dstKind = dst, m.bytes = bytes;
        m.correlation = api(apiName, s - 20, s - 10);
        b.add(m);
    }
    void memset(const char* apiName, int64_t s, int64_t e, MemoryKind kind) {
        MemsetOp m;
        m.place = {10, 0, 1, 7};
        m.start = s, m.end = e, m.memKind = kind, m.bytes = 4096;
        m.correlation = api(apiName, s - 20, s - 10);
        b.add(m);
    }
    void range(const char* name, int64_t s, int64_t e) {
        NvtxRangeEvent r;
        r.pid = 10, r.tid = 11, r.start = s, r.end = e, r.message = b.intern(name);
        b.add(r);
    }
    std::shared_ptr<Report> finish() { return b.finish(); }

    ReportBuilder b;
    uint32_t corr = 0;
};

Finding run(const Report& r, const std::string& spec) {
    auto f = runRule(r, spec, StatsOptions{});
    EXPECT_TRUE(f.ok()) << f.error();
    return f.ok() ? *f : Finding{};
}

TEST(Rules, CudaCallRulesSelectNsysCases) {
    Crafted c;
    using enum MemoryKind;
    c.copy("cudaMemcpyAsync", 1000, 1100, CopyKind::HtoD, Pageable, Device, 1 << 20);       // async, pageable
    c.copy("cudaMemcpyAsync_v3020", 1200, 1300, CopyKind::HtoD, Pinned, Device, 1 << 20);  // async, pinned
    c.copy("cudaMemcpy2DAsync", 1400, 1450, CopyKind::DtoH, Device, Pageable, 1 << 20);    // async, pageable
    c.copy("cudaMemcpy", 1500, 1700, CopyKind::DtoH, Device, Pageable, 1 << 20);           // sync
    c.copy("cudaMemcpy", 1800, 1810, CopyKind::HtoD, Pageable, Device, 65536);             // sync, small HtoD: not
    c.copy("cudaMemcpy", 1900, 1960, CopyKind::HtoD, Pageable, Device, 65537);             // sync, just above
    c.copy("cudaMemcpy", 2000, 2050, CopyKind::DtoD, Device, Device, 1 << 20);             // same device: not
    c.memset("cudaMemset", 2100, 2120, Pinned);       // sync, pinned
    c.memset("cudaMemset2D", 2200, 2230, Managed);    // sync, managed
    c.memset("cudaMemset", 2300, 2310, Device);       // device memory: not
    c.memset("cudaMemsetAsync", 2400, 2410, Pinned);  // async: not
    c.api("cudaDeviceSynchronize", 3000, 3500);
    c.api("cudaStreamSynchronize_v3020", 4000, 4100);
    c.api("cudaEventSynchronize", 5000, 6000);  // nsys counts only the two above
    auto r = c.finish();

    Finding async = run(*r, "cuda_memcpy_async");
    EXPECT_EQ(async.count, 2);
    EXPECT_EQ(async.totalNs, 150);
    EXPECT_EQ(async.severity, Severity::Warning);
    ASSERT_EQ(async.table.rowCount(), 2u);
    EXPECT_EQ(async.table.columns[0].ints[0], 100);  // the longest first
    EXPECT_EQ(async.table.columns.back().texts[1], "cudaMemcpy2DAsync");
    ASSERT_FALSE(async.examples.empty());
    EXPECT_EQ(async.examples[0].end - async.examples[0].start, 100);

    Finding sync = run(*r, "cuda_memcpy_sync");
    EXPECT_EQ(sync.count, 2);
    EXPECT_EQ(sync.totalNs, 260);

    Finding memset = run(*r, "cuda_memset_sync");
    EXPECT_EQ(memset.count, 2);
    EXPECT_EQ(memset.totalNs, 50);
    EXPECT_EQ(memset.table.columns[2].texts[0], "Managed");

    Finding apis = run(*r, "cuda_api_sync");
    EXPECT_EQ(apis.count, 2);
    EXPECT_EQ(apis.totalNs, 600);
    EXPECT_EQ(apis.table.columns[4].texts[0], "cudaDeviceSynchronize");

    // rows= limits the table, not the count.
    Finding limited = run(*r, "cuda_api_sync:rows=1");
    EXPECT_EQ(limited.count, 2);
    EXPECT_EQ(limited.table.rowCount(), 1u);
}

TEST(Rules, GpuGapsAreIdleStretchesBetweenTheFirstAndLastOperationLongerThanTheThreshold) {
    Crafted c;
    constexpr int64_t ms = 1'000'000;
    c.kernel("a", 10 * ms, 20 * ms, 7);
    c.kernel("b", 15 * ms, 30 * ms, 8);         // overlaps a on another stream: no gap between
    c.kernel("c", 630 * ms, 640 * ms, 7);       // 600 ms after b: a gap
    c.kernel("d", 1140 * ms, 1150 * ms, 7);     // exactly 500 ms after c: not more than 500
    c.kernel("e", 1150 * ms + 1, 1160 * ms, 7);  // 1 ns: a gap only at gap=0
    auto r = c.finish();
    Finding f = run(*r, "gpu_gaps");
    EXPECT_EQ(f.count, 1);
    EXPECT_EQ(f.totalNs, 600 * ms);
    ASSERT_EQ(f.examples.size(), 1u);
    EXPECT_EQ(f.examples[0].start, 30 * ms);
    EXPECT_EQ(f.examples[0].end, 630 * ms);
    EXPECT_EQ(run(*r, "gpu_gaps:gap=499").count, 2);
    Finding all = run(*r, "gpu_gaps:gap=0");
    EXPECT_EQ(all.count, 3);
    EXPECT_EQ(all.table.columns[1].ints[2], 1);  // by duration, the 1 ns gap last
}

TEST(Rules, GpuTimeUtilReportsRunsOfLowChunks) {
    Crafted c;
    // Span [100, 3100): three chunks of 1000 ns, busy 100, 900 and 100 ns.
    c.kernel("a", 100, 200);
    c.kernel("b", 1100, 2000);
    c.kernel("c", 3000, 3100);
    auto r = c.finish();
    Finding f = run(*r, "gpu_time_util:chunks=3");
    ASSERT_EQ(f.count, 2);
    EXPECT_EQ(f.totalNs, 1800);
    EXPECT_DOUBLE_EQ(f.table.columns[1].reals[0], 10.0);
    EXPECT_EQ(f.table.columns[2].ints[0], 1000);
    // One chunk: 1100 of 3000 ns, 36.7%.
    Finding one = run(*r, "gpu_time_util:chunks=1");
    ASSERT_EQ(one.count, 1);
    EXPECT_DOUBLE_EQ(one.table.columns[1].reals[0], 36.7);
    EXPECT_EQ(run(*r, "gpu_time_util:chunks=1:threshold=30").count, 0);
    // Two low chunks in a row merge: [100, 2100) at 10% and 10%.
    Crafted d;
    d.kernel("a", 100, 200);
    d.kernel("b", 1100, 1200);
    d.kernel("c", 2100, 3100);
    auto r2 = d.finish();
    Finding merged = run(*r2, "gpu_time_util:chunks=3");
    ASSERT_EQ(merged.count, 1);
    EXPECT_EQ(merged.table.columns[2].ints[0], 2000);
    EXPECT_DOUBLE_EQ(merged.table.columns[1].reals[0], 10.0);
}

std::shared_ptr<Report> idleReport() {
    Crafted c;
    c.launched("k1", 900, 1000, 2000);
    c.launched("k2", 960, 2010, 3000);  // launched before k1 ended, 10 ns after: kernel wait
    c.launched("k3", 4000, 5000, 6000);  // launched after k2 ended: host wait 2000
    c.launched("k4", 5500, 6500, 7000);  // launched in time, 500 ns later: other
    c.range("step", 0, 8000);
    c.range("load", 2900, 4500);
    return c.finish();
}

TEST(Rules, GpuIdleBreakdownSplitsHostKernelAndOtherWaitAsHta) {
    auto r = idleReport();
    Finding f = run(*r, "gpu_idle_breakdown");
    ASSERT_EQ(f.table.rowCount(), 1u);
    const auto& col = f.table.columns;
    EXPECT_EQ(col[3].ints[0], 2510);  // idle
    EXPECT_EQ(col[4].ints[0], 2000);  // host wait
    EXPECT_EQ(col[5].ints[0], 10);    // kernel wait
    EXPECT_EQ(col[6].ints[0], 500);   // other
    EXPECT_EQ(f.totalNs, 2000);
    ASSERT_FALSE(f.examples.empty());
    EXPECT_EQ(f.examples[0].start, 3000);
    EXPECT_EQ(f.examples[0].end, 5000);
    // With a larger launch-overhead window the 10 ns gap stays kernel wait, the 500 ns one too.
    EXPECT_EQ(run(*r, "gpu_idle_breakdown:kernel_wait=1000").table.columns[5].ints[0], 510);
}

TEST(Rules, NvtxGpuIdleNamesTheRangesOpenWhileTheGpuWasIdle) {
    auto r = idleReport();
    Finding f = run(*r, "nvtx_gpu_idle:gap=0");
    ASSERT_EQ(f.table.rowCount(), 2u);
    EXPECT_EQ(f.table.columns[0].texts[0], "step");
    EXPECT_EQ(f.table.columns[1].ints[0], 2510);
    EXPECT_EQ(f.table.columns[0].texts[1], "load");
    EXPECT_EQ(f.table.columns[1].ints[1], 1500);
    // Gaps of at least 1 us: only the 2000 ns one; "load" holds 1500 ns of it.
    Finding big = run(*r, "nvtx_gpu_idle:gap=1");
    EXPECT_EQ(big.table.columns[1].ints[0], 2000);
}

TEST(Rules, CopyComputeOverlapMeasuresCopiesWithNothingComputing) {
    Crafted c;
    c.kernel("k", 1000, 2000, 7);
    c.copy("cudaMemcpyAsync", 1500, 2500, CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, 1 << 20, 8);
    c.copy("cudaMemcpyAsync", 3000, 3200, CopyKind::DtoH, MemoryKind::Device, MemoryKind::Pinned, 1 << 20, 8);
    auto r = c.finish();
    Finding f = run(*r, "copy_compute_overlap");
    EXPECT_EQ(f.totalNs, 700);
    EXPECT_EQ(f.count, 2);
    ASSERT_EQ(f.table.rowCount(), 1u);
    EXPECT_EQ(f.table.columns[2].ints[0], 1200);
    EXPECT_EQ(f.table.columns[3].ints[0], 500);
    EXPECT_EQ(f.severity, Severity::Warning);  // 700 of a 2200 ns span
}

TEST(Rules, CommunicationShareAndOverlapOfNcclKernels) {
    Crafted c;
    c.kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm *, unsigned long, ncclWork *)", 1000, 2000, 8);
    c.kernel("volta_sgemm_128x64_nn", 1500, 3000, 7);
    auto r = c.finish();
    Finding f = run(*r, "communication");
    ASSERT_EQ(f.table.rowCount(), 1u);
    EXPECT_EQ(f.table.columns[2].ints[0], 1000);               // communication
    EXPECT_DOUBLE_EQ(f.table.columns[3].reals[0], 50.0);       // of the 2000 ns of kernel time
    EXPECT_EQ(f.table.columns[5].ints[0], 500);                // overlapped
    EXPECT_DOUBLE_EQ(f.table.columns[6].reals[0], 50.0);
    EXPECT_EQ(f.severity, Severity::Warning);                  // over 30% of kernel time
    EXPECT_EQ(run(*r, "communication:share=60:overlap=50").severity, Severity::Info);
}

TEST(Rules, ShortKernelsCountAndTheirLaunchCalls) {
    Crafted c;
    for (int i = 0; i < 6; ++i) c.launched("tiny", 10'000 * i, 10'000 * i + 1000, 10'000 * i + 6000, 7, 4000);
    for (int i = 0; i < 2; ++i) c.launched("big", 100'000 + 100'000 * i, 110'000 + 100'000 * i, 160'000 + 100'000 * i, 7, 4000);
    auto r = c.finish();
    Finding f = run(*r, "short_kernels");
    EXPECT_EQ(f.count, 6);
    EXPECT_EQ(f.totalNs, 24'000);
    EXPECT_EQ(f.severity, Severity::Warning);  // 6 of 8
    ASSERT_EQ(f.table.rowCount(), 1u);
    EXPECT_EQ(f.table.columns[0].texts[0], "tiny");
    EXPECT_DOUBLE_EQ(f.table.columns[4].reals[0], 4000.0);
    EXPECT_EQ(run(*r, "short_kernels:threshold=4").count, 0);
}

TEST(Rules, LaunchLatencyFromTheCallToTheKernel) {
    Crafted c;
    c.launched("a", 100, 150, 160);
    c.launched("b", 200, 300, 310);
    c.launched("c", 400, 700, 710);
    auto r = c.finish();
    Finding f = run(*r, "launch_latency");
    EXPECT_EQ(f.count, 3);
    ASSERT_EQ(f.table.rowCount(), 1u);
    EXPECT_EQ(f.table.columns[3].ints[0], 100);  // median of 50, 100, 300
    EXPECT_EQ(f.table.columns[5].ints[0], 300);
}

TEST(Rules, KernelCategoriesOfRealKernelNames) {
    // Names from the fixtures (a ResNet-50 Kineto trace on a V100, nsys exports) and well-known
    // libraries.
    const std::pair<const char*, KernelCategory> cases[] = {
        {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*)", KernelCategory::Convolution},
        {"void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int)", KernelCategory::Convolution},
        {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, false, true>(int)", KernelCategory::Convolution},
        {"volta_scudnn_128x128_stridedB_splitK_small_nn_v1", KernelCategory::Convolution},
        {"void cudnn::winograd_nonfused::winogradForwardOutput4x4<float, float>(cudnn::winograd_nonfused::WinogradOutputParams<float, float>)", KernelCategory::Convolution},
        {"cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", KernelCategory::Convolution},
        {"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float, float)", KernelCategory::Normalization},
        {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct)", KernelCategory::Normalization},
        {"volta_sgemm_64x64_nt", KernelCategory::Gemm},
        {"void splitKreduce_kernel<float, float, float, float>(cublasSplitKParams<float>)", KernelCategory::Gemm},
        {"sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32", KernelCategory::Gemm},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<float>>(int)", KernelCategory::Elementwise},
        {"void at::native::unrolled_elementwise_kernel<at::native::MulScalarFunctor<float, float>>(int)", KernelCategory::Elementwise},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float>>>(int)", KernelCategory::Reduction},
        {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>(float*, float const*)", KernelCategory::Reduction},
        {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*)", KernelCategory::Reduction},
        {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm *, unsigned long, ncclWork *)", KernelCategory::Communication},
        {"ncclDevKernel_AllGather_RING_LL(ncclDevComm *, unsigned long, ncclWork *)", KernelCategory::Communication},
        {"flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4>>", KernelCategory::Attention},
        {"fmha_cutlassF_f16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel)", KernelCategory::Attention},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 4, 64, 64>(int)", KernelCategory::Memory},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float)", KernelCategory::Normalization},
        {"saxpy(double *, double *, double *, double, int)", KernelCategory::Other},
        {"void cunn_ClassNLLCriterion_updateOutput_kernel<float, float>(float*, float*)", KernelCategory::Reduction},
    };
    for (const auto& [name, want] : cases)
        EXPECT_EQ(kernelCategoryName(kernelCategory(name)), kernelCategoryName(want)) << name;
}

TEST(Rules, ACleanReportWarnsNothing) {
    Crafted c;
    // Kernels queued well ahead, back to back; copies from pinned memory on a side stream,
    // under the kernels; no synchronization calls.
    for (int i = 0; i < 20; ++i) c.launched("volta_sgemm_128x64_nn", 100 * i, 100'000 + 50'000 * i, 150'000 + 50'000 * i);
    c.copy("cudaMemcpyAsync", 200'000, 210'000, CopyKind::HtoD, MemoryKind::Pinned, MemoryKind::Device, 1 << 20, 8);
    auto r = c.finish();
    for (const auto& rule : allRules()) {
        Finding f = run(*r, std::string(rule.name));
        EXPECT_NE(f.severity, Severity::Warning) << rule.name << ": " << f.summary;
        if (rule.fromNsys) EXPECT_EQ(f.count, 0) << rule.name << ": " << f.summary;
    }
}

TEST(Rules, OptionErrorsNameWhatIsWrong) {
    Crafted c;
    c.kernel("k", 100, 200);
    auto r = c.finish();
    auto err = [&](const std::string& spec) {
        auto f = runRule(*r, spec, StatsOptions{});
        return f.ok() ? std::string() : f.error();
    };
    EXPECT_NE(err("gpu_gapz").find("unknown rule 'gpu_gapz'"), std::string::npos);
    EXPECT_NE(err("gpu_gaps:gapp=3").find("unknown option 'gapp=3' (options: rows, gap)"), std::string::npos);
    EXPECT_NE(err("gpu_gaps:gap=fast").find("is not a whole number"), std::string::npos);
    EXPECT_NE(err("gpu_time_util:chunks=0").find("from 1 to 1000"), std::string::npos);
    EXPECT_NE(err("gpu_gaps:gap=-1").find("cannot be negative"), std::string::npos);
    EXPECT_TRUE(err("gpu_gaps:gap=1:rows=-1").empty());
}

#ifdef SIGHTLINE_HAVE_IMPORT
// nsys's rules on the real nsys exports, counted again with SQL over the original files.
std::string scalar(const std::string& db, const std::string& sql) {
    sqlite::Db d;
    EXPECT_TRUE(d.openReadOnly(db).ok()) << db;
    sqlite::Stmt s(d, sql);
    EXPECT_TRUE(s.valid()) << s.prepareError();
    return s.valid() && s.step() && !s.isNull(0) ? std::string(s.text(0)) : "0";
}

// Each memcpy/memset with the name of its runtime call: correlation ids are unique within a
// process (pid in bits 24-47 of the global ids), and rows of backtrace duplicates (eventClass 67)
// repeat a call.
const char* kOpsWithApi =
    "JOIN (SELECT DISTINCT correlationId, (globalTid >> 24) & 16777215 AS pid, nameId "
    "FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass != 67) r ON r.correlationId = m.correlationId "
    "AND r.pid = (m.globalPid >> 24) & 16777215 JOIN StringIds s ON s.id = r.nameId ";

bool hasTable(const std::string& db, const char* table) {
    sqlite::Db d;
    return d.openReadOnly(db).ok() && d.hasTable(table);
}

// `sightline analyze` loads only the kinds and columns the rules read (rulesReadOptions): every rule finds the same on real traces as from the whole report.
TEST(RulesOnNsysExports, EveryRuleFindsTheSameFromThePartialRead) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sl-rules-partial-XXXXXX").string();
    const std::string dir = ::mkdtemp(tmpl.data());
    auto dump = [](const Report& r) {
        std::vector<std::string> all;
        for (const RuleInfo& info : allRules()) all.emplace_back(info.name);
        std::string out;
        for (auto& f : runRules(r, all, {})) {
            if (!f) return "error: " + f.error();
            out += f->rule + " " + std::to_string(f->count) + " " + std::to_string(f->totalNs) + " " + f->summary + "\n";
            for (const FindingExample& e : f->examples)
                out += "  " + std::to_string(e.track) + ":" + std::to_string(e.index) + " " + std::to_string(e.start) + "-" +
                       std::to_string(e.end) + " " + e.name + "\n";
            std::ostringstream t;
            writeTable(t, f->table, {TableFormat::Csv, "ns"});
            out += t.str();
        }
        return out;
    };
    for (const char* file : {"pipit_saxpy_mpi_cuda.sqlite", "extrap_concurrent_s1.sqlite", "hta_compare_base.json.gz"}) {
        SCOPED_TRACE(file);
        auto imported = importFile(test::externalFixturePath(file));
        ASSERT_TRUE(imported.ok()) << imported.error();
        const std::string rep = dir + "/r.rep";
        ASSERT_TRUE(writeReport(**imported, rep).ok());
        auto whole = readReport(rep);
        ASSERT_TRUE(whole.ok()) << whole.error();
        auto part = readReport(rep, rulesReadOptions());
        ASSERT_TRUE(part.ok()) << part.error();
        const std::string full = dump(**whole);
        EXPECT_NE(full.find("gpu_gaps"), std::string::npos);
        EXPECT_EQ(dump(**part), full);
    }
    std::filesystem::remove_all(dir);
}

TEST(RulesOnNsysExports, CudaRulesEqualSqlOverTheOriginalExport) {
    for (const char* file : {"pipit_saxpy_mpi_cuda.sqlite", "extrap_concurrent_s1.sqlite", "extrap_con_kernel.sqlite"}) {
        const std::string path = test::externalFixturePath(file);
        auto rep = importFile(path);
        ASSERT_TRUE(rep.ok()) << rep.error();
        const Report& r = **rep;
        std::string want = "0", wantTotal = "0";
        if (hasTable(path, "CUPTI_ACTIVITY_KIND_MEMCPY")) {
            const std::string pageable =
                std::string("SELECT count(*), sum(m.end - m.start) FROM CUPTI_ACTIVITY_KIND_MEMCPY m ") + kOpsWithApi +
                "WHERE (m.srcKind = 0 OR m.dstKind = 0) AND s.value LIKE 'cudaMemcpy%Async%'";
            EXPECT_EQ(std::to_string(run(r, "cuda_memcpy_async").count), scalar(path, pageable)) << file;
            const std::string sync =
                std::string("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY m ") + kOpsWithApi +
                "WHERE s.value LIKE 'cudaMemcpy%' AND s.value NOT LIKE '%Async%' AND m.copyKind != 8 "
                "AND NOT (m.copyKind = 1 AND m.bytes <= 65536)";
            EXPECT_EQ(std::to_string(run(r, "cuda_memcpy_sync").count), scalar(path, sync)) << file;
        }
        if (hasTable(path, "CUPTI_ACTIVITY_KIND_MEMSET")) {
            const std::string memset =
                std::string("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET m ") + kOpsWithApi +
                "WHERE m.memKind IN (1, 4) AND s.value LIKE 'cudaMemset%' AND s.value NOT LIKE '%async%'";
            EXPECT_EQ(std::to_string(run(r, "cuda_memset_sync").count), scalar(path, memset)) << file;
        }
        const std::string syncApis =
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
            "WHERE r.eventClass != 67 AND (s.value LIKE 'cudaDeviceSynchronize%' OR "
            "s.value LIKE 'cudaStreamSynchronize%')";
        EXPECT_EQ(std::to_string(run(r, "cuda_api_sync").count), scalar(path, syncApis)) << file;
        // Every gap between the GPU operations of each process and device: the k-th end (in end
        // order) before the (k+1)-th start (in start order).
        std::string ops;
        for (const char* t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
            if (hasTable(path, t))
                ops += std::string(ops.empty() ? "" : " UNION ALL ") +
                       "SELECT start, end, (globalPid >> 24) & 16777215 AS pid, deviceId FROM " + t + " WHERE start > 0";
        const std::string gaps =
            "WITH ops AS (" + ops + "), "
            "s AS (SELECT ROW_NUMBER() OVER (PARTITION BY pid, deviceId ORDER BY start) AS n, start, pid, deviceId FROM ops), "
            "e AS (SELECT ROW_NUMBER() OVER (PARTITION BY pid, deviceId ORDER BY end) AS n, end, pid, deviceId FROM ops) "
            "SELECT count(*), sum(s.start - e.end) FROM s JOIN e ON s.pid = e.pid AND s.deviceId = e.deviceId "
            "AND s.n = e.n + 1 WHERE e.end < s.start";
        Finding g = run(r, "gpu_gaps:gap=0:rows=-1");
        EXPECT_EQ(std::to_string(g.count), scalar(path, gaps)) << file;
        EXPECT_EQ(static_cast<int64_t>(g.table.rowCount()), g.count) << file;
        sqlite::Db d;
        ASSERT_TRUE(d.openReadOnly(path).ok());
        sqlite::Stmt st(d, gaps);
        ASSERT_TRUE(st.valid() && st.step());
        EXPECT_EQ(g.totalNs, st.isNull(1) ? 0 : st.i64(1)) << file;
    }
}
#endif

}  // namespace
}  // namespace sl::analysis

namespace sl::analysis {
namespace {

std::string runShell(const std::string& command, int* code) {
    FILE* f = popen((command + " 2>&1").c_str(), "r");
    std::string out;
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    const int st = f ? pclose(f) : -1;
    *code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

std::string runCli(const std::string& args, int* code) {
    return runShell(std::string(SIGHTLINE_CLI) + " " + args, code);
}

#ifdef SIGHTLINE_HAVE_IMPORT
TEST(AnalyzeCli, JsonDocumentTextAndFilesOfAnNsysExport) {
    const std::string input = test::externalFixturePath("pipit_saxpy_mpi_cuda.sqlite");
    int code = -1;
    const std::string json = runCli("analyze -f json '" + input + "'", &code);
    ASSERT_EQ(code, 0) << json;
    // One JSON document that Python reads, with every rule and the fields each finding has.
    const std::string dir = testing::TempDir();
    {
        FILE* f = std::fopen((dir + "/analyze.json").c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fwrite(json.data(), 1, json.size(), f);
        std::fclose(f);
    }
    const std::string check = runShell(
        "python3 -c \"import json,sys; d=json.load(open('" + dir + "/analyze.json')); "
        "f={x['rule']: x for x in d['findings']}; "
        "assert set(['rule','title','severity','count','total_ns','summary','advice','examples','rows']) <= set(f['gpu_time_util']); "
        "print(len(d['findings']), f['cuda_memcpy_sync']['count'], f['cuda_memcpy_sync']['severity'], "
        "len(f['cuda_memcpy_sync']['rows']), f['gpu_time_util']['examples'][0]['track'])\"",
        &code);
    EXPECT_NE(check.find("13 15 warning 15 GPU 0 (process 1230493)"), std::string::npos) << check;
    // Text: the finding's words, then its table.
    const std::string text = runCli("analyze -r cuda_memcpy_sync '" + input + "'", &code);
    EXPECT_EQ(code, 0);
    EXPECT_NE(text.find("** CUDA Synchronous Memcpy (cuda_memcpy_sync): warning"), std::string::npos) << text;
    EXPECT_NE(text.find("Advice: "), std::string::npos);
    EXPECT_NE(text.find("API Name"), std::string::npos);
    // Files, one per rule, named after the base given.
    const std::string base = dir + "/analyze_out";
    runCli("analyze -r gpu_gaps:gap=0,cuda_api_sync -f csv -o '" + base + "' --force-overwrite true '" + input + "'", &code);
    EXPECT_EQ(code, 0);
    EXPECT_TRUE(std::filesystem::exists(base + "_gpu_gaps.csv"));
    EXPECT_TRUE(std::filesystem::exists(base + "_cuda_api_sync.csv"));
}

// The kernel rules on real PyTorch traces, against counts a plain Python reading of the same
// JSON works out (tests/analysis/kineto_kernel_counts.py): kernels shorter than 10 us, and
// kernels with a launch call that began no later than the kernel.
TEST(RulesOnKinetoTraces, ShortKernelsAndLaunchLatencyEqualAPlainCountOfTheTrace) {
    const std::string script = std::string(SIGHTLINE_TEST_DATA) + "/../analysis/kineto_kernel_counts.py";
    for (const std::string& trace : {std::string(SIGHTLINE_TEST_DATA) + "/import/kineto_resnet50_legacy_2021.json.gz",
                                     test::externalFixturePath("hta_compare_base.json.gz")}) {
        SCOPED_TRACE(trace);
        int code = -1;
        const std::string counts = runShell("python3 '" + script + "' '" + trace + "' 10", &code);
        ASSERT_EQ(code, 0) << counts;
        long long kernels = -1, shortKernels = -1, launched = -1;
        ASSERT_EQ(std::sscanf(counts.c_str(), "%lld %lld %lld", &kernels, &shortKernels, &launched), 3) << counts;
        ASSERT_GT(kernels, 0);
        auto r = importFile(trace);
        ASSERT_TRUE(r.ok()) << r.error();
        auto found = runRules(**r, {"short_kernels", "launch_latency"}, {});
        ASSERT_TRUE(found[0].ok() && found[1].ok());
        EXPECT_EQ(found[0]->count, shortKernels);
        EXPECT_EQ(found[1]->count, launched);
        int64_t instances = 0;  // the table's rows add up to the count
        for (size_t i = 0; i < found[0]->table.rowCount(); ++i) instances += found[0]->table.columns[1].ints[i];
        EXPECT_EQ(instances, shortKernels);
    }
}
#endif

#ifdef SIGHTLINE_HAVE_IMPORT
TEST(RulesOnNsysExports, CopyComputeOverlapEqualsAPlainIntervalCountOfTheExport) {
    // tests/analysis/overlap_counts.py reads the nsys export itself (not our import) and merges
    // intervals with plain Python: the exposed copy time and the copies partly exposed.
    const std::string script = std::string(SIGHTLINE_TEST_DATA) + "/../analysis/overlap_counts.py";
    for (const char* file : {"pipit_saxpy_mpi_cuda.sqlite", "extrap_concurrent_s1.sqlite", "extrap_con_kernel.sqlite"}) {
        SCOPED_TRACE(file);
        const std::string path = test::externalFixturePath(file);
        int code = -1;
        const std::string counts = runShell("python3 '" + script + "' '" + path + "'", &code);
        ASSERT_EQ(code, 0) << counts;
        long long copies = -1, exposedNs = -1;
        ASSERT_EQ(std::sscanf(counts.c_str(), "%lld %lld", &copies, &exposedNs), 2) << counts;
        ASSERT_GT(copies, 0);
        auto r = importFile(path);
        ASSERT_TRUE(r.ok()) << r.error();
        auto found = runRules(**r, {"copy_compute_overlap"}, {});
        ASSERT_TRUE(found[0].ok()) << found[0].error();
        EXPECT_EQ(found[0]->count, copies);
        EXPECT_EQ(found[0]->totalNs, exposedNs);
    }
}
#endif

#ifdef SIGHTLINE_HAVE_IMPORT
TEST(RulesOnNsysExports, GpuIdleBreakdownEqualsAPlainGapCountOfTheExport) {
    // tests/analysis/idle_counts.py reads the nsys export itself: per stream, the gaps between
    // operations in start order, split by when the next operation's API call began.
    const std::string script = std::string(SIGHTLINE_TEST_DATA) + "/../analysis/idle_counts.py";
    for (const char* file : {"pipit_saxpy_mpi_cuda.sqlite", "extrap_concurrent_s1.sqlite", "extrap_con_kernel.sqlite"}) {
        SCOPED_TRACE(file);
        const std::string path = test::externalFixturePath(file);
        int code = -1;
        const std::string counts = runShell("python3 '" + script + "' '" + path + "' 30", &code);
        ASSERT_EQ(code, 0) << counts;
        long long streams = -1, host = -1, kernel = -1, other = -1;
        ASSERT_EQ(std::sscanf(counts.c_str(), "%lld %lld %lld %lld", &streams, &host, &kernel, &other), 4) << counts;
        ASSERT_GT(streams, 0);
        auto r = importFile(path);
        ASSERT_TRUE(r.ok()) << r.error();
        auto found = runRules(**r, {"gpu_idle_breakdown:kernel_wait=30:rows=-1"}, {});
        ASSERT_TRUE(found[0].ok()) << found[0].error();
        const Finding& f = *found[0];
        EXPECT_EQ(f.count, streams);
        EXPECT_EQ(f.totalNs, host);
        int64_t kernelSum = 0, otherSum = 0;
        for (size_t i = 0; i < f.table.rowCount(); ++i) {
            kernelSum += f.table.columns[5].ints[i];
            otherSum += f.table.columns[6].ints[i];
        }
        EXPECT_EQ(kernelSum, kernel);
        EXPECT_EQ(otherSum, other);
    }
}
#endif

#ifdef SIGHTLINE_HAVE_IMPORT
TEST(RulesOnNsysExports, NvtxGpuIdleEqualsAPlainCountOfTheExport) {
    // tests/analysis/nvtx_idle_counts.py reads the nsys export itself: the GPU's idle gaps and
    // the NVTX ranges (push/pop, start/end) of the same process holding them, by name.
    const std::string script = std::string(SIGHTLINE_TEST_DATA) + "/../analysis/nvtx_idle_counts.py";
    for (const char* file : {"pipit_saxpy_mpi_cuda.sqlite", "extrap_concurrent_s1.sqlite"}) {
        for (int gapUs : {100, 10}) {
            SCOPED_TRACE(std::string(file) + " gap " + std::to_string(gapUs));
            const std::string path = test::externalFixturePath(file);
            int code = -1;
            const std::string counts =
                runShell("python3 '" + script + "' '" + path + "' " + std::to_string(gapUs), &code);
            ASSERT_EQ(code, 0) << counts;
            long long names = -1, top = -1, instances = -1;
            ASSERT_EQ(std::sscanf(counts.c_str(), "%lld %lld %lld", &names, &top, &instances), 3) << counts;
            ASSERT_GT(names, 0);
            auto r = importFile(path);
            ASSERT_TRUE(r.ok()) << r.error();
            auto found = runRules(**r, {"nvtx_gpu_idle:rows=-1:gap=" + std::to_string(gapUs)}, {});
            ASSERT_TRUE(found[0].ok()) << found[0].error();
            const Finding& f = *found[0];
            EXPECT_EQ(f.count, names);
            EXPECT_EQ(f.totalNs, top);
            int64_t sum = 0;
            for (size_t i = 0; i < f.table.rowCount(); ++i) sum += f.table.columns[3].ints[i];
            EXPECT_EQ(sum, instances);
        }
    }
}
#endif

#ifdef SIGHTLINE_HAVE_IMPORT
TEST(RulesOnNsysExports, CommunicationEqualsAPlainIntervalCountOfRealTimings) {
    // No real export we may ship has NCCL kernels, so tests/analysis/communication_counts.py
    // copies one and gives an NCCL kernel's name to the kernels of some streams: their times stay
    // as the GPU ran them, overlapping the other streams' kernels. It then works out, with SQL and
    // plain interval merging, the NCCL kernels, their time, the part computation covered and the
    // rest.
    const std::string script = std::string(SIGHTLINE_TEST_DATA) + "/../analysis/communication_counts.py";
    const std::string dir = testing::TempDir();
    int copies = 0;
    for (auto [file, streams] : {std::pair<const char*, const char*>{"extrap_concurrent_s1.sqlite", "24,26"},
                                 {"extrap_con_kernel.sqlite", "14,16"},
                                 {"extrap_con_kernel.sqlite", "18"}}) {
        SCOPED_TRACE(std::string(file) + " streams " + streams);
        const std::string copy = dir + "/nccl_" + std::to_string(++copies) + "_" + file;
        int code = -1;
        const std::string counts = runShell("python3 '" + script + "' '" + test::externalFixturePath(file) + "' '" +
                                                copy + "' " + streams,
                                            &code);
        ASSERT_EQ(code, 0) << counts;
        long long kernels = -1, exposedNs = -1, commNs = -1, overlappedNs = -1;
        ASSERT_EQ(std::sscanf(counts.c_str(), "%lld %lld %lld %lld", &kernels, &exposedNs, &commNs, &overlappedNs), 4)
            << counts;
        ASSERT_GT(kernels, 0);
        auto r = importFile(copy);
        ASSERT_TRUE(r.ok()) << r.error();
        auto found = runRules(**r, {"communication"}, {});
        ASSERT_TRUE(found[0].ok()) << found[0].error();
        const Finding& f = *found[0];
        EXPECT_EQ(f.count, kernels);
        EXPECT_EQ(f.totalNs, exposedNs);
        int64_t comm = 0, overlapped = 0;
        for (size_t i = 0; i < f.table.rowCount(); ++i) {
            comm += f.table.columns[2].ints[i];
            overlapped += f.table.columns[5].ints[i];
        }
        EXPECT_EQ(comm, commNs);
        EXPECT_EQ(overlapped, overlappedNs);
        // The same export as shipped, without the renaming: nothing to report.
        auto original = importFile(test::externalFixturePath(file));
        ASSERT_TRUE(original.ok());
        auto none = runRules(**original, {"communication"}, {});
        ASSERT_TRUE(none[0].ok());
        EXPECT_EQ(none[0]->count, 0);
        EXPECT_EQ(none[0]->totalNs, 0);
    }
}
#endif

TEST(AnalyzeCli, MistakesAreUsageErrors) {
    int code = -1;
    const std::string unknown = runCli("analyze -r gpu_gapz nothing.rep", &code);
    EXPECT_EQ(code, 2);
    EXPECT_NE(unknown.find("unknown rule 'gpu_gapz'"), std::string::npos) << unknown;
    const std::string list = runCli("analyze --help-rules", &code);
    EXPECT_EQ(code, 0);
    EXPECT_NE(list.find("gpu_idle_breakdown"), std::string::npos);
    EXPECT_NE(list.find("gap"), std::string::npos);
    const std::string missing = runCli("analyze /no/such/report.rep", &code);
    EXPECT_EQ(code, 1);
    EXPECT_NE(missing.find("/no/such/report.rep"), std::string::npos) << missing;
}

}  // namespace
}  // namespace sl::analysis
