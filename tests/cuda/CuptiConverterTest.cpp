// CuptiConverter on synthetic records of every kind it converts, plus the odd cases: zero
// durations, end before start, records without time, out-of-order arrival, unknown contexts
// and correlation ids, dropped-record reports, unknown kinds.
#include <gtest/gtest.h>

#include <map>

#include "tests/cuda/CuptiTestUtil.h"

namespace sl::cuda::test {
namespace {

TEST(CuptiConverter, KernelCarriesNamesLaunchConfigurationAndPlace) {
    Harness h;
    auto k = kernelRecord("_ZN2ns6scaledIfEEvPT_S2_i", 1000, 3000, 77, 13, 1, 2);
    k.gridX = 64;
    k.gridY = 2;
    k.gridZ = 3;
    k.blockX = 256;
    k.blockY = 4;
    k.blockZ = 1;
    k.registersPerThread = 40;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 4096;
    k.localMemoryPerThread = 24;
    k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE;
    k.graphId = 9;
    k.graphNodeId = 0xABCDEF0123ULL;
    auto r = h.feed(k).finish();

    const Track* t = onlyTrack(*r, EventKind::Kernel);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->key, TrackKey::forStream(EventKind::Kernel, kPid, 1, 2, 13));
    ASSERT_EQ(t->size(), 1u);
    EXPECT_EQ(t->start[0], 1000);
    EXPECT_EQ(t->end[0], 3000);
    EXPECT_EQ(r->str(t->name[0]), "void ns::scaled<float>(float*, float*, int)");
    EXPECT_EQ(t->intAt(cols::Kernel::Correlation, 0), 77);
    const KernelLaunchInfo& l =
        r->kernelLaunches.at(static_cast<size_t>(t->intAt(cols::Kernel::Launch, 0)));
    EXPECT_EQ(r->str(l.mangledName), "_ZN2ns6scaledIfEEvPT_S2_i");
    EXPECT_EQ(r->str(l.shortName), "scaled");
    EXPECT_EQ(l.grid[0], 64u);
    EXPECT_EQ(l.grid[1], 2u);
    EXPECT_EQ(l.grid[2], 3u);
    EXPECT_EQ(l.block[0], 256u);
    EXPECT_EQ(l.block[1], 4u);
    EXPECT_EQ(l.block[2], 1u);
    EXPECT_EQ(l.registersPerThread, 40u);
    EXPECT_EQ(l.staticSharedBytes, 1024u);
    EXPECT_EQ(l.dynamicSharedBytes, 4096u);
    EXPECT_EQ(l.localBytesPerThread, 24u);
    EXPECT_EQ(l.launchType, LaunchType::CooperativeSingle);
    EXPECT_EQ(l.graphId, 9u);
    EXPECT_EQ(l.graphNodeId, 0xABCDEF0123ULL);
    EXPECT_TRUE(r->diagnostics.empty());
}

TEST(CuptiConverter, RepeatedLaunchesShareOneLaunchConfiguration) {
    Harness h;
    for (int i = 0; i < 5; ++i)
        h.feed(kernelRecord("_Z5emptyv", 100 + 10 * i, 105 + 10 * i, 1 + i));
    h.feed(kernelRecord("_Z5otherv", 500, 600, 9));
    auto r = h.finish();
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 6u);
    EXPECT_EQ(r->kernelLaunches.size(), 2u);
    EXPECT_EQ(h.converter().stats().converted, 6u);
}

TEST(CuptiConverter, ZeroDurationKernelIsKept) {
    Harness h;
    auto r = h.feed(kernelRecord("_Z5emptyv", 5000, 5000, 1)).finish();
    const Track* t = onlyTrack(*r, EventKind::Kernel);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 1u);
    EXPECT_EQ(t->durationAt(0), 0);
    EXPECT_TRUE(r->diagnostics.empty());
}

TEST(CuptiConverter, EndBeforeStartIsClampedAndCounted) {
    Harness h;
    auto r = h.feed(kernelRecord("_Z5emptyv", 5000, 4000, 1))
                 .feed(kernelRecord("_Z5emptyv", 6000, 5500, 2))
                 .finish();
    const Track* t = onlyTrack(*r, EventKind::Kernel);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 2u);
    EXPECT_EQ(t->durationAt(0), 0);
    EXPECT_EQ(t->durationAt(1), 0);
    EXPECT_EQ(r->diagnosticCount("cuda.end_before_start"), 2);
    EXPECT_EQ(h.converter().stats().clampedEnd, 2u);
}

TEST(CuptiConverter, RecordsWithoutTimestampsAreLeftOutAndCounted) {
    Harness h;
    h.feed(kernelRecord("_Z5emptyv", 0, 0, 1));
    h.feed(memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 16, 0, 0, 2, true));
    h.feed(kernelRecord("_Z5emptyv", 10, 20, 3));
    auto r = h.finish();
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 1u);
    EXPECT_EQ(r->eventCount(EventKind::Memcpy), 0u);
    EXPECT_EQ(r->diagnosticCount("cuda.records_without_time"), 2);
}

TEST(CuptiConverter, OutOfOrderRecordsEndUpSorted) {
    Harness h;
    h.feed(kernelRecord("_Z1cv", 3000, 3500, 3));
    h.feed(kernelRecord("_Z1av", 1000, 1500, 1));
    h.feed(kernelRecord("_Z1bv", 2000, 2500, 2));
    auto r = h.finish();
    const Track* t = onlyTrack(*r, EventKind::Kernel);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 3u);
    EXPECT_EQ(t->start[0], 1000);
    EXPECT_EQ(t->start[1], 2000);
    EXPECT_EQ(t->start[2], 3000);
    EXPECT_EQ(r->str(t->name[0]), "a()");
    EXPECT_EQ(t->intAt(cols::Kernel::Correlation, 2), 3);
}

TEST(CuptiConverter, MemcpyKindsMapToNsysEnums) {
    Harness h;
    h.feed(memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 1 << 20, 100, 200, 10, true));
    h.feed(memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, 4096, 300, 400, 11, false));
    h.feed(memcpyRecord(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, 8, 500, 600, 12, true));
    auto r = h.finish();
    const Track* t = onlyTrack(*r, EventKind::Memcpy);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 3u);
    using C = cols::Memcpy;
    EXPECT_EQ(t->intAt(C::CopyKind, 0), int(CopyKind::HtoD));
    EXPECT_EQ(t->intAt(C::SrcKind, 0), int(MemoryKind::Pinned));
    EXPECT_EQ(t->intAt(C::DstKind, 0), int(MemoryKind::Device));
    EXPECT_EQ(t->intAt(C::SrcDevice, 0), -1);
    EXPECT_EQ(t->intAt(C::DstDevice, 0), 0);
    EXPECT_EQ(t->intAt(C::Flags, 0), 1);
    EXPECT_EQ(t->intAt(C::Bytes, 0), 1 << 20);
    EXPECT_EQ(t->intAt(C::Correlation, 0), 10);
    EXPECT_EQ(t->intAt(C::CopyKind, 1), int(CopyKind::DtoH));
    EXPECT_EQ(t->intAt(C::SrcKind, 1), int(MemoryKind::Device));
    EXPECT_EQ(t->intAt(C::DstKind, 1), int(MemoryKind::Pageable));
    EXPECT_EQ(t->intAt(C::SrcDevice, 1), 0);
    EXPECT_EQ(t->intAt(C::DstDevice, 1), -1);
    EXPECT_EQ(t->intAt(C::Flags, 1), 0);
    EXPECT_EQ(t->intAt(C::CopyKind, 2), int(CopyKind::DtoD));
    EXPECT_EQ(t->intAt(C::DstKind, 2), int(MemoryKind::Managed));
    EXPECT_EQ(t->intAt(C::DstDevice, 2), 0);
}

TEST(CuptiConverter, EveryCuptiMemoryKindHasAModelKind) {
    EXPECT_EQ(memoryKindFromCupti(CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN), MemoryKind::Unknown);
    EXPECT_EQ(memoryKindFromCupti(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE), MemoryKind::Pageable);
    EXPECT_EQ(memoryKindFromCupti(CUPTI_ACTIVITY_MEMORY_KIND_PINNED), MemoryKind::Pinned);
    EXPECT_EQ(memoryKindFromCupti(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE), MemoryKind::Device);
    EXPECT_EQ(memoryKindFromCupti(CUPTI_ACTIVITY_MEMORY_KIND_ARRAY), MemoryKind::Array);
    EXPECT_EQ(memoryKindFromCupti(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED), MemoryKind::Managed);
    EXPECT_EQ(memoryKindFromCupti(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC),
              MemoryKind::DeviceStatic);
    EXPECT_EQ(memoryKindFromCupti(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC),
              MemoryKind::ManagedStatic);
    EXPECT_EQ(memoryKindFromCupti(99), MemoryKind::Unknown);
    EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP), CopyKind::PtoP);
    EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH), CopyKind::HtoH);
    EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_ATOD), CopyKind::AtoD);
    EXPECT_EQ(copyKindFromCupti(42), CopyKind::Unknown);
    EXPECT_EQ(syncTypeFromCupti(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT),
              SyncType::StreamWaitEvent);
    EXPECT_EQ(syncTypeFromCupti(77), SyncType::Unknown);
    EXPECT_EQ(launchTypeFromCupti(CUPTI_ACTIVITY_LAUNCH_TYPE_CBL_COMMANDLIST),
              LaunchType::CbpSingle);
}

TEST(CuptiConverter, PeerCopyKeepsBothDevices) {
    Harness h;
    auto p = zeroed<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2);
    p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    p.srcKind = p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    p.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
    p.bytes = 1 << 24;
    p.start = 700;
    p.end = 900;
    p.deviceId = 0;
    p.contextId = 1;
    p.streamId = 14;
    p.srcDeviceId = 0;
    p.dstDeviceId = 3;
    p.correlationId = 55;
    auto r = h.feed(p).finish();
    const Track* t = onlyTrack(*r, EventKind::Memcpy);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->key, TrackKey::forStream(EventKind::Memcpy, kPid, 0, 1, 14));
    EXPECT_EQ(t->intAt(cols::Memcpy::CopyKind, 0), int(CopyKind::PtoP));
    EXPECT_EQ(t->intAt(cols::Memcpy::SrcDevice, 0), 0);
    EXPECT_EQ(t->intAt(cols::Memcpy::DstDevice, 0), 3);
    EXPECT_EQ(t->intAt(cols::Memcpy::Bytes, 0), 1 << 24);
}

TEST(CuptiConverter, Memset) {
    Harness h;
    auto m = zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
    m.value = 0xAB;
    m.bytes = 12345;
    m.start = 10;
    m.end = 30;
    m.contextId = 1;
    m.streamId = 13;
    m.correlationId = 8;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    auto r = h.feed(m).finish();
    const Track* t = onlyTrack(*r, EventKind::Memset);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->intAt(cols::Memset::Bytes, 0), 12345);
    EXPECT_EQ(t->intAt(cols::Memset::Value, 0), 0xAB);
    EXPECT_EQ(t->intAt(cols::Memset::MemKind, 0), int(MemoryKind::Device));
    EXPECT_EQ(t->intAt(cols::Memset::Correlation, 0), 8);
}

TEST(CuptiConverter, RuntimeAndDriverApiCallsAreNamedFromTheirCbid) {
    Harness h;
    h.feed(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                     100, 900, 21));
    h.feed(apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 200, 800,
                     22));
    auto bad = apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, 60000, 1000, 1100, 23);
    bad.returnValue = 700;
    h.feed(bad);
    auto r = h.finish();
    const Track* t = onlyTrack(*r, EventKind::CudaApi);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->key, TrackKey::forThread(EventKind::CudaApi, kPid, 4243));
    ASSERT_EQ(t->size(), 3u);
    // Nested calls sit on two lanes; find each by correlation.
    std::map<int64_t, size_t> byCorr;
    for (size_t i = 0; i < t->size(); ++i) byCorr[t->intAt(cols::CudaApi::Correlation, i)] = i;
    size_t rt = byCorr.at(21), drv = byCorr.at(22), unk = byCorr.at(23);
    EXPECT_EQ(r->str(t->name[rt]), "cudaLaunchKernel");
    EXPECT_EQ(t->intAt(cols::CudaApi::Api, rt), int(ApiKind::Runtime));
    EXPECT_EQ(t->intAt(cols::CudaApi::Cbid, rt), CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    EXPECT_EQ(r->str(t->name[drv]), "cuLaunchKernel");
    EXPECT_EQ(t->intAt(cols::CudaApi::Api, drv), int(ApiKind::Driver));
    EXPECT_EQ(r->str(t->name[unk]), "CUDA runtime API 60000");
    EXPECT_EQ(t->intAt(cols::CudaApi::Result, unk), 700);
    EXPECT_NE(r->findThread(kPid, 4243), nullptr);
}

TEST(CuptiConverter, SynchronizationWaitsForItsContextRecord) {
    Harness h;
    auto s = zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    s.start = 100;
    s.end = 400;
    s.correlationId = 31;
    s.contextId = 5;
    s.streamId = 13;
    s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
    auto c = s;
    c.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    c.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
    c.start = 500;
    c.end = 600;
    c.correlationId = 32;
    h.feed(s).feed(c);
    EXPECT_EQ(h.builder().eventCount(), 0u);  // device of context 5 not known yet
    h.feed(contextRecord(5, 2));
    auto r = h.finish();
    const Track* st = r->findTrack(TrackKey::forStream(EventKind::Sync, kPid, 2, 5, 13));
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(st->intAt(cols::Sync::SyncType, 0), int(SyncType::StreamSynchronize));
    EXPECT_EQ(st->intAt(cols::Sync::Event, 0), 0);
    EXPECT_EQ(st->intAt(cols::Sync::Correlation, 0), 31);
    const Track* ct = r->findTrack(TrackKey::forStream(EventKind::Sync, kPid, 2, 5, 0));
    ASSERT_NE(ct, nullptr);
    EXPECT_EQ(ct->intAt(cols::Sync::SyncType, 0), int(SyncType::ContextSynchronize));
    EXPECT_TRUE(r->diagnostics.empty());
}

TEST(CuptiConverter, RecordsOfAContextNeverReportedKeepNoDevice) {
    Harness h;
    auto s = zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
    s.start = 1;
    s.end = 2;
    s.contextId = 99;
    s.streamId = 13;
    s.cudaEventId = 4;
    auto st = zeroed<CUpti_ActivityStream>(CUPTI_ACTIVITY_KIND_STREAM);
    st.contextId = 99;
    st.streamId = 13;
    auto r = h.feed(s).feed(st).finish();
    const Track* t = r->findTrack(TrackKey::forStream(EventKind::Sync, kPid, -1, 99, 13));
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->intAt(cols::Sync::Event, 0), 4);
    EXPECT_EQ(r->diagnosticCount("cuda.unknown_context"), 2);
    ASSERT_EQ(r->streams.size(), 1u);
    EXPECT_EQ(r->streams[0].deviceId, -1);
}

TEST(CuptiConverter, CudaEventRecordTakesTheTimeOfItsApiCallWhicheverComesFirst) {
    Harness h;
    auto ev = zeroed<CUpti_ActivityCudaEvent2>(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    ev.correlationId = 41;
    ev.contextId = 1;
    ev.streamId = 13;
    ev.eventId = 6;
    ev.deviceId = 0;
    auto ev2 = ev;
    ev2.correlationId = 42;
    auto ev3 = ev;  // has its own device timestamp
    ev3.correlationId = 43;
    ev3.deviceTimestamp = 7777;
    auto orphan = ev;
    orphan.correlationId = 44;
    h.feed(ev);  // before its API call
    h.feed(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
                     1000, 1100, 41));
    h.feed(apiRecord(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuEventRecord, 2000, 2100,
                     42));
    h.feed(ev2);  // after its API call
    h.feed(ev3).feed(orphan);
    auto r = h.finish();
    const Track* t = r->findTrack(TrackKey::forStream(EventKind::Sync, kPid, 0, 1, 13));
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 3u);
    EXPECT_EQ(t->start[0], 1000);
    EXPECT_EQ(t->start[1], 2000);
    EXPECT_EQ(t->start[2], 7777);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(t->durationAt(i), 0);
        EXPECT_EQ(t->intAt(cols::Sync::SyncType, i), int(SyncType::EventRecord));
        EXPECT_EQ(t->intAt(cols::Sync::Event, i), 6);
    }
    EXPECT_EQ(r->diagnosticCount("cuda.event_records_without_time"), 1);
}

TEST(CuptiConverter, GraphTrace) {
    Harness h;
    auto g = zeroed<CUpti_ActivityGraphTrace2>(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    g.correlationId = 61;
    g.start = 100;
    g.end = 5000;
    g.deviceId = 0;
    g.graphId = 5;
    g.contextId = 1;
    g.streamId = 13;
    auto r = h.feed(g).finish();
    const Track* t = onlyTrack(*r, EventKind::GraphTrace);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(r->str(t->name[0]), "CUDA graph 5");
    EXPECT_EQ(t->intAt(cols::GraphTrace::GraphId, 0), 5);
    EXPECT_EQ(t->intAt(cols::GraphTrace::Correlation, 0), 61);
    EXPECT_EQ(t->durationAt(0), 4900);
}

CUpti_ActivityMemory4 memoryRecord(CUpti_ActivityMemoryOperationType op, uint64_t t, uint64_t addr,
                                   uint64_t bytes) {
    auto m = zeroed<CUpti_ActivityMemory4>(CUPTI_ACTIVITY_KIND_MEMORY2);
    m.memoryOperationType = op;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.correlationId = 70;
    m.address = addr;
    m.bytes = bytes;
    m.timestamp = t;
    m.processId = kPid;
    m.deviceId = 1;
    m.contextId = 1;
    return m;
}

TEST(CuptiConverter, MemoryAllocationsAndFrees) {
    Harness h;
    h.feed(memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 100, 0x7000, 1 << 20));
    h.feed(memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, 900, 0x7000, 1 << 20));
    h.feed(memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID, 950, 0x8000, 1));
    auto r = h.finish();
    const Track* t = onlyTrack(*r, EventKind::CudaMemory);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->key, TrackKey::forProcessDevice(EventKind::CudaMemory, kPid, 1));
    ASSERT_EQ(t->size(), 2u);
    EXPECT_EQ(t->intAt(cols::CudaMemory::Op, 0), int(MemoryOp::Alloc));
    EXPECT_EQ(t->intAt(cols::CudaMemory::Op, 1), int(MemoryOp::Free));
    EXPECT_EQ(t->intAt(cols::CudaMemory::Bytes, 0), 1 << 20);
    EXPECT_EQ(t->intAt(cols::CudaMemory::Address, 1), 0x7000);
    EXPECT_EQ(t->intAt(cols::CudaMemory::MemKind, 0), int(MemoryKind::Device));
    EXPECT_EQ(r->diagnosticCount("cuda.memory_records_invalid"), 1);
}

TEST(CuptiConverter, MemoryRecordsAreIgnoredWithoutCudaMemoryUsage) {
    Harness h(/*keepMemory=*/false);
    h.feed(memoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 100, 0x7000, 1 << 20));
    auto r = h.finish();
    EXPECT_EQ(r->eventCount(EventKind::CudaMemory), 0u);
    EXPECT_EQ(h.converter().stats().ignored, 1u);
}

TEST(CuptiConverter, MemoryPoolSizeBecomesAMetricSeries) {
    Harness h;
    auto p = zeroed<CUpti_ActivityMemoryPool3>(CUPTI_ACTIVITY_KIND_MEMORY_POOL);
    p.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED;
    p.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    p.processId = kPid;
    p.deviceId = 0;
    p.address = 0xbeef00;
    p.size = 1 << 21;
    p.timestamp = 100;
    auto trimmed = p;
    trimmed.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED;
    trimmed.size = 1 << 20;
    trimmed.timestamp = 200;
    auto destroyed = p;
    destroyed.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED;
    destroyed.timestamp = 300;
    auto r = h.feed(p).feed(trimmed).feed(destroyed).finish();
    ASSERT_EQ(r->metricSeries.size(), 1u);
    EXPECT_EQ(r->metricSeries[0].name, "CUDA memory pool 0xbeef00 size");
    EXPECT_EQ(r->metricSeries[0].unit, "bytes");
    EXPECT_EQ(r->metricSeries[0].pid, kPid);
    const Track* t = onlyTrack(*r, EventKind::Metric);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 3u);
    EXPECT_EQ(t->col<double>(cols::Metric::Value)[0], double(1 << 21));
    EXPECT_EQ(t->col<double>(cols::Metric::Value)[1], double(1 << 20));
    EXPECT_EQ(t->col<double>(cols::Metric::Value)[2], 0.0);
}

TEST(CuptiConverter, OverheadRecordsSitOnTheirThread) {
    Harness h;
    auto o = zeroed<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
    o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
    o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    o.objectId.pt.processId = kPid;
    o.objectId.pt.threadId = 4250;
    o.start = 10;
    o.end = 60;
    auto d = o;
    d.overheadKind = CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER;
    d.objectKind = CUPTI_ACTIVITY_OBJECT_DEVICE;
    d.start = 100;
    d.end = 110;
    auto r = h.feed(o).feed(d).finish();
    const Track* t = r->findTrack(TrackKey::forThread(EventKind::CuptiOverhead, kPid, 4250));
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->intAt(cols::CuptiOverhead::OverheadKind, 0), 0x81);
    EXPECT_EQ(overheadKindName(0x81), "CUPTI buffer flush");
    const Track* p = r->findTrack(TrackKey::forThread(EventKind::CuptiOverhead, kPid, 0));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->intAt(cols::CuptiOverhead::OverheadKind, 0), 1);
    EXPECT_EQ(overheadKindName(1), "Driver compiler");
    EXPECT_EQ(overheadKindFromCupti(CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT), 0x88);
}

TEST(CuptiConverter, DeviceRecordBecomesAGpu) {
    Harness h;
    auto d = zeroed<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
    d.id = 1;
    d.name = "NVIDIA H200";
    d.numMultiprocessors = 132;
    d.globalMemorySize = 150ULL << 30;
    d.computeCapabilityMajor = 9;
    d.computeCapabilityMinor = 0;
    d.coreClockRate = 1980000;
    d.globalMemoryBandwidth = 4800000000ULL;  // KB/s
    for (int i = 0; i < 16; ++i) d.uuid.bytes[i] = static_cast<char>(0x10 + i);
    auto r = h.feed(d).finish();
    ASSERT_EQ(r->gpus.size(), 1u);
    const Gpu& g = r->gpus[0];
    EXPECT_EQ(g.deviceId, 1);
    EXPECT_EQ(g.name, "NVIDIA H200");
    EXPECT_EQ(g.uuid, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
    EXPECT_EQ(g.smCount, 132);
    EXPECT_EQ(g.memoryBytes, int64_t(150) << 30);
    EXPECT_EQ(g.computeMajor, 9);
    EXPECT_EQ(g.smClockKHz, 1980000);
    EXPECT_EQ(g.memoryBandwidthBytesPerSec, 4800000000000LL);
}

TEST(CuptiConverter, ContextsStreamsAndTheirNvtxNames) {
    Harness h;
    h.feed(contextRecord(1, 0, 7));
    auto s = zeroed<CUpti_ActivityStream>(CUPTI_ACTIVITY_KIND_STREAM);
    s.contextId = 1;
    s.streamId = 13;
    s.priority = static_cast<uint32_t>(-2);
    s.flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING;
    auto n = zeroed<CUpti_ActivityName>(CUPTI_ACTIVITY_KIND_NAME);
    n.objectKind = CUPTI_ACTIVITY_OBJECT_STREAM;
    n.objectId.dcs.deviceId = 0;
    n.objectId.dcs.contextId = 1;
    n.objectId.dcs.streamId = 13;
    n.name = "copy stream";
    auto cn = n;
    cn.objectKind = CUPTI_ACTIVITY_OBJECT_CONTEXT;
    cn.name = "main context";
    auto r = h.feed(s).feed(n).feed(cn).finish();
    ASSERT_EQ(r->contexts.size(), 1u);
    EXPECT_EQ(r->contexts[0].pid, kPid);
    EXPECT_EQ(r->contexts[0].contextId, 1u);
    EXPECT_EQ(r->contexts[0].name, "main context");
    const CudaStream* def = r->findStream(kPid, 0, 1, 7);
    ASSERT_NE(def, nullptr);
    EXPECT_TRUE(def->isDefault);
    const CudaStream* s13 = r->findStream(kPid, 0, 1, 13);
    ASSERT_NE(s13, nullptr);
    EXPECT_FALSE(s13->isDefault);
    EXPECT_EQ(s13->priority, -2);
    EXPECT_EQ(s13->flags, uint32_t(CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING));
    EXPECT_EQ(s13->name, "copy stream");
}

TEST(CuptiConverter, DroppedRecordReportsAddUp) {
    Harness h;
    h.converter().droppedRecords(1, 13, 100);
    h.converter().droppedRecords(1, 14, 23);
    h.converter().droppedRecords(1, 15, 0);
    auto r = h.finish();
    EXPECT_EQ(r->diagnosticCount("cuda.records_dropped"), 123);
    ASSERT_EQ(r->diagnostics.size(), 1u);
    EXPECT_EQ(r->diagnostics[0].pid, kPid);
    EXPECT_EQ(h.converter().stats().dropped, 123u);
}

TEST(CuptiConverter, UnknownKindsAreCountedAndMarkersIgnored) {
    Harness h;
    auto u = zeroed<CUpti_Activity>(static_cast<CUpti_ActivityKind>(CUPTI_ACTIVITY_KIND_COUNT + 5));
    auto m = zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
    auto r = h.feed(u).feed(u).feed(m).finish();
    EXPECT_EQ(r->diagnosticCount("cuda.unknown_records"), 2);
    EXPECT_EQ(h.converter().stats().unknown, 2u);
    EXPECT_EQ(h.converter().stats().ignored, 1u);
    EXPECT_EQ(r->eventCount(), 0u);
}

TEST(CuptiConverter, KernelWithUnknownCorrelationIsKeptAsIs) {
    // The converter does not drop GPU work whose API call it never saw (CUPTI may deliver the
    // API record in a later buffer, or the call was made before tracing started); the merge
    // counts such records (see CudaCorrelationTest).
    Harness h;
    h.feed(apiRecord(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                     10, 20, 1));
    h.feed(kernelRecord("_Z1kv", 30, 40, 1));
    h.feed(kernelRecord("_Z1kv", 50, 60, 999));
    auto r = h.finish();
    const Track* t = onlyTrack(*r, EventKind::Kernel);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 2u);
    EXPECT_EQ(t->intAt(cols::Kernel::Correlation, 1), 999);
}

}  // namespace
}  // namespace sl::cuda::test
