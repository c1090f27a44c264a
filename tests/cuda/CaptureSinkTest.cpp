// The injection library's sink over capture/common: converted CUPTI records become raw-stream
// events and metadata with the columns of model/core/Schema.h. Runs the writer in a child
// process (it owns process-wide state) and reads the stream back.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "capture/cupti/inject/InjectionSink.h"
#include "tests/cuda/CuptiTestUtil.h"
#include "tests/cuda/RawStreamUtil.h"

namespace sl::cuda::test {
namespace {

using capture::MetaKind;

void produce(CudaSink& sink, int64_t pid) {
    CuptiConverter c(sink, pid);
    auto feed = [&](const auto& r) { c.convert(reinterpret_cast<const CUpti_Activity*>(&r)); };
    feed(contextRecord(1, 0, 7));
    auto d = zeroed<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
    d.id = 0;
    d.name = "NVIDIA H200";
    d.numMultiprocessors = 132;
    feed(d);
    feed(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                   100, 200, 5, 999));
    auto k = kernelRecord("_Z6kernelPfi", 300, 400, 5, 13);
    k.gridX = 64;
    feed(k);
    k.start = 500;
    k.end = 600;
    feed(k);
    feed(memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                      CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 4096, 700, 800, 6, true, 14));
    for (int i = 0; i < 3; ++i)
        feed(kernelRecord("_Z6kernelPfi", 0, 0, 7));  // no time: 3 diagnostics, one total
    c.droppedRecords(1, 13, 42);
    c.finish();
}

TEST(CaptureSink, ConvertedRecordsReachTheRawStreamWithSchemaColumns) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sl-capsink-XXXXXX").string();
    std::string dir = mkdtemp(tmpl.data());
    pid_t child = fork();
    if (child == 0) {
        setenv("SIGHTLINE_SESSION_DIR", dir.c_str(), 1);
        std::string why;
        auto sink = makeInjectionSink(getpid(), why);
        if (!sink) _exit(3);
        produce(*sink, getpid());
        sink->close();
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);

    auto raw = readModuleStreams(dir, "cupti");
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(raw.error.empty()) << raw.error;
    ASSERT_EQ(raw.files, 1);
    EXPECT_EQ(raw.pid, child);

    std::map<EventKind, std::vector<const RawEvent*>> byKind;
    for (const auto& e : raw.events) byKind[static_cast<EventKind>(e.rec.kind)].push_back(&e);
    ASSERT_EQ(byKind[EventKind::CudaApi].size(), 1u);
    const RawEvent& api = *byKind[EventKind::CudaApi][0];
    EXPECT_EQ(api.rec.tid, 999);
    EXPECT_EQ(api.name, "cudaLaunchKernel");
    EXPECT_EQ(api.cols,
              (std::vector<int64_t>{5, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 0}));

    ASSERT_EQ(byKind[EventKind::Kernel].size(), 2u);
    const RawEvent& k = *byKind[EventKind::Kernel][0];
    EXPECT_EQ(k.name, "kernel(float*, int)");
    EXPECT_EQ(k.rec.start, 300);
    EXPECT_EQ(k.rec.end, 400);
    EXPECT_EQ(k.rec.device, 0);
    EXPECT_EQ(k.rec.context, 1u);
    EXPECT_EQ(k.rec.stream, 13u);
    ASSERT_EQ(k.cols.size(), 2u);
    EXPECT_EQ(k.cols[0], 5);
    EXPECT_EQ(byKind[EventKind::Kernel][1]->cols[1], k.cols[1]);  // one launch configuration

    ASSERT_EQ(byKind[EventKind::Memcpy].size(), 1u);
    EXPECT_EQ(byKind[EventKind::Memcpy][0]->cols,
              (std::vector<int64_t>{6, 4096, int64_t(CopyKind::HtoD), int64_t(MemoryKind::Pinned),
                                    int64_t(MemoryKind::Device), -1, 0, 1}));

    int launches = 0, gpus = 0, contexts = 0, streams = 0;
    std::map<std::string, int64_t> diags;
    for (const auto& m : raw.metas) {
        switch (m.kind) {
            case MetaKind::KernelLaunch:
                ++launches;
                EXPECT_EQ(m.ints.at(0), k.cols[1]);
                EXPECT_EQ(m.ints.at(1), 64);
                EXPECT_EQ(m.ints.at(4), 128);
                EXPECT_EQ(m.strs.at(0), "_Z6kernelPfi");
                EXPECT_EQ(m.strs.at(1), "kernel");
                break;
            case MetaKind::Gpu:
                ++gpus;
                EXPECT_EQ(m.strs.at(0), "NVIDIA H200");
                EXPECT_EQ(m.ints.at(1), 132);
                break;
            case MetaKind::Context:
                ++contexts;
                break;
            case MetaKind::Stream:
                ++streams;
                EXPECT_EQ(m.ints.at(2), 7);  // the null stream
                EXPECT_EQ(m.ints.at(5), 1);
                break;
            case MetaKind::Diagnostic:
                diags[m.strs.at(0)] += m.ints.at(0);
                break;
            default:
                break;
        }
    }
    EXPECT_EQ(launches, 1);
    EXPECT_EQ(gpus, 1);
    EXPECT_EQ(contexts, 1);
    EXPECT_EQ(streams, 1);
    EXPECT_EQ(diags["cuda.records_without_time"], 3);
    EXPECT_EQ(diags["cuda.records_dropped"], 42);
}

TEST(CaptureSink, WithoutSessionDirectoryItSaysWhy) {
    pid_t child = fork();
    if (child == 0) {
        unsetenv("SIGHTLINE_SESSION_DIR");
        std::string why;
        auto sink = makeInjectionSink(getpid(), why);
        _exit(!sink && why.find("SIGHTLINE_SESSION_DIR") != std::string::npos ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace sl::cuda::test
