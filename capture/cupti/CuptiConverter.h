#pragma once
// Turns CUPTI activity records (the struct versions of this toolkit's cupti_activity.h) into
// model events and metadata, written to a CudaSink. Pure: no CUPTI calls, no GPU, so it is
// tested with synthetic records. Keeps small state to join records that arrive out of order
// (context -> device, event-record API call -> CUDA event record) and resolves or reports
// what is left in finish(). One instance per traced process; not thread-safe.
#include <cupti_activity.h>

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/cupti/CudaSink.h"
#include "capture/cupti/KernelNames.h"

namespace sl::cuda {

struct ConverterStats {
    uint64_t records = 0;      // records seen, all kinds
    uint64_t converted = 0;    // records that produced an event or metadata
    uint64_t ignored = 0;      // known kinds we do not represent (markers, external correlation)
    uint64_t unknown = 0;      // kinds this build does not know
    uint64_t withoutTime = 0;  // GPU records whose start and end were both 0
    uint64_t clampedEnd = 0;   // end < start, end set to start
    uint64_t dropped = 0;      // records CUPTI reported as dropped
};

class CuptiConverter {
public:
    // pid: the traced process (GPU records carry none). keepMemory: convert MEMORY2 and
    // MEMORY_POOL records (--cuda-memory-usage=true); otherwise they are counted as ignored.
    CuptiConverter(CudaSink& sink, int64_t pid, bool keepMemory = true);

    void convert(const CUpti_Activity* record);
    // CUPTI's count of records lost for a context/stream (cuptiActivityGetNumDroppedRecords).
    void droppedRecords(uint32_t contextId, uint32_t streamId, uint64_t count);
    // Context -> device, known from the resource callback before any activity arrives.
    void noteContext(uint32_t contextId, uint32_t deviceId);
    // Emits what waited for missing information and reports what could not be resolved.
    void finish();

    const ConverterStats& stats() const { return m_stats; }

private:
    void kernel(const CUpti_ActivityKernel10& r);
    void memcpy(const CUpti_ActivityMemcpy6& r);
    void memcpyPeer(const CUpti_ActivityMemcpyPtoP4& r);
    void memset(const CUpti_ActivityMemset4& r);
    void api(const CUpti_ActivityAPI& r);
    void sync(const CUpti_ActivitySynchronization2& r);
    void cudaEvent(const CUpti_ActivityCudaEvent2& r);
    void graphTrace(const CUpti_ActivityGraphTrace2& r);
    void memory(const CUpti_ActivityMemory4& r);
    void memoryPool(const CUpti_ActivityMemoryPool3& r);
    void overhead(const CUpti_ActivityOverhead3& r);
    void device(const CUpti_ActivityDevice5& r);
    void context(const CUpti_ActivityContext3& r);
    void stream(const CUpti_ActivityStream& r);
    void name(const CUpti_ActivityName& r);

    // False (and counted) when a GPU record has no usable time; fixes end < start.
    bool checkTimes(uint64_t start, uint64_t& end);
    int32_t deviceOf(uint32_t contextId) const;
    GpuPlace place(uint32_t device, uint32_t context, uint32_t stream) const;
    void emitSync(const CUpti_ActivitySynchronization2& r, int32_t device);
    void emitStream(const CUpti_ActivityStream& r, int32_t device);
    void emitEventRecord(const CUpti_ActivityCudaEvent2& r, int64_t time);
    void diag(const char* name, int64_t count, const char* reason);

    CudaSink& m_sink;
    int64_t m_pid;
    bool m_keepMemory;
    ConverterStats m_stats;
    KernelNames m_names;
    std::unordered_map<uint32_t, uint32_t> m_contextDevice;
    struct ApiName {
        uint32_t name = 0;
        bool eventRecord = false;
    };
    std::unordered_map<uint64_t, ApiName> m_apiNames;  // key: api << 32 | cbid
    // Records that need a context's device, kept until the context record arrives.
    std::vector<CUpti_ActivitySynchronization2> m_pendingSync;
    std::vector<CUpti_ActivityStream> m_pendingStreams;
    // CUDA event records without a device timestamp take the time of the cudaEventRecord
    // call with the same correlation id; whichever of the two arrives first waits here.
    std::unordered_map<uint32_t, int64_t> m_eventApiStart;
    std::unordered_map<uint32_t, CUpti_ActivityCudaEvent2> m_pendingEvents;
    std::unordered_map<uint64_t, uint32_t> m_poolSeries;  // pool address -> series id
    uint32_t m_nextSeries = 1;
};

// CUPTI enum values to the model's (nsys ENUM ids).
MemoryKind memoryKindFromCupti(uint32_t cuptiKind);
CopyKind copyKindFromCupti(uint32_t cuptiKind);
SyncType syncTypeFromCupti(uint32_t cuptiType);
LaunchType launchTypeFromCupti(uint32_t cuptiType);
// CUpti_ActivityOverheadKind packed into the model's 8 bits: values below 256 as they are,
// the (n << 16) kinds as 0x80 | n.
uint8_t overheadKindFromCupti(uint32_t cuptiKind);
std::string_view overheadKindName(uint8_t packed);
// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it.
std::string formatUuid(const uint8_t bytes[16]);

}  // namespace sl::cuda
