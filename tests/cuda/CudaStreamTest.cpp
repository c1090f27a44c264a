// The CUDA stream file: what the injection library writes and the launcher merges.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "capture/cupti/CudaCorrelation.h"
#include "capture/cupti/CudaStreamFormat.h"
#include "capture/cupti/CudaStreamMerge.h"
#include "capture/cupti/CudaStreamReader.h"
#include "capture/cupti/CudaStreamWriter.h"
#include "capture/cupti/ReportBuilderSink.h"

namespace sl::cuda {
namespace {

constexpr int64_t kPid = 777;

class TempDir {
public:
    TempDir() {
        std::string t = (std::filesystem::temp_directory_path() / "sl-cuda-test-XXXXXX").string();
        m_path = ::mkdtemp(t.data());
    }
    ~TempDir() { std::filesystem::remove_all(m_path); }
    std::string file(const std::string& n) const { return m_path + "/" + n; }
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

// Writes one of everything through any sink.
void produceEverything(CudaSink& s) {
    Gpu g;
    g.deviceId = 0;
    g.name = "NVIDIA H200";
    g.uuid = "GPU-1";
    g.smCount = 132;
    g.memoryBytes = 1LL << 37;
    s.addGpu(g);
    s.addContext(CudaContext{kPid, 0, 1, "ctx"});
    s.addStream(CudaStream{kPid, 0, 1, 13, -1, 2, false, "copies"});
    s.add(CudaApiCall{kPid, kPid, 100, 200, s.intern("cudaLaunchKernel"), 5, 211, ApiKind::Runtime,
                      0});
    s.add(
        CudaApiCall{kPid, kPid, 300, 400, s.intern("cudaMemcpyAsync"), 6, 41, ApiKind::Runtime, 0});
    KernelExec k;
    k.place = {kPid, 0, 1, 13};
    k.start = 250;
    k.end = 260;
    k.name = s.intern("kern()");
    k.correlation = 5;
    k.launch.mangledName = s.intern("_Z4kernv");
    k.launch.shortName = s.intern("kern");
    k.launch.grid[0] = 7;
    k.launch.block[0] = 64;
    s.add(k);
    k.start = 270;
    k.end = 280;
    s.add(k);  // same launch: one Launch frame
    MemcpyOp m;
    m.place = {kPid, 0, 1, 13};
    m.start = 410;
    m.end = 420;
    m.correlation = 6;
    m.bytes = 4096;
    m.copyKind = CopyKind::HtoD;
    m.srcKind = MemoryKind::Pinned;
    m.dstKind = MemoryKind::Device;
    m.dstDevice = 0;
    m.flags = 1;
    s.add(m);
    s.add(MemsetOp{{kPid, 0, 1, 13}, 430, 440, 7, 64, 0, MemoryKind::Device});
    s.add(SyncOp{{kPid, 0, 1, 13}, 450, 460, 8, SyncType::StreamSynchronize, 0});
    s.add(GraphExec{{kPid, 0, 1, 13}, 470, 480, s.intern("CUDA graph 1"), 9, 1});
    s.add(CudaMemoryEvent{kPid, 0, 490, 0x1000, 64, MemoryKind::Device, MemoryOp::Alloc, 10});
    s.add(CuptiOverheadEvent{kPid, kPid, 500, 510, 0x81});
    s.addSeries(MetricSeries{3, "CUDA memory pool 0x1 size", "bytes", "cupti", 0, kPid});
    s.add(MetricSample{3, 520, 1024.0});
    s.addDiagnostic("cuda.records_dropped", 4, "CUPTI dropped records", kPid);
}

std::shared_ptr<Report> direct() {
    ReportBuilder b;
    ReportBuilderSink sink(b);
    produceEverything(sink);
    return b.finish();
}

std::shared_ptr<Report> viaStream(const std::vector<uint8_t>& bytes,
                                  Result<CudaStreamSummary>* out = nullptr) {
    ReportBuilder b;
    ReportBuilderSink sink(b);
    auto r = readCudaStream(bytes, "test.slcuda", sink);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
    if (out) *out = r;
    return b.finish();
}

std::vector<uint8_t> everythingBytes() {
    CudaStreamWriter w(-1, kPid);
    produceEverything(w);
    return w.bytes();
}

void expectSameReport(const Report& a, const Report& b) {
    ASSERT_EQ(a.tracks.size(), b.tracks.size());
    for (const auto& ta : a.tracks) {
        const Track* tb = b.findTrack(ta.key);
        ASSERT_NE(tb, nullptr);
        ASSERT_EQ(ta.size(), tb->size());
        for (size_t i = 0; i < ta.size(); ++i) {
            EXPECT_EQ(ta.start[i], tb->start[i]);
            EXPECT_EQ(ta.endAt(i), tb->endAt(i));
            EXPECT_EQ(a.str(ta.nameAt(i)), b.str(tb->nameAt(i)));
            for (size_t c = 0; c < ta.cols.size(); ++c) {
                if (ta.key.kind != EventKind::Kernel || c != cols::Kernel::Launch) {
                    EXPECT_EQ(ta.cols[c].intAt(i), tb->cols[c].intAt(i)) << "column " << c;
                }
            }
        }
    }
    ASSERT_EQ(a.kernelLaunches.size(), b.kernelLaunches.size());
    EXPECT_EQ(b.str(b.kernelLaunches[0].mangledName), "_Z4kernv");
    EXPECT_EQ(b.str(b.kernelLaunches[0].shortName), "kern");
    EXPECT_EQ(b.kernelLaunches[0].grid[0], 7u);
    ASSERT_EQ(b.gpus.size(), 1u);
    EXPECT_EQ(b.gpus[0].name, "NVIDIA H200");
    EXPECT_EQ(b.gpus[0].smCount, 132);
    ASSERT_EQ(b.contexts.size(), 1u);
    EXPECT_EQ(b.contexts[0].name, "ctx");
    ASSERT_EQ(b.streams.size(), 1u);
    EXPECT_EQ(b.streams[0].name, "copies");
    EXPECT_EQ(b.streams[0].priority, -1);
    ASSERT_EQ(b.metricSeries.size(), 1u);
    EXPECT_EQ(b.metricSeries[0].name, "CUDA memory pool 0x1 size");
    EXPECT_EQ(b.diagnosticCount("cuda.records_dropped"), 4);
}

TEST(CudaStream, ReplayEqualsDirectConversion) {
    auto a = direct();
    Result<CudaStreamSummary> sum = CudaStreamSummary{};
    auto b = viaStream(everythingBytes(), &sum);
    expectSameReport(*a, *b);
    EXPECT_EQ(sum->pid, kPid);
    EXPECT_EQ(sum->events, 11u);  // 2 API calls, 2 kernels and one of each other event
    EXPECT_FALSE(sum->truncated);
    EXPECT_EQ(b->eventCount(), a->eventCount());
    EXPECT_EQ(b->eventCount(), 11u);
}

TEST(CudaStream, StringsAndLaunchesAreSentOnce) {
    CudaStreamWriter w(-1, kPid);
    uint32_t a = w.intern("cudaLaunchKernel");
    size_t size = w.bytes().size();
    EXPECT_EQ(w.intern("cudaLaunchKernel"), a);
    EXPECT_EQ(w.bytes().size(), size);
    EXPECT_EQ(w.intern(""), 0u);
    KernelExec k;
    w.add(k);
    size_t one = w.bytes().size();
    w.add(k);
    EXPECT_EQ(w.bytes().size() - one, sizeof(FrameHeader) + sizeof(KernelWire));
}

TEST(CudaStream, TruncatedTailKeepsWholeFramesAndIsReported) {
    auto bytes = everythingBytes();
    bytes.resize(bytes.size() - 5);  // the last frame (the diagnostic) loses its end
    Result<CudaStreamSummary> sum = CudaStreamSummary{};
    auto r = viaStream(bytes, &sum);
    EXPECT_TRUE(sum->truncated);
    EXPECT_EQ(r->eventCount(), 11u);
    EXPECT_EQ(r->diagnosticCount("cuda.stream_truncated"), 1);
    EXPECT_EQ(r->diagnosticCount("cuda.records_dropped"), 0);
}

TEST(CudaStream, BadInputGivesAClearError) {
    ReportBuilder b;
    ReportBuilderSink sink(b);
    std::vector<uint8_t> tiny(4, 0);
    auto r1 = readCudaStream(tiny, "a.slcuda", sink);
    ASSERT_FALSE(r1.ok());
    EXPECT_EQ(r1.error(), "a.slcuda: not a Sightline CUDA stream (file shorter than its header)");

    auto bytes = everythingBytes();
    bytes[0] = 'X';
    auto r2 = readCudaStream(bytes, "b.slcuda", sink);
    ASSERT_FALSE(r2.ok());
    EXPECT_EQ(r2.error(), "b.slcuda: not a Sightline CUDA stream (bad magic at byte 0)");

    bytes = everythingBytes();
    uint32_t v = 99;
    std::memcpy(bytes.data() + 8, &v, 4);
    auto r3 = readCudaStream(bytes, "c.slcuda", sink);
    ASSERT_FALSE(r3.ok());
    EXPECT_EQ(r3.error(), "c.slcuda: CUDA stream version 99 is not supported (expected 1)");

    // An API call naming string 50, which the stream never defined.
    CudaStreamWriter w(-1, kPid);
    w.add(CudaApiCall{kPid, kPid, 1, 2, 50, 1, 1, ApiKind::Runtime, 0});
    auto r4 = readCudaStream(w.bytes(), "d.slcuda", sink);
    ASSERT_FALSE(r4.ok());
    EXPECT_EQ(r4.error(),
              "d.slcuda: byte offset 24: a frame refers to a string that is not defined");

    // A frame whose size does not match its tag.
    std::vector<uint8_t> bad(w.bytes().begin(), w.bytes().begin() + sizeof(CudaStreamHeader));
    FrameHeader fh{static_cast<uint16_t>(FrameTag::Kernel), 0, 3};
    bad.insert(bad.end(), reinterpret_cast<uint8_t*>(&fh),
               reinterpret_cast<uint8_t*>(&fh) + sizeof fh);
    bad.insert(bad.end(), {1, 2, 3});
    auto r5 = readCudaStream(bad, "e.slcuda", sink);
    ASSERT_FALSE(r5.ok());
    EXPECT_EQ(r5.error(), "e.slcuda: byte offset 24: a frame has the wrong size for its tag");

    fh.tag = 999;
    std::memcpy(bad.data() + sizeof(CudaStreamHeader), &fh, sizeof fh);
    auto r6 = readCudaStream(bad, "f.slcuda", sink);
    ASSERT_FALSE(r6.ok());
    EXPECT_EQ(r6.error(), "f.slcuda: byte offset 24: unknown frame tag 999");

    auto r7 = readCudaStreamFile("/nonexistent/cuda-1.slcuda", sink);
    ASSERT_FALSE(r7.ok());
    EXPECT_EQ(r7.error(), "/nonexistent/cuda-1.slcuda: cannot open the CUDA stream file");
}

TEST(CudaStream, FileWriterFlushesInPiecesAndMergeReadsEveryProcess) {
    TempDir dir;
    for (int64_t pid : {100, 200}) {
        int fd = ::open(dir.file("cuda-" + std::to_string(pid) + ".slcuda").c_str(),
                        O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ASSERT_GE(fd, 0);
        CudaStreamWriter w(fd, pid);
        // Enough kernels to pass the 1 MiB flush threshold several times.
        KernelExec k;
        k.place = {pid, 0, 1, 13};
        k.name = w.intern("k()");
        for (int i = 0; i < 40000; ++i) {
            k.start = 1000 + 10 * i;
            k.end = k.start + 5;
            k.correlation = static_cast<uint32_t>(i + 1);
            w.add(k);
        }
        // API calls for all but 10 kernels.
        for (int i = 10; i < 40000; ++i)
            w.add(CudaApiCall{pid, pid, 1000 + 10 * i - 3, 1000 + 10 * i - 1,
                              w.intern("cudaLaunchKernel"), static_cast<uint32_t>(i + 1), 211,
                              ApiKind::Runtime, 0});
        EXPECT_TRUE(w.flush());
        EXPECT_GT(w.bytesWritten(), 2u << 20);
        EXPECT_EQ(w.bytesLost(), 0u);
    }
    {
        std::ofstream junk(dir.file("cuda-300.slcuda"));
        junk << "garbage";
    }
    std::ofstream(dir.file("other.bin")) << "not ours";
    ReportBuilder b;
    auto m = mergeCudaStreams(dir.path(), b);
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(m->files, 2);
    EXPECT_EQ(m->events, 2u * 79990u);
    EXPECT_EQ(m->unmatchedGpuOps, 20u);
    auto r = b.finish();
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 80000u);
    EXPECT_EQ(r->eventCount(EventKind::CudaApi), 79980u);
    EXPECT_EQ(r->diagnosticCount("cuda.stream_unreadable"), 1);
    EXPECT_EQ(r->diagnosticCount("cuda.gpu_ops_without_api_call"), 20);
    EXPECT_NE(r->findProcess(100), nullptr);
    EXPECT_NE(r->findProcess(200), nullptr);

    ReportBuilder b2;
    auto bad = mergeCudaStreams(dir.file("missing-dir"), b2);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("cannot list the session directory"), std::string::npos);
}

TEST(CudaCorrelation, CountsGpuOperationsPerProcess) {
    ReportBuilder b;
    b.add(CudaApiCall{1, 1, 0, 10, 0, 5, 211, ApiKind::Runtime, 0});
    KernelExec k;
    k.place = {1, 0, 1, 7};
    k.correlation = 5;
    b.add(k);
    k.place.pid = 2;  // same correlation id in another process: not a match
    b.add(k);
    b.add(MemcpyOp{{1, 0, 1, 7},
                   0,
                   1,
                   6,
                   8,
                   CopyKind::HtoD,
                   MemoryKind::Pinned,
                   MemoryKind::Device,
                   -1,
                   0,
                   0});
    auto s = checkCorrelations(b.report());
    EXPECT_EQ(s.gpuOps, 3u);
    EXPECT_EQ(s.matched, 1u);
    EXPECT_EQ(s.unmatched, 2u);
}

}  // namespace
}  // namespace sl::cuda
