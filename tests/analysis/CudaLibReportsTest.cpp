// cublas_api_sum, cudnn_api_sum, nccl_api_sum, cudalib_api_trace and the event details of
// cuBLAS, cuDNN and NCCL calls, on a hand-built report (every expected value follows from the
// times listed in makeLibReport).
#include <gtest/gtest.h>

#include "model/analysis/EventQueryDetails.h"
#include "model/analysis/StatsReports.h"
#include "model/core/ReportBuilder.h"
#include "tests/analysis/StatsTestUtil.h"

namespace sl::analysis {
namespace {

using test::runCsv;

std::shared_ptr<Report> makeLibReport() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.startMonotonicNs = 1000;
    r.session.durationNs = 3000;
    r.session.source = "test";
    b.ensureProcess(100).name = "train";
    b.ensureThread(100, 100).name = "main";
    b.ensureThread(100, 101).name = "worker";
    auto lib = [&](EventKind k, int64_t tid, const char* name, int64_t s, int64_t e, int64_t handle,
                   int64_t stream, int64_t status) {
        const int64_t x[] = {handle, stream, status};
        b.addRaw(TrackKey::forThread(k, 100, tid), s, e, b.intern(name), x);
    };
    lib(EventKind::Cublas, 100, "cublasCreate_v2", 1100, 1300, 0xa0, 0, 0);
    lib(EventKind::Cublas, 100, "cublasSgemm_v2", 1400, 1500, 0xa0, 0x5150, 0);
    lib(EventKind::Cublas, 100, "cublasSgemm_v2", 1600, 1800, 0xa0, 0x5150, 0);
    lib(EventKind::Cudnn, 101, "cudnnConvolutionForward", 2000, 2300, 0xb0, 0, 1001);
    const int64_t all[] = {0xc0, 0x5150, 0, 1024, 4096, 7, 0, -1, 1, 4};
    b.addRaw(TrackKey::forThread(EventKind::Nccl, 100, 100), 2500, 2600, b.intern("ncclAllReduce"), all);
    // CUDA API calls: two inside the first Sgemm (a runtime call and its driver call), one
    // inside the second, one that starts inside cublasCreate but ends after it (not inside),
    // and one on the other thread during the cuDNN call.
    b.add(CudaApiCall{100, 100, 1420, 1450, b.intern("cudaLaunchKernel"), 1, 211, ApiKind::Runtime, 0});
    b.add(CudaApiCall{100, 100, 1425, 1440, b.intern("cuLaunchKernel"), 2, 307, ApiKind::Driver, 0});
    b.add(CudaApiCall{100, 100, 1650, 1700, b.intern("cudaLaunchKernel"), 3, 211, ApiKind::Runtime, 0});
    b.add(CudaApiCall{100, 100, 1250, 1350, b.intern("cudaMalloc"), 4, 20, ApiKind::Runtime, 0});
    b.add(CudaApiCall{100, 101, 2100, 2200, b.intern("cudaMemsetAsync"), 5, 52, ApiKind::Runtime, 0});
    return b.finish();
}

TEST(CudaLibReports, SumsPerFunction) {
    auto r = makeLibReport();
    EXPECT_EQ(runCsv(*r, "cublas_api_sum"),
              "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "60.0,300,2,150.0,150.0,100,200,70.7,cublasSgemm_v2\n"
              "40.0,200,1,200.0,200.0,200,200,0.0,cublasCreate_v2\n");
    EXPECT_EQ(runCsv(*r, "cudnn_api_sum"),
              "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,300,1,300.0,300.0,300,300,0.0,cudnnConvolutionForward\n");
    EXPECT_EQ(runCsv(*r, "nccl_api_sum"),
              "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              "100.0,100,1,100.0,100.0,100,100,0.0,ncclAllReduce\n");
    test::expectSameFromRep(*r, "cudalib", "cublas_api_sum", runCsv(*r, "cublas_api_sum"));
}

TEST(CudaLibReports, TraceHasTheColumnsAndTheCudaCallsInside) {
    auto r = makeLibReport();
    const std::string expected =
        "Library,Start (ns),End (ns),Duration (ns),Name,Pid,Tid,Handle,Stream,Status,Count,Bytes,"
        "DataType,RedOp,Peer,Rank,Ranks,CudaApiCalls\n"
        "cuBLAS,100,300,200,cublasCreate_v2,100,100,160,0,0,,,,,,,,0\n"
        "cuBLAS,400,500,100,cublasSgemm_v2,100,100,160,20816,0,,,,,,,,2\n"
        "cuBLAS,600,800,200,cublasSgemm_v2,100,100,160,20816,0,,,,,,,,1\n"
        "cuDNN,1000,1300,300,cudnnConvolutionForward,100,101,176,0,1001,,,,,,,,1\n"
        "NCCL,1500,1600,100,ncclAllReduce,100,100,192,20816,0,1024,4096,ncclFloat32,ncclSum,,1,4,0\n";
    EXPECT_EQ(runCsv(*r, "cudalib_api_trace"), expected);
    test::expectSameFromRep(*r, "cudalib_trace", "cudalib_api_trace", expected);
}

TEST(CudaLibReports, ReportsOfAReportWithoutTheLibrariesAreSkipped) {
    ReportBuilder b;
    b.report().session.durationNs = 10;
    auto r = b.finish();
    for (const char* name : {"cublas_api_sum", "cudnn_api_sum", "nccl_api_sum", "cudalib_api_trace"}) {
        auto t = runReport(*r, name, {});
        ASSERT_TRUE(t.ok()) << name;
        EXPECT_NE(t->skipped.find("does not contain"), std::string::npos) << name;
    }
}

TEST(CudaLibReports, DetailsNameTheArguments) {
    auto r = makeLibReport();
    const auto gemm = eventDetails(*r, test::findEvent(*r, EventKind::Cublas, 100, 100, "cublasSgemm_v2"));
    EXPECT_EQ(detailValue(gemm, "Handle"), "0xa0");
    EXPECT_EQ(detailValue(gemm, "Stream"), "0x5150");
    EXPECT_EQ(detailValue(gemm, "Status"), "0 (success)");
    EXPECT_EQ(detailValue(gemm, "CUDA API calls inside"), "2");
    test::expectAbsent(gemm, {"Count", "Data type", "Rank"});
    const auto conv = eventDetails(*r, test::findEvent(*r, EventKind::Cudnn, 100, 101, "cudnnConvolutionForward"));
    EXPECT_EQ(detailValue(conv, "Status"), "1001 (error)");
    EXPECT_EQ(detailValue(conv, "Stream"), "default");
    const auto all = eventDetails(*r, test::findEvent(*r, EventKind::Nccl, 100, 100, "ncclAllReduce"));
    EXPECT_EQ(detailValue(all, "Communicator"), "0xc0");
    EXPECT_EQ(detailValue(all, "Count"), "1024");
    EXPECT_EQ(detailValue(all, "Data type"), "ncclFloat32");
    EXPECT_EQ(detailValue(all, "Reduction"), "ncclSum");
    EXPECT_EQ(detailValue(all, "Rank"), "1 of 4");
    EXPECT_EQ(detailValue(all, "CUDA API calls inside"), "0");
    test::expectAbsent(all, {"Root or peer rank"});
}

}  // namespace
}  // namespace sl::analysis
