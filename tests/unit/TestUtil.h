#pragma once
// Helpers shared by the model tests: temporary directories and a report with every entity
// and event kind filled with distinctive values.
#include <unistd.h>

#include <bit>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "model/core/ReportBuilder.h"

namespace sl::test {

class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "sightline-test-XXXXXX").string();
        m_path = ::mkdtemp(tmpl.data());
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    std::string file(const std::string& name) const { return (std::filesystem::path(m_path) / name).string(); }
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

inline std::shared_ptr<Report> makeEveryKindReport() {
    ReportBuilder b;
    Report& r = b.report();
    r.session.argv = {"./app", "--flag", "arg with space"};
    r.session.workingDirectory = "/work";
    r.session.environment = {{"CUDA_VISIBLE_DEVICES", "0,1"}, {"OMP_NUM_THREADS", "8"}};
    r.session.hostName = "host";
    r.session.os = "Linux 6.1";
    r.session.cpuModel = "Test CPU";
    r.session.toolVersion = "0.1.0";
    r.session.captureOptions = "-t cuda,nvtx";
    r.session.source = "capture";
    r.session.startUtcNs = 1'700'000'000'123'456'789;
    r.session.startMonotonicNs = 5'000;
    r.session.durationNs = 1'000'000;
    r.processes.push_back({100, 1, "app", "./app --flag", 5'000, 900'000, 3, 0});
    r.processes.push_back({101, 100, "child", "child", 6'000, kUnknownTime, 0, 9});
    r.processes[0].mpiRank = 2;
    r.processes[0].mpiWorldSize = 4;
    r.threads.push_back({100, 100, "main", 5'000, 900'000});
    r.threads.push_back({102, 100, "worker", kUnknownTime, kUnknownTime});
    Gpu g;
    g.deviceId = 0; g.name = "NVIDIA H200"; g.uuid = "GPU-abc"; g.pciBusId = "0000:01:00.0"; g.smCount = 132;
    g.memoryBytes = 141LL << 30; g.computeMajor = 9; g.computeMinor = 0; g.smClockKHz = 1980000;
    g.memoryClockKHz = 2619000; g.memoryBandwidthBytesPerSec = 4'800'000'000'000;
    r.gpus.push_back(g);
    r.contexts.push_back({100, 0, 1, "ctx"});
    r.streams.push_back({100, 0, 1, 7, -1, 1, false, "compute"});
    r.nvtxDomains.push_back({100, 1, "MyDomain"});
    r.nvtxCategories.push_back({100, 1, 3, "IO"});
    r.metricSeries.push_back({1, "GPU utilization", "%", "nvml", 0, 0});
    r.diagnostics.push_back({"nvtx.events_dropped", 12, "buffer full", 100});
    r.programOutput.push_back({100, 1, 7'000, "hello\n"});

    b.add(OsRuntimeCall{100, 100, 10'000, 20'000, b.intern("read"), -1, 4});
    b.add(CudaApiCall{100, 100, 30'000, 40'000, b.intern("cudaLaunchKernel"), 77, 211, ApiKind::Runtime, 0});
    b.add(CudaApiCall{100, 100, 31'000, 39'000, b.intern("cuLaunchKernel"), 78, 307, ApiKind::Driver, 1});
    KernelExec k;
    k.place = {100, 0, 1, 7};
    k.start = 45'000; k.end = 55'000; k.name = b.intern("kern(int)"); k.correlation = 77;
    k.launch.mangledName = b.intern("_Z4kerni"); k.launch.shortName = b.intern("kern");
    k.launch.grid[0] = 10; k.launch.grid[1] = 2; k.launch.grid[2] = 1;
    k.launch.block[0] = 256; k.launch.block[1] = 1; k.launch.block[2] = 1;
    k.launch.registersPerThread = 32; k.launch.staticSharedBytes = 1024; k.launch.dynamicSharedBytes = 2048;
    k.launch.localBytesPerThread = 16; k.launch.launchType = LaunchType::CooperativeSingle; k.launch.graphId = 5;
    k.launch.graphNodeId = 0x1234567890ULL;
    b.add(k);
    MemcpyOp m;
    m.place = {100, 0, 1, 7}; m.start = 60'000; m.end = 61'000; m.correlation = 80; m.bytes = 1ull << 33;
    m.copyKind = CopyKind::HtoD; m.srcKind = MemoryKind::Pinned; m.dstKind = MemoryKind::Device;
    m.srcDevice = -1; m.dstDevice = 0; m.flags = 1;
    b.add(m);
    b.add(MemsetOp{{100, 0, 1, 7}, 62'000, 63'000, 81, 4096, 0xAB, MemoryKind::Device});
    b.add(SyncOp{{100, 0, 1, 7}, 64'000, 65'000, 82, SyncType::StreamSynchronize, 9});
    b.add(GraphExec{{100, 0, 1, 7}, 66'000, 67'000, b.intern("graph"), 83, 5});
    NvtxRangeEvent n;
    n.pid = 100; n.tid = 100; n.domain = 1; n.start = 8'000; n.end = 90'000; n.message = b.intern("outer");
    n.category = 3; n.color = 0xFF00FF00; n.payloadType = PayloadType::F64;
    n.payload = std::bit_cast<uint64_t>(2.5); n.rangeType = RangeType::StartEnd; n.endTid = 102;
    b.add(n);
    b.add(NvtxMarkEvent{100, 100, 1, 12'345, b.intern("mark"), 3, 0xFFFF0000, PayloadType::I32, 0xFFFFFFFFull});
    b.add(MetricSample{1, 10'000, 42.5});
    b.add(MetricSample{1, 20'000, -1.25});
    b.add(CudaMemoryEvent{100, 0, 44'000, 0x7f0000000000ull, 1 << 20, MemoryKind::Device, MemoryOp::Alloc, 76});
    b.add(ThreadRunning{100, 102, 1'000, 2'000, 3});
    b.add(CuptiOverheadEvent{100, 100, 70'000, 71'000, 2});
    {
        // An MPI_Send to rank 3 and an OpenMP loop, through the generic path capture uses.
        const int64_t send[] = {static_cast<int64_t>(MpiCallClass::P2p), 0x7f00aa, 3, 7, -1, 1024, 0, 0};
        b.addRaw(TrackKey::forThread(EventKind::Mpi, 100, 100), 72'000, 73'000, b.intern("MPI_Send"), send);
        const int64_t loop[] = {static_cast<int64_t>(OpenMpEvent::Work), 1, 1, 2, 1000, -1, 0x401234};
        b.addRaw(TrackKey::forThread(EventKind::OpenMp, 100, 102), 74'000, 75'000, b.intern("loop"), loop);
        // A cuBLAS Sgemm and a cuDNN convolution on a handle's stream, an NCCL all-reduce of
        // 1024 floats (rank 1 of 4).
        const int64_t gemm[] = {0x5500a0, 0x5150, 0};
        b.addRaw(TrackKey::forThread(EventKind::Cublas, 100, 100), 76'000, 77'000, b.intern("cublasSgemm_v2"), gemm);
        const int64_t conv[] = {0x5500b0, 0x5150, 0};
        b.addRaw(TrackKey::forThread(EventKind::Cudnn, 100, 100), 77'500, 78'000,
                 b.intern("cudnnConvolutionForward"), conv);
        const int64_t allReduce[] = {0x7700c0, 0x5150, 0, 1024, 4096, 7, 0, -1, 1, 4};
        b.addRaw(TrackKey::forThread(EventKind::Nccl, 100, 100), 78'500, 79'000, b.intern("ncclAllReduce"),
                 allReduce);
    }
    {
        // Two samples sharing a stack (main -> work), one with an unresolved leaf.
        const uint32_t exe = b.intern("/usr/bin/app"), libc = b.intern("/usr/lib/libc.so.6");
        const uint32_t work = b.frameId({b.intern("work(int)"), exe, 0x1200});
        const uint32_t mainFrame = b.frameId({b.intern("main"), exe, 0x1000});
        const uint32_t raw = b.frameId({0, libc, 0x9abc});
        const uint32_t s1 = b.stackId({work, mainFrame});
        const uint32_t s2 = b.stackId({raw, work, mainFrame});
        b.add(CpuSampleEvent{100, 101, 5'000, s1, b.intern("work(int)"), 1});
        b.add(CpuSampleEvent{100, 101, 6'000, b.stackId({work, mainFrame}), b.intern("work(int)"), 0});
        b.add(CpuSampleEvent{100, 101, 7'000, s2, 0, 1});
    }
    return b.finish();
}

// Every track of `a` equals `b`'s: keys, times, lanes, names (as strings: the two reports may
// intern them differently), every column (doubles as doubles) and the time bounds.
inline void expectSameTracks(const Report& a, const Report& b) {
    ASSERT_EQ(a.tracks.size(), b.tracks.size());
    for (size_t i = 0; i < a.tracks.size(); ++i) {
        const Track& x = a.tracks[i];
        const Track& y = b.tracks[i];
        SCOPED_TRACE(a.trackTitle(x));
        EXPECT_EQ(x.key, y.key);
        EXPECT_EQ(x.start, y.start);
        EXPECT_EQ(x.end, y.end);
        EXPECT_EQ(x.laneOffsets, y.laneOffsets);
        ASSERT_EQ(x.name.size(), y.name.size());
        for (size_t k = 0; k < x.name.size(); ++k) EXPECT_EQ(a.str(x.name[k]), b.str(y.name[k]));
        ASSERT_EQ(x.cols.size(), y.cols.size());
        for (size_t c = 0; c < x.cols.size(); ++c)
            for (size_t k = 0; k < x.size(); ++k) {
                if (x.cols[c].type() == ColumnType::F64)
                    EXPECT_EQ(x.cols[c].view<double>()[k], y.cols[c].view<double>()[k]);
                else
                    EXPECT_EQ(x.cols[c].intAt(k), y.cols[c].intAt(k));
            }
        EXPECT_EQ(x.tMin, y.tMin);
        EXPECT_EQ(x.tMax, y.tMax);
    }
}

}  // namespace sl::test
