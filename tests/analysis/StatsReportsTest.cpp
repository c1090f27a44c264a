// Stats reports on reports with hand-computed expectations.
#include "model/analysis/StatsReports.h"

#include <gtest/gtest.h>

#include <sstream>

#include "model/analysis/TableFormatter.h"
#include "tests/analysis/Fixtures.h"

namespace sl::analysis {
namespace {

std::string csv(const Table& t, const std::string& unit = "ns") {
    std::ostringstream out;
    writeTable(out, t, {TableFormat::Csv, unit});
    return out.str();
}

Table run(const Report& r, const std::string& spec, StatsOptions o = {}) {
    auto t = runReport(r, spec, o);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error());
    return t.ok() ? *t : Table{};
}

TEST(Summarize, MedianAndSampleStdDevAsNsys) {
    std::vector<int64_t> even{400, 100, 300, 200};
    DurationStats s = summarize(even);
    EXPECT_EQ(s.count, 4);
    EXPECT_EQ(s.total, 1000);
    EXPECT_DOUBLE_EQ(s.avg, 250.0);
    EXPECT_DOUBLE_EQ(s.median, 250.0);  // mean of the two middle values
    EXPECT_EQ(s.min, 100);
    EXPECT_EQ(s.max, 400);
    EXPECT_NEAR(s.stddev, 129.0994449, 1e-6);  // sqrt(50000 / 3)
    std::vector<int64_t> odd{80, 50, 50};
    s = summarize(odd);
    EXPECT_DOUBLE_EQ(s.median, 50.0);
    EXPECT_NEAR(s.stddev, 17.3205081, 1e-6);  // sqrt(600 / 2)
    std::vector<int64_t> one{7};
    EXPECT_DOUBLE_EQ(summarize(one).stddev, 0.0);
}

TEST(StatsReports, CudaGpuKernSumByHand) {
    auto r = test::makeStatsReport();
    // kA: 1000 of 1180 ns = 84.7 %; kB: 180 ns = 15.3 %.
    EXPECT_EQ(csv(run(*r, "cuda_gpu_kern_sum")),
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "84.7,1000,4,250.0,250.0,100,400,129.1,kA\n"
              "15.3,180,3,60.0,50.0,50,80,17.3,kB\n");
}

TEST(StatsReports, OldNameAliasAndTimeUnit) {
    auto r = test::makeStatsReport();
    EXPECT_EQ(csv(run(*r, "gpukernsum"), "us"),
              "Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name\n"
              "84.7,1.000,4,0.2500,0.2500,0.100,0.400,0.1291,kA\n"
              "15.3,0.180,3,0.0600,0.0500,0.050,0.080,0.0173,kB\n");
    for (const char* alias : {"cudaapisum", "gpumemtimesum", "gpumemsizesum", "nvtxsum", "osrtsum", "nvtxkernsum"})
        EXPECT_NE(findReport(alias), nullptr) << alias;
    // The old trace and summary names still found in scripts (`stats --report gputrace`).
    const std::pair<const char*, const char*> traces[] = {
        {"gputrace", "cuda_gpu_trace"},      {"cudaapitrace", "cuda_api_trace"},
        {"gpusum", "cuda_gpu_sum"},          {"gpukerngbsum", "cuda_gpu_kern_gb_sum"},
        {"kernexecsum", "cuda_kern_exec_sum"}, {"kernexectrace", "cuda_kern_exec_trace"}};
    for (const auto& [alias, name] : traces) {
        const ReportInfo* found = findReport(alias);
        ASSERT_NE(found, nullptr) << alias;
        EXPECT_EQ(found->name, name);
    }
}

TEST(StatsReports, CudaApiSumStripsVersionSuffix) {
    auto r = test::makeStatsReport();
    EXPECT_EQ(csv(run(*r, "cuda_api_sum")),
              "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,70,7,10.0,10.0,10,10,0.0,cudaLaunchKernel\n");
}

TEST(StatsReports, MemorySummaries) {
    auto r = test::makeStatsReport();
    EXPECT_EQ(csv(run(*r, "cuda_gpu_mem_time_sum")),
              "Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n"
              "66.6,4000,2,2000.0,2000.0,1000,3000,1414.2,[CUDA memcpy Host-to-Device]\n"
              "33.3,2000,1,2000.0,2000.0,2000,2000,0.0,[CUDA memcpy Device-to-Host]\n"
              "0.2,10,1,10.0,10.0,10,10,0.0,[CUDA memset]\n");
    EXPECT_EQ(csv(run(*r, "cuda_gpu_mem_size_sum")),
              "Total (MB),Count,Avg (MB),Med (MB),Min (MB),Max (MB),StdDev (MB),Operation\n"
              "2.000,2,1.000,1.000,1.000,1.000,0.000,[CUDA memcpy Host-to-Device]\n"
              "0.500,1,0.500,0.500,0.500,0.500,0.000,[CUDA memcpy Device-to-Host]\n"
              "0.000,1,0.000,0.000,0.000,0.000,0.000,[CUDA memset]\n");
}

TEST(StatsReports, NvtxAndOsrt) {
    auto r = test::makeStatsReport();
    EXPECT_EQ(csv(run(*r, "nvtx_sum")),
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range\n"
              "88.9,4000,2,2000.0,2000.0,1000,3000,1414.2,PushPop,step\n"
              "11.1,500,1,500.0,500.0,500,500,0.0,StartEnd,disk:io\n");
    EXPECT_EQ(csv(run(*r, "osrt_sum")),
              "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "88.9,40,2,20.0,20.0,10,30,14.1,read\n"
              "11.1,5,1,5.0,5.0,5,5,0.0,write\n");
}

// nsys's per-style NVTX summaries and its API-beside-GPU summary, which scripts name (they were
// "unknown report" here).
TEST(StatsReports, NvtxStyleSummariesAndCudaApiGpuSum) {
    auto r = test::makeStatsReport();
    EXPECT_EQ(csv(run(*r, "nvtx_pushpop_sum")),
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Range\n"
              "100.0,4000,2,2000.0,2000.0,1000,3000,1414.2,step\n");
    EXPECT_EQ(csv(run(*r, "nvtx_startend_sum")),
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Range\n"
              "100.0,500,1,500.0,500.0,500,500,0.0,disk:io\n");
    // Shares of the 7,260 ns of all three kinds together.
    EXPECT_EQ(csv(run(*r, "cuda_api_gpu_sum")),
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),"
              "Category,Operation\n"
              "55.1,4000,2,2000.0,2000.0,1000,3000,1414.2,MEMORY_OPER,[CUDA memcpy Host-to-Device]\n"
              "27.5,2000,1,2000.0,2000.0,2000,2000,0.0,MEMORY_OPER,[CUDA memcpy Device-to-Host]\n"
              "13.8,1000,4,250.0,250.0,100,400,129.1,CUDA_KERNEL,kA\n"
              "2.5,180,3,60.0,50.0,50,80,17.3,CUDA_KERNEL,kB\n"
              "1.0,70,7,10.0,10.0,10,10,0.0,CUDA_API,cudaLaunchKernel\n"
              "0.1,10,1,10.0,10.0,10,10,0.0,MEMORY_OPER,[CUDA memset]\n");
}

TEST(StatsReports, KernelExecQueueTimeFromEndOfCall) {
    auto r = test::makeStatsReport();
    Table t = run(*r, "cuda_kern_exec_trace");
    ASSERT_EQ(t.rowCount(), 7u);
    // First launch: API [1000, 1010] relative to the session start, kernel at 1015 for 100 ns.
    const int queueStart = t.findColumn("Queue Start"), queueDur = t.findColumn("Queue Dur");
    const int total = t.findColumn("Total Dur"), api = t.findColumn("API Function");
    ASSERT_GE(queueStart, 0);
    EXPECT_EQ(t.columns[static_cast<size_t>(t.findColumn("API Start"))].ints[0], 1000);
    EXPECT_EQ(t.columns[static_cast<size_t>(queueStart)].ints[0], 1010);
    EXPECT_EQ(t.columns[static_cast<size_t>(queueDur)].ints[0], 5);
    EXPECT_EQ(t.columns[static_cast<size_t>(total)].ints[0], 115);
    EXPECT_EQ(t.columns[static_cast<size_t>(api)].texts[0], "cudaLaunchKernel");
    Table s = run(*r, "cuda_kern_exec_sum");
    ASSERT_EQ(s.rowCount(), 2u);
    EXPECT_EQ(s.columns[static_cast<size_t>(s.findColumn("Kernel Name"))].texts[0], "kA");  // higher TAvg first
    EXPECT_EQ(s.columns[static_cast<size_t>(s.findColumn("QCount"))].ints[0], 4);
    EXPECT_DOUBLE_EQ(s.columns[static_cast<size_t>(s.findColumn("QAvg"))].reals[0], 5.0);
}

TEST(StatsReports, TimeFilterKeepsEventsInsideTheWindow) {
    auto r = test::makeStatsReport();
    StatsOptions o;
    // Kernels start at 2015, 3015, ... (absolute): keep the first two kA instances.
    o.start = 2000;
    o.end = 3500;
    EXPECT_EQ(csv(run(*r, "cuda_gpu_kern_sum", o)),
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,300,2,150.0,150.0,100,200,70.7,kA\n");
    auto w = nvtxFilterWindow(*r, "step", "", 1);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w->first, 2600);
    EXPECT_EQ(w->second, 5600);
    EXPECT_FALSE(nvtxFilterWindow(*r, "step", "", 2).ok());
    EXPECT_FALSE(nvtxFilterWindow(*r, "nope", "", 0).ok());
    EXPECT_TRUE(nvtxFilterWindow(*r, "io", "disk", 0).ok());
}

TEST(StatsReports, SkippedWhenDataIsAbsent) {
    Report empty;
    for (const auto& info : allReports()) {
        Table t = info.run(empty, {});
        EXPECT_FALSE(t.skipped.empty()) << info.name;
        EXPECT_NE(t.skipped.find("does not contain"), std::string::npos) << info.name;
    }
}

TEST(StatsReports, BadNamesAndArgumentsAreErrors) {
    auto r = test::makeStatsReport();
    EXPECT_FALSE(runReport(*r, "no_such_report", {}).ok());
    EXPECT_FALSE(runReport(*r, "cuda_api_sum:base", {}).ok());
    EXPECT_TRUE(runReport(*r, "cuda_gpu_kern_sum:base", {}).ok());
    EXPECT_EQ(defaultReports().size(), 6u);
}

TEST(TableFormatter, ColumnJsonAndQuoting) {
    Table t("x", "X");
    t.textCol("Name");
    t.intCol("Total Time", Measure::Duration);
    t.row().t("a,\"b\"").i(1234567);
    t.row().t("c").null();
    std::ostringstream c;
    writeTable(c, t, {TableFormat::Csv, "ns"});
    EXPECT_EQ(c.str(), "Name,Total Time (ns)\n\"a,\"\"b\"\"\",1234567\nc,\n");
    std::ostringstream col;
    writeTable(col, t, {TableFormat::Column, "ns"});
    EXPECT_EQ(col.str(), " Name   Total Time (ns)\n -----  ---------------\n a,\"b\"        1,234,567\n c\n");
    std::ostringstream j;
    writeTable(j, t, {TableFormat::Json, "ms"});
    EXPECT_NE(j.str().find("\"Total Time (ms)\": 1.234567"), std::string::npos) << j.str();
    EXPECT_NE(j.str().find("null"), std::string::npos);
}

}  // namespace
}  // namespace sl::analysis
