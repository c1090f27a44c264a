// --cudabacktrace (capture/cupti/CudaBacktrace.h): the command line's classes and thresholds,
// the environment round trip to libsightline-cuda, and the class of each API name.
#include <gtest/gtest.h>

#include "capture/cupti/CudaBacktrace.h"

namespace sl::cuda {
namespace {

TEST(CudaBacktraceOptions, ClassesTakeTheirOwnThresholdOrTheDefault) {
    auto o = parseCudaBacktrace("kernel,sync:500", 80000, 24);
    ASSERT_TRUE(o.ok()) << o.error();
    EXPECT_EQ(o->thresholdNs, (std::array<int64_t, 4>{80000, -1, 500, -1}));
    EXPECT_TRUE(o->any());
    auto all = parseCudaBacktrace("all:7", 80000, 24);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->thresholdNs, (std::array<int64_t, 4>{7, 7, 7, 7}));
    // nsys's old boolean spelling.
    EXPECT_TRUE(parseCudaBacktrace("true", 0, 24)->any());
    EXPECT_FALSE(parseCudaBacktrace("false", 0, 24)->any());
    EXPECT_FALSE(parseCudaBacktrace("none", 0, 24)->any());
    EXPECT_FALSE(parseCudaBacktrace("all,none", 0, 24)->any());  // the last word wins
}

TEST(CudaBacktraceOptions, BadValuesAreErrorsNamingTheOption) {
    for (const char* bad : {"kernels", "kernel:abc", "memory:-5", "sync:"}) {
        auto o = parseCudaBacktrace(bad, 80000, 24);
        ASSERT_FALSE(o.ok()) << bad;
        EXPECT_NE(o.error().find("--cudabacktrace"), std::string::npos) << o.error();
    }
}

TEST(CudaBacktraceOptions, EnvironmentRoundTrip) {
    auto o = parseCudaBacktrace("memory:100,other", 2000, 12);
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->toEnvironment(), "memory:100,other:2000,depth:12");
    auto back = CudaBacktraceOptions::fromEnvironment(o->toEnvironment());
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->thresholdNs, o->thresholdNs);
    EXPECT_EQ(back->depth, 12u);
    EXPECT_EQ(CudaBacktraceOptions{}.toEnvironment(), "");
    EXPECT_FALSE(CudaBacktraceOptions::fromEnvironment("kernel:1,depth:0").ok());
    EXPECT_FALSE(CudaBacktraceOptions::fromEnvironment("gpu:1").ok());
}

TEST(CudaBacktraceOptions, ApiClasses) {
    for (const char* n : {"cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchCooperativeKernel",
                          "cudaGraphLaunch"})
        EXPECT_EQ(apiClassOf(n), ApiClass::Kernel) << n;
    for (const char* n : {"cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMalloc", "cudaFree",
                          "cuMemAlloc_v2", "cuMemFree_v2", "cudaMallocHost", "cuMemcpyHtoD_v2"})
        EXPECT_EQ(apiClassOf(n), ApiClass::Memory) << n;
    for (const char* n : {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                          "cudaStreamWaitEvent", "cuCtxSynchronize", "cuStreamWaitValue32"})
        EXPECT_EQ(apiClassOf(n), ApiClass::Sync) << n;
    for (const char* n : {"cudaGetDevice", "cudaSetDevice", "cudaEventRecord", "cuCtxCreate_v2", ""})
        EXPECT_EQ(apiClassOf(n), ApiClass::Other) << n;
    CudaBacktraceOptions o;
    o.thresholdNs[size_t(ApiClass::Sync)] = 1000;
    EXPECT_TRUE(o.wants("cudaDeviceSynchronize", 1000));
    EXPECT_FALSE(o.wants("cudaDeviceSynchronize", 999));
    EXPECT_FALSE(o.wants("cudaLaunchKernel", 1'000'000));
}

}  // namespace
}  // namespace sl::cuda
