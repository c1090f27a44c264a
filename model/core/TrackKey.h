#pragma once
// Identifies a track: the events of one kind that belong to one owner (a thread, a stream, a
// metric series, a process on a device). Fields that do not apply to the kind's owner are 0
// (device -1).
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "model/core/Schema.h"

namespace sl {

struct TrackKey {
    EventKind kind = EventKind::OsRuntime;
    int64_t pid = 0;
    int64_t tid = 0;
    int32_t device = -1;
    uint32_t context = 0;
    uint32_t stream = 0;
    uint32_t domain = 0;  // NVTX domain id within the process
    uint32_t series = 0;  // metric series id

    auto operator<=>(const TrackKey&) const = default;

    static TrackKey forThread(EventKind k, int64_t pid, int64_t tid, uint32_t domain = 0) {
        TrackKey t;
        t.kind = k; t.pid = pid; t.tid = tid; t.domain = domain;
        return t;
    }
    static TrackKey forStream(EventKind k, int64_t pid, int32_t device, uint32_t context, uint32_t stream) {
        TrackKey t;
        t.kind = k; t.pid = pid; t.device = device; t.context = context; t.stream = stream;
        return t;
    }
    static TrackKey forMetric(uint32_t series) {
        TrackKey t;
        t.kind = EventKind::Metric; t.series = series;
        return t;
    }
    static TrackKey forProcessDevice(EventKind k, int64_t pid, int32_t device) {
        TrackKey t;
        t.kind = k; t.pid = pid; t.device = device;
        return t;
    }
};

struct TrackKeyHash {
    size_t operator()(const TrackKey& k) const noexcept {
        uint64_t h = static_cast<uint64_t>(k.kind);
        auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
        mix(static_cast<uint64_t>(k.pid));
        mix(static_cast<uint64_t>(k.tid));
        mix(static_cast<uint64_t>(static_cast<uint32_t>(k.device)));
        mix(k.context);
        mix(k.stream);
        mix(k.domain);
        mix(k.series);
        return static_cast<size_t>(h);
    }
};

}  // namespace sl
