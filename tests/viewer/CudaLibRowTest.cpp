// GL-free tests of the "NCCL", "cuDNN" and "cuBLAS" rows (-t cublas,cudnn,nccl): one row per
// library under the thread that called it, above its CUDA API row, the calls drawn and named,
// and tooltips with the status and NCCL's arguments.
#include <gtest/gtest.h>

#include "model/core/ReportBuilder.h"
#include "tests/viewer/TrackRowFixture.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TrackRow.h"

using namespace sl;
using namespace sl::viewer;

namespace {

constexpr int64_t kOrigin = 1'000'000'000, kMs = 1'000'000;

std::shared_ptr<Report> makeLibs() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.startMonotonicNs = kOrigin;
    r.session.durationNs = 10 * kMs;
    b.ensureProcess(100).name = "train";
    b.ensureThread(100, 100).name = "train";
    auto lib = [&](EventKind k, const char* name, int64_t s, int64_t e, int64_t status) {
        const int64_t x[] = {0xa0, 0x5150, status};
        b.addRaw(TrackKey::forThread(k, 100, 100), kOrigin + s, kOrigin + e, b.intern(name), x);
    };
    lib(EventKind::Cublas, "cublasSgemm_v2", 1 * kMs, 2 * kMs, 0);
    lib(EventKind::Cudnn, "cudnnConvolutionForward", 3 * kMs, 4 * kMs, 1001);
    const int64_t all[] = {0xc0, 0x5150, 0, 1024, 4096, 7, 0, -1, 1, 4};
    b.addRaw(TrackKey::forThread(EventKind::Nccl, 100, 100), kOrigin + 5 * kMs, kOrigin + 6 * kMs,
             b.intern("ncclAllReduce"), all);
    b.add(CudaApiCall{100, 100, kOrigin + kMs + kMs / 4, kOrigin + kMs + kMs / 2, b.intern("cudaLaunchKernel"), 1,
                      211, ApiKind::Runtime, 0});
    return b.finish();
}

class CudaLibRow : public test::TrackRowFixture {
protected:
    CudaLibRow() : TrackRowFixture(makeLibs()) {}
    static constexpr const char* kThread = "Process 100 (train)/Thread 100 (train)";
    TrackRow* row(const std::string& title) {
        return dynamic_cast<TrackRow*>(root->find(std::string(kThread) + "/" + title));
    }
};

TEST_F(CudaLibRow, EachLibraryHasItsRowAboveTheCudaApiRow) {
    Row* thread = root->find(kThread);
    ASSERT_NE(thread, nullptr);
    std::vector<std::string> titles;
    for (const auto& c : thread->children()) titles.push_back(c->title());
    EXPECT_EQ(titles, (std::vector<std::string>{"NCCL", "cuDNN", "cuBLAS", "CUDA API"}));
    for (const char* t : {"NCCL", "cuDNN", "cuBLAS"}) {
        ASSERT_NE(row(t), nullptr) << t;
        EXPECT_EQ(row(t)->count(), 1u) << t;
    }
}

TEST_F(CudaLibRow, CallsAreDrawnWhereTheyRanWithTheirNames) {
    const TrackRow& blas = *row("cuBLAS");
    EXPECT_NE(pixel(blas, 150), 0u);  // 1.5 ms: the Sgemm
    EXPECT_EQ(pixel(blas, 250), 0u);  // 2.5 ms: nothing
    EXPECT_NE(pixel(*row("NCCL"), 550), 0u);
    DrawList out;
    blas.build(context(blas), out);
    bool named = false;
    for (const DrawLabel& l : out.labels) named |= l.text == "cublasSgemm_v2";
    EXPECT_TRUE(named);
}

TEST_F(CudaLibRow, TooltipsGiveStatusAndNcclArguments) {
    std::string name;
    auto nccl = fields(*row("NCCL"), 550, 0, &name);
    EXPECT_EQ(name, "ncclAllReduce");
    EXPECT_EQ(nccl["Status"], "0 (success)");
    EXPECT_EQ(nccl["Data type"], "ncclFloat32");
    EXPECT_EQ(nccl["Reduction"], "ncclSum");
    EXPECT_EQ(nccl["Rank"], "1 of 4");
    EXPECT_EQ(nccl.count("Root or peer rank"), 0u);
    EXPECT_NE(nccl["Bytes"].find("(4096 B)"), std::string::npos) << nccl["Bytes"];
    auto dnn = fields(*row("cuDNN"), 350, 0, &name);
    EXPECT_EQ(name, "cudnnConvolutionForward");
    EXPECT_EQ(dnn["Status"], "1001 (error)");
    EXPECT_EQ(dnn.count("Data type"), 0u);
}

}  // namespace
