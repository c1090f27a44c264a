#pragma once
// Synthetic CUPTI activity records for the converter tests, built from the structs of this
// toolkit's cupti_activity.h, and a harness that converts them into a finished Report.
#include <cupti_activity.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <cstring>
#include <memory>

#include "capture/cupti/CuptiConverter.h"
#include "capture/cupti/ReportBuilderSink.h"
#include "model/core/ReportBuilder.h"

namespace sl::cuda::test {

constexpr int64_t kPid = 4242;

template <class T>
T zeroed(CUpti_ActivityKind kind) {
    T r;
    std::memset(&r, 0, sizeof r);
    r.kind = kind;
    return r;
}

inline CUpti_ActivityKernel10 kernelRecord(const char* name, uint64_t start, uint64_t end,
                                           uint32_t corr, uint32_t stream = 13, uint32_t device = 0,
                                           uint32_t context = 1) {
    auto r = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    r.name = name;
    r.start = start;
    r.end = end;
    r.correlationId = corr;
    r.deviceId = device;
    r.contextId = context;
    r.streamId = stream;
    r.gridX = r.gridY = r.gridZ = 1;
    r.blockX = 128;
    r.blockY = r.blockZ = 1;
    return r;
}

inline CUpti_ActivityAPI apiRecord(CUpti_ActivityKind kind, uint32_t cbid, uint64_t start,
                                   uint64_t end, uint32_t corr, uint32_t tid = 4243) {
    auto r = zeroed<CUpti_ActivityAPI>(kind);
    r.cbid = cbid;
    r.start = start;
    r.end = end;
    r.processId = kPid;
    r.threadId = tid;
    r.correlationId = corr;
    return r;
}

inline CUpti_ActivityMemcpy6 memcpyRecord(uint8_t copyKind, uint8_t src, uint8_t dst,
                                          uint64_t bytes, uint64_t start, uint64_t end,
                                          uint32_t corr, bool async, uint32_t stream = 13) {
    auto r = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    r.copyKind = copyKind;
    r.srcKind = src;
    r.dstKind = dst;
    r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
    r.bytes = bytes;
    r.start = start;
    r.end = end;
    r.deviceId = 0;
    r.contextId = 1;
    r.streamId = stream;
    r.correlationId = corr;
    return r;
}

inline CUpti_ActivityContext3 contextRecord(uint32_t context, uint32_t device,
                                            uint16_t nullStream = 7) {
    auto r = zeroed<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_CONTEXT);
    r.contextId = context;
    r.deviceId = device;
    r.nullStreamId = nullStream;
    r.computeApiKind = CUPTI_ACTIVITY_COMPUTE_API_CUDA;
    return r;
}

// Converts records (in the order given) and finishes the report.
class Harness {
public:
    explicit Harness(bool keepMemory = true)
        : m_sink(m_builder), m_conv(m_sink, kPid, keepMemory) {}

    template <class T>
    Harness& feed(const T& record) {
        m_conv.convert(reinterpret_cast<const CUpti_Activity*>(&record));
        return *this;
    }
    CuptiConverter& converter() { return m_conv; }
    ReportBuilder& builder() { return m_builder; }
    std::shared_ptr<Report> finish() {
        m_conv.finish();
        return m_builder.finish();
    }

private:
    ReportBuilder m_builder;
    ReportBuilderSink m_sink;
    CuptiConverter m_conv;
};

inline const Track* onlyTrack(const Report& r, EventKind kind) {
    auto t = r.tracksOfKind(kind);
    return t.size() == 1 ? t[0] : nullptr;
}

}  // namespace sl::cuda::test
