#include "capture/cupti/ReportBuilderSink.h"

#include <algorithm>

namespace sl::cuda {
namespace {

template <class T>
void takeIfSet(T& dst, const T& src) {
    if (src != T{}) dst = src;
}

}  // namespace

void ReportBuilderSink::add(const CudaApiCall& e) {
    m_b.ensureThread(e.pid, e.tid);
    m_b.add(e);
}

void ReportBuilderSink::add(const MetricSample& e) {
    MetricSample m = e;
    m.series = seriesId(e.series);
    if (m.series == 0) {
        m_b.addDiagnostic("cuda.samples_without_series", 1,
                          "Metric samples named an unknown series; they are left out");
        return;
    }
    m_b.add(m);
}

void ReportBuilderSink::addGpu(const Gpu& g) {
    auto& gpus = m_b.report().gpus;
    auto it = std::find_if(gpus.begin(), gpus.end(),
                           [&](const Gpu& x) { return x.deviceId == g.deviceId; });
    if (it == gpus.end()) {
        gpus.push_back(g);
        return;
    }
    takeIfSet(it->name, g.name);
    takeIfSet(it->uuid, g.uuid);
    takeIfSet(it->pciBusId, g.pciBusId);
    takeIfSet(it->smCount, g.smCount);
    takeIfSet(it->memoryBytes, g.memoryBytes);
    takeIfSet(it->computeMajor, g.computeMajor);
    takeIfSet(it->computeMinor, g.computeMinor);
    takeIfSet(it->smClockKHz, g.smClockKHz);
    takeIfSet(it->memoryClockKHz, g.memoryClockKHz);
    takeIfSet(it->memoryBandwidthBytesPerSec, g.memoryBandwidthBytesPerSec);
}

void ReportBuilderSink::addContext(const CudaContext& c) {
    auto& v = m_b.report().contexts;
    auto it = std::find_if(v.begin(), v.end(), [&](const CudaContext& x) {
        return x.pid == c.pid && x.contextId == c.contextId;
    });
    if (it == v.end()) {
        v.push_back(c);
        return;
    }
    takeIfSet(it->deviceId, c.deviceId);
    takeIfSet(it->name, c.name);
}

void ReportBuilderSink::addStream(const CudaStream& s) {
    auto& v = m_b.report().streams;
    auto it = std::find_if(v.begin(), v.end(), [&](const CudaStream& x) {
        return x.pid == s.pid && x.contextId == s.contextId && x.streamId == s.streamId;
    });
    if (it == v.end()) {
        v.push_back(s);
        return;
    }
    if (s.deviceId >= 0) it->deviceId = s.deviceId;
    takeIfSet(it->priority, s.priority);
    takeIfSet(it->flags, s.flags);
    it->isDefault = it->isDefault || s.isDefault;
    takeIfSet(it->name, s.name);
}

void ReportBuilderSink::addSeries(const MetricSeries& s) {
    auto& v = m_b.report().metricSeries;
    uint32_t next = 1;
    for (const auto& x : v) next = std::max(next, x.seriesId + 1);
    MetricSeries copy = s;
    copy.seriesId = next;
    v.push_back(copy);
    m_series[s.seriesId] = next;
}

uint32_t ReportBuilderSink::seriesId(uint32_t producerId) const {
    auto it = m_series.find(producerId);
    return it == m_series.end() ? 0 : it->second;
}

}  // namespace sl::cuda
