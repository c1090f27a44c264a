// `sightline profile -t cuda` end to end without a GPU: the real CLI, launcher, injection
// library and merge, with the fake libcupti (FakeCupti.cpp) under fake_cuda_app and the fake
// libnvidia-ml for --gpu-metrics-devices. Label: capture.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "model/rep/RepReader.h"
#include "model/rep/Sqlite.h"
#include "tests/gpu/GpuCaptureCheck.h"

namespace sl::cuda {
namespace {

namespace fs = std::filesystem;

class CudaCaptureE2E : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tmpl = (fs::temp_directory_path() / "sl-cuda-e2e-XXXXXX").string();
        m_dir = mkdtemp(tmpl.data());
        // libnvidia-ml.so.1 for the launcher: the fake, found through LD_LIBRARY_PATH.
        fs::create_symlink(SIGHTLINE_FAKE_NVML, m_dir + "/libnvidia-ml.so.1");
    }
    void TearDown() override { fs::remove_all(m_dir); }

    // Runs sightline profile OPTIONS fake_cuda_app - SCENARIO; returns the exit status.
    int profile(const std::string& options, const std::string& scenario,
                const std::string& report) {
        return profileProgram(options, SIGHTLINE_FAKE_CUDA_APP " - " + scenario, report);
    }
    int profileProgram(const std::string& options, const std::string& program, const std::string& report) {
        std::string cmd = "LD_LIBRARY_PATH=" + m_dir + " " SIGHTLINE_CLI " profile -q true " +
                          options + " -o " + report +
                          " -e LD_LIBRARY_PATH=" SIGHTLINE_FAKE_CUPTI_DIR " " + program + " > " + m_dir +
                          "/log.txt 2>&1";
        int st = std::system(cmd.c_str());
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    std::string log() const {
        std::string s;
        if (FILE* f = std::fopen((m_dir + "/log.txt").c_str(), "r")) {
            char buf[4096];
            size_t n;
            while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
            std::fclose(f);
        }
        return s;
    }
    std::string m_dir;
};

TEST_F(CudaCaptureE2E, KernelsApiCallsAndGpuInTheReport) {
    std::string rep = m_dir + "/basic.rep";
    ASSERT_EQ(profile("-t cuda,nvtx,osrt", "basic", rep), 0) << log();
    auto r = readReport(rep);
    ASSERT_TRUE(r.ok()) << r.error();
    const Report& report = **r;
    EXPECT_EQ(report.eventCount(EventKind::Kernel), 3u);
    EXPECT_EQ(report.eventCount(EventKind::CudaApi), 3u);
    ASSERT_EQ(report.gpus.size(), 1u);
    EXPECT_EQ(report.gpus[0].name, "Fake GPU");
    ASSERT_EQ(report.kernelLaunches.size(), 1u);
    EXPECT_EQ(report.str(report.kernelLaunches[0].shortName), "kernel");
    auto api = report.tracksOfKind(EventKind::CudaApi);
    ASSERT_EQ(api.size(), 1u);
    EXPECT_EQ(report.str(api[0]->name[0]), "cudaLaunchKernel");
    EXPECT_NE(report.findThread(api[0]->key.pid, api[0]->key.tid),
              nullptr);  // on the program's main thread
    // Nothing went wrong on the CUDA path. CPU sampling (on by default) reports its own
    // informational counters, such as frames of stripped libraries left unresolved; the CUDA
    // module says which CUPTI it loaded.
    EXPECT_EQ(report.diagnosticCount("cuda.cupti_loaded"), 1);
    for (const auto& d : report.diagnostics)
        if (d.name.rfind("sampling.", 0) != 0 && d.name != "cuda.cupti_loaded")
            ADD_FAILURE() << d.name << ": " << d.reason;

    // The GPU end-to-end checks (tests/gpu) pass on this real capture too.
    auto expect = gpucheck::Expectations::parse("kernels=3\n", "fake.expect");
    ASSERT_TRUE(expect.ok());
    gpucheck::CheckOptions o;
    o.checkNvtx = false;
    auto check = gpucheck::checkGpuCapture(report, *expect, o);
    for (const auto& f : check.failed) ADD_FAILURE() << f;
    EXPECT_EQ(check.passed.size(), 4u);
}

// -c cudaProfilerApi records everything only between cudaProfilerStart and Stop, as nsys does:
// the OS runtime calls too, not CUDA alone (before, a program's whole run was recorded apart
// from CUDA, and one that never called cudaProfilerStart got a report of its whole run).
TEST_F(CudaCaptureE2E, ProfilerApiRangeCoversEveryKindOfEvent) {
    std::string rep = m_dir + "/range.rep";
    ASSERT_EQ(profile("-t cuda,osrt -s none --cpuctxsw none --osrt-threshold 0 -c cudaProfilerApi",
                      "range-sleeps", rep),
              0)
        << log();
    auto r = readReport(rep);
    ASSERT_TRUE(r.ok()) << r.error();
    const Report& report = **r;
    EXPECT_EQ(report.eventCount(EventKind::Kernel), 3u);
    size_t sleeps = 0;
    for (const Track* t : report.tracksOfKind(EventKind::OsRuntime))
        for (size_t i = 0; i < t->size(); ++i)
            sleeps += report.str(t->name[i]).find("nanosleep") != std::string_view::npos;
    EXPECT_EQ(sleeps, 3u) << log();
}

TEST_F(CudaCaptureE2E, ProfilerApiRangeThatNeverBeginsWritesNoReport) {
    std::string rep = m_dir + "/never.rep";
    EXPECT_EQ(profile("-t cuda,osrt -s none -c cudaProfilerApi", "basic", rep), 1) << log();
    EXPECT_FALSE(fs::exists(rep));
    EXPECT_NE(log().find("no process called cudaProfilerStart"), std::string::npos) << log();
}

// Two ranks each between their own cudaProfilerStart and Stop, overlapping: the window lasts
// until the last rank's stop, so each rank's five kernels are kept (the second rank lost four
// when the first rank's stop closed the window).
TEST_F(CudaCaptureE2E, ProfilerApiRangesOfTwoProcessesShareTheWindow) {
    std::string rep = m_dir + "/ranks.rep";
    const std::string app = SIGHTLINE_FAKE_CUDA_APP;
    ASSERT_EQ(profileProgram("-t cuda -s none --cpuctxsw none -c cudaProfilerApi",
                             "/bin/sh -c '" + app + " - rank 0 50 _Z5rankAv & " + app +
                                 " - rank 30 200 _Z5rankBv; wait'",
                             rep),
              0)
        << log();
    auto r = readReport(rep);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ((**r).eventCount(EventKind::Kernel), 10u);
}

// --capture-range-end=stop-shutdown: the launcher ends the program at cudaProfilerStop with its
// --kill signal, as for an NVTX range (the module told it with SIGUSR1).
TEST_F(CudaCaptureE2E, ProfilerApiRangeStopShutdownEndsTheProgram) {
    std::string rep = m_dir + "/shutdown.rep";
    profile("-t cuda,osrt -s none --cpuctxsw none --osrt-threshold 0 -c cudaProfilerApi "
            "--capture-range-end stop-shutdown",
            "range-sleeps", rep);
    auto r = readReport(rep);
    ASSERT_TRUE(r.ok()) << r.error() << log();
    EXPECT_EQ((**r).eventCount(EventKind::Kernel), 3u);
    ASSERT_FALSE((**r).processes.empty());
    EXPECT_EQ((**r).processes[0].exitSignal, SIGTERM) << "ended by the launcher at the range's end";
}

// --python-backtrace=cuda: a Python program calls CUDA (the stand-in CUPTI calls the module's
// API callback around each call, as CUPTI does) from known lines, on two threads; each recorded
// call has the Python stack of its line, shown in the details and exported as nsys does
// (CUPTI_ACTIVITY_KIND_RUNTIME.callchainId, CUDA_CALLCHAINS).
TEST_F(CudaCaptureE2E, PythonBacktraceAtCudaApiCalls) {
#ifndef SIGHTLINE_PYTHON3
    GTEST_SKIP() << "no python3 on this machine";
#else
    const std::string client = SIGHTLINE_CLIENTS_SRC "/python/cuda_backtrace.py";
    auto lineOf = [&](const std::string& marker) {
        std::ifstream in(client);
        std::string line;
        for (int n = 1; std::getline(in, line); ++n)
            if (line.find(marker) != std::string::npos) return n;
        return 0;
    };
    const int launchLine = lineOf("# the launch"), syncLine = lineOf("# the sync");
    ASSERT_GT(launchLine, 0);
    std::string rep = m_dir + "/pybt.rep";
    ASSERT_EQ(profileProgram("-t cuda -s none --cpuctxsw none --python-backtrace=cuda",
                             std::string(SIGHTLINE_PYTHON3) + " " + client, rep),
              0)
        << log();
    EXPECT_NE(log().find("cuda_backtrace done"), std::string::npos) << log();
    auto r = readReport(rep);
    ASSERT_TRUE(r.ok()) << r.error();
    const Report& report = **r;
    if (report.diagnosticCount("python.backtraces_unavailable") > 0)
        GTEST_SKIP() << "this python3 is not CPython 3.11-3.13: no backtraces (said in the report)";
    int launches = 0, syncs = 0, threads = 0;
    std::set<int64_t> tids;
    for (const Track* t : report.tracksOfKind(EventKind::CudaApi)) {
        for (size_t i = 0; i < t->size(); ++i) {
            const std::string name(report.str(t->name[i]));
            const CallStack* bt = report.backtraceOf(EventKind::CudaApi, t->key.pid, t->key.tid, t->start[i]);
            ASSERT_NE(bt, nullptr) << name << " at " << t->start[i];
            ASSERT_FALSE(bt->frames.empty());
            const StackFrame& leaf = report.stackFrames[bt->frames[0]];
            EXPECT_TRUE(report.str(leaf.module).ends_with("cuda_backtrace.py")) << report.str(leaf.module);
            if (name == "cudaLaunchKernel") {
                ++launches;
                EXPECT_EQ(report.str(leaf.function), "launch");
                EXPECT_EQ(leaf.offset, uint64_t(launchLine));
            } else if (name == "cudaDeviceSynchronize") {
                ++syncs;
                EXPECT_EQ(report.str(leaf.function), "synchronize");
                EXPECT_EQ(leaf.offset, uint64_t(syncLine));
            }
            tids.insert(t->key.tid);
        }
    }
    threads = static_cast<int>(tids.size());
    EXPECT_EQ(launches, 5);
    EXPECT_EQ(syncs, 1);
    EXPECT_EQ(threads, 2);
    EXPECT_EQ(report.backtraces.size(), 6u);
    // Exported as nsys keeps CUDA backtraces.
    const std::string db = m_dir + "/pybt.sqlite";
    ASSERT_EQ(std::system((SIGHTLINE_CLI " export --type sqlite -o " + db + " " + rep + " > /dev/null 2>&1").c_str()), 0);
    sqlite::Db d;
    ASSERT_TRUE(d.openReadOnly(db));
    sqlite::Stmt st(d, "SELECT COUNT(*), COUNT(DISTINCT callchainId) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                       "JOIN CUDA_CALLCHAINS c ON c.id = r.callchainId AND c.stackDepth = 0");
    ASSERT_TRUE(st.valid() && st.step());
    EXPECT_EQ(st.i64(0), 6);
    EXPECT_GE(st.i64(1), 2);  // the launch's stack (two threads: two stacks) and the sync's
#endif
}

// --cudabacktrace: the native stack at CUDA API calls of the chosen classes (the stand-in CUPTI
// calls the module's callback at each call's entry and exit, as CUPTI does); the stack starts at
// the program's caller (fake_cuda_app's cudaInner), the CUDA module's and CUPTI's frames left out.
TEST_F(CudaCaptureE2E, NativeBacktraceAtCudaApiCallsOfTheChosenClasses) {
    struct Call {
        std::string name;
        const CallStack* stack;
    };
    auto calls = [](const Report& r) {
        std::vector<Call> out;
        for (const Track* t : r.tracksOfKind(EventKind::CudaApi))
            for (size_t i = 0; i < t->size(); ++i)
                out.push_back({std::string(r.str(t->name[i])),
                               r.backtraceOf(EventKind::CudaApi, t->key.pid, t->key.tid, t->start[i])});
        return out;
    };
    auto functions = [](const Report& r, const CallStack& s) {
        std::vector<std::string> f;
        for (uint32_t id : s.frames) f.emplace_back(r.str(r.stackFrames[id].function));
        return f;
    };
    // Launches only, from 0 ns: the two launches have stacks, the malloc and the sync none.
    const std::string kernelRep = m_dir + "/kernel.rep";
    ASSERT_EQ(profile("-t cuda -s none --cpuctxsw none --cudabacktrace=kernel:0", "backtrace", kernelRep), 0)
        << log();
    auto kernel = readReport(kernelRep);
    ASSERT_TRUE(kernel.ok()) << kernel.error();
    int launches = 0, others = 0;
    for (const Call& c : calls(**kernel)) {
        if (c.name != "cudaLaunchKernel") {
            EXPECT_EQ(c.stack, nullptr) << c.name;
            ++others;
            continue;
        }
        ASSERT_NE(c.stack, nullptr);
        const auto f = functions(**kernel, *c.stack);
        ASSERT_GE(f.size(), 3u);
        EXPECT_NE(f[0].find("cudaInner"), std::string::npos) << f[0];
        EXPECT_NE(f[1].find("cudaOuter"), std::string::npos) << f[1];
        EXPECT_EQ(f[2], "main");
        for (uint32_t id : c.stack->frames) {
            const std::string module((*kernel)->str((*kernel)->stackFrames[id].module));
            EXPECT_EQ(module.find("libsightline"), std::string::npos) << module;
            EXPECT_EQ(module.find("libcupti"), std::string::npos) << module;
        }
        ++launches;
    }
    EXPECT_EQ(launches, 2);
    EXPECT_EQ(others, 2);  // cudaMalloc, cudaDeviceSynchronize
    // Memory and sync: those two only.
    const std::string msRep = m_dir + "/memsync.rep";
    ASSERT_EQ(profile("-t cuda -s none --cpuctxsw none --cudabacktrace=memory:0,sync:0", "backtrace", msRep), 0)
        << log();
    auto memsync = readReport(msRep);
    ASSERT_TRUE(memsync.ok()) << memsync.error();
    std::set<std::string> withStacks;
    for (const Call& c : calls(**memsync))
        if (c.stack) withStacks.insert(c.name);
    EXPECT_EQ(withStacks, (std::set<std::string>{"cudaMalloc", "cudaDeviceSynchronize"}));
    // All classes above every call's duration (1 s): none.
    const std::string highRep = m_dir + "/high.rep";
    ASSERT_EQ(profile("-t cuda -s none --cpuctxsw none --cudabacktrace=all --cudabacktrace-threshold=1000000000",
                      "backtrace", highRep), 0)
        << log();
    auto high = readReport(highRep);
    ASSERT_TRUE(high.ok()) << high.error();
    EXPECT_EQ(calls(**high).size(), 4u);
    EXPECT_TRUE((*high)->backtraces.empty());
    // A class that does not exist is an error.
    EXPECT_NE(profile("-t cuda --cudabacktrace=kernels", "backtrace", m_dir + "/bad.rep"), 0);
    EXPECT_NE(log().find("--cudabacktrace"), std::string::npos) << log();
    // Exported as nsys: CUDA_CALLCHAINS.
    const std::string db = m_dir + "/kernel.sqlite";
    ASSERT_EQ(std::system((SIGHTLINE_CLI " export --type sqlite -o " + db + " " + kernelRep + " > /dev/null 2>&1").c_str()), 0);
    sqlite::Db d;
    ASSERT_TRUE(d.openReadOnly(db));
    sqlite::Stmt st(d, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN CUDA_CALLCHAINS c "
                       "ON c.id = r.callchainId AND c.stackDepth = 2 JOIN StringIds s ON s.id = c.symbol "
                       "WHERE s.value = 'main'");
    ASSERT_TRUE(st.valid() && st.step());
    EXPECT_EQ(st.i64(0), 2);
}

TEST_F(CudaCaptureE2E, CudaProfilerApiRange) {
    std::string rep = m_dir + "/range.rep";
    ASSERT_EQ(profile("-t cuda -c cudaProfilerApi --capture-range-end=stop", "range", rep), 0)
        << log();
    auto r = readReport(rep);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ((*r)->eventCount(EventKind::Kernel), 3u);
}

TEST_F(CudaCaptureE2E, CudaProfilerApiNeedsCudaTracing) {
    std::string rep = m_dir + "/bad.rep";
    EXPECT_NE(profile("-t nvtx -c cudaProfilerApi", "basic", rep), 0);
    EXPECT_NE(log().find("--capture-range=cudaProfilerApi needs CUDA tracing (-t ...,cuda)"),
              std::string::npos)
        << log();
    EXPECT_NE(profile("--cuda-graph-trace=nodes", "basic", rep), 0);
    EXPECT_NE(log().find("--cuda-graph-trace: 'nodes' is not a valid value (expected graph or "
                         "node); did you mean 'node'?"),
              std::string::npos)
        << log();
    EXPECT_NE(profile("--gpu-metrics-devices=first", "basic", rep), 0);
    EXPECT_NE(log().find("--gpu-metrics-devices: 'first'"), std::string::npos) << log();
}

TEST_F(CudaCaptureE2E, GpuMetricsFromNvmlSitWithTheCudaGpu) {
    std::string rep = m_dir + "/metrics.rep";
    ASSERT_EQ(
        profile("-t cuda --gpu-metrics-devices=0 --gpu-metrics-frequency=200", "periodic", rep), 0)
        << log();
    auto r = readReport(rep);
    ASSERT_TRUE(r.ok()) << r.error();
    int nvml = 0;
    for (const auto& s : (*r)->metricSeries)
        if (s.source == "nvml") {
            ++nvml;
            EXPECT_EQ(s.deviceId, 0);
        }
    EXPECT_EQ(nvml, 9);
    EXPECT_GT((*r)->eventCount(EventKind::Metric), 9u);
}

TEST_F(CudaCaptureE2E, MissingNvmlIsADiagnosticNotAFailure) {
    fs::remove(m_dir + "/libnvidia-ml.so.1");
    std::string rep = m_dir + "/nonvml.rep";
    ASSERT_EQ(profile("-t cuda --gpu-metrics-devices=all", "basic", rep), 0) << log();
    auto r = readReport(rep);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ((*r)->diagnosticCount("gpu_metrics.unavailable"), 1);
    EXPECT_EQ((*r)->eventCount(EventKind::Kernel), 3u);
}

}  // namespace
}  // namespace sl::cuda
