// The stats reports stop when their cancel flag is set (the GUI's superseded Stats dock jobs):
// with the flag set before the run every report returns at once, skipped as "cancelled", and
// runReport says "cancelled"; set while a long report runs, it returns long before the report
// would have finished; with the flag present but false, every table is the one a run without
// a flag gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "model/analysis/StatsReports.h"
#include "model/core/ReportBuilder.h"
#include "model/gen/SyntheticGenerator.h"
#include "tests/analysis/StatsTestUtil.h"

namespace sl::analysis {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Training-loop work of the generator: kernels, copies, CUDA API calls, NVTX ranges.
const Report& gpuReport() {
    static const std::shared_ptr<Report> r = [] {
        GeneratorOptions o;
        o.events = 2'000'000;
        return generateReport(o);
    }();
    return *r;
}

// What the generator does not make: OS runtime calls, CPU samples and thread states, 1 M each.
const Report& hostReport() {
    static const std::shared_ptr<Report> r = [] {
        ReportBuilder b;
        b.report().session.source = "test";
        b.ensureProcess(5).name = "app";
        const uint32_t module = b.intern("/usr/bin/app");
        std::vector<uint32_t> functions, stacks;
        for (int f = 0; f < 64; ++f) functions.push_back(b.intern("function_" + std::to_string(f)));
        for (int s = 0; s < 256; ++s) {
            std::vector<uint32_t> frames;
            for (int d = 0; d <= s % 8; ++d)
                frames.push_back(b.frameId(
                    {functions[(s + 7 * d) % 64], module, 0x1000u + 16u * ((s + 7 * d) % 64)}));
            stacks.push_back(b.stackId(frames));
        }
        const char* calls[] = {"read", "write", "poll", "ioctl", "pthread_mutex_lock"};
        for (int64_t tid = 6; tid < 10; ++tid) {
            b.ensureThread(5, tid).name = "worker";
            for (int64_t i = 0; i < 250'000; ++i) {
                const int64_t t = i * 1000;
                OsRuntimeCall call;
                call.pid = 5;
                call.tid = tid;
                call.start = t;
                call.end = t + 100 + (i * 37 + tid) % 500;
                call.function = b.intern(calls[(i + tid) % 5]);
                b.add(call);
                b.add(CpuSampleEvent{5, tid, t + 500, stacks[(i * 13 + tid) % 256], 0,
                                     int16_t(tid % 2)});
                b.add(ThreadRunning{5, tid, t + 600, t + 900, int16_t(i % 2)});
            }
        }
        return b.finish();
    }();
    return *r;
}

const Report& reportFor(const ReportInfo& info) {
    return info.name == "osrt_sum" || info.name == "sample_sum" || info.name == "cpu_util_sum"
               ? hostReport()
               : gpuReport();
}

TEST(StatsCancel, FlagSetBeforeTheRunStopsEveryReportAtOnce) {
    std::atomic<bool> cancel{true};
    StatsOptions o;
    o.cancel = &cancel;
    int ran = 0;
    for (const ReportInfo& info : allReports()) {
        const Report& r = reportFor(info);
        const auto t0 = Clock::now();
        const Table stopped = info.run(r, o);
        const double s = secondsSince(t0);
        if (stopped.skipped != kCancelled) {
            // Only a report whose data is absent here (MPI, OpenMP, the libraries) returns
            // before its first check of the flag: skipped as it is without one.
            EXPECT_FALSE(stopped.skipped.empty()) << info.name;
            EXPECT_EQ(stopped.skipped, info.run(r, {}).skipped) << info.name;
            continue;
        }
        ++ran;
        EXPECT_EQ(stopped.rowCount(), 0u) << info.name;
        EXPECT_LT(s, 0.1) << info.name;  // at once: no loop runs
        auto viaRegistry = runReport(r, std::string(info.name), o);
        ASSERT_FALSE(viaRegistry.ok()) << info.name;
        EXPECT_EQ(viaRegistry.error(), kCancelled) << info.name;
    }
    EXPECT_GE(ran, 18);
}

TEST(StatsCancel, FlagClearGivesTheSameTables) {
    std::atomic<bool> cancel{false};
    StatsOptions o;
    o.cancel = &cancel;
    for (const ReportInfo& info : allReports()) {
        const Report& r = reportFor(info);
        auto plain = runReport(r, std::string(info.name), {});
        auto flagged = runReport(r, std::string(info.name), o);
        ASSERT_TRUE(plain.ok() && flagged.ok()) << info.name;
        EXPECT_EQ(flagged->skipped, plain->skipped) << info.name;
        EXPECT_EQ(test::csv(*flagged), test::csv(*plain)) << info.name;
    }
}

// Runs `spec` with the flag set `delay` after the start, from another thread; its seconds.
double secondsCancelledAfter(const Report& r, const std::string& spec, double delay,
                             std::string& error) {
    std::atomic<bool> cancel{false};
    StatsOptions o;
    o.cancel = &cancel;
    std::thread setter([&] {
        std::this_thread::sleep_for(std::chrono::duration<double>(delay));
        cancel = true;
    });
    const auto t0 = Clock::now();
    auto t = runReport(r, spec, o);
    const double s = secondsSince(t0);
    setter.join();
    error = t.ok() ? "finished" : t.error();
    return s;
}

// The long reports whose time goes mostly to their own loops: set an eighth of the way through,
// the flag ends them well before the end. Left out: the per-name summaries (a few ms here,
// covered above) and nvtx_gpu_proj_*, whose time goes to building the NVTX projection, which
// is not interrupted. The machine is shared, so each gets three tries.
TEST(StatsCancel, FlagSetDuringALongReportEndsItEarly) {
    for (const char* spec :
         {"cuda_gpu_kern_gb_sum", "cuda_api_trace", "cuda_gpu_trace", "cuda_kern_exec_sum",
          "cuda_kern_exec_trace", "nvtx_pushpop_trace", "nvtx_kern_sum"}) {
        const Report& r = reportFor(*findReport(spec));
        double whole = 1e9;
        for (int run = 0; run < 2; ++run) {
            const auto t0 = Clock::now();
            ASSERT_TRUE(runReport(r, spec, {}).ok()) << spec;
            whole = std::min(whole, secondsSince(t0));
        }
        double seconds = 0;
        std::string error;
        for (int attempt = 0; attempt < 3; ++attempt) {
            seconds = secondsCancelledAfter(r, spec, whole / 8, error);
            if (error == kCancelled && seconds < whole * 0.6) break;
        }
        std::printf("%s: %.1f ms whole, %.1f ms when cancelled after %.1f ms\n", spec, whole * 1e3,
                    seconds * 1e3, whole / 8 * 1e3);
        EXPECT_EQ(error, kCancelled) << spec;
        EXPECT_LT(seconds, whole * 0.6) << spec;
    }
}

}  // namespace
}  // namespace sl::analysis
