#pragma once
// Maps CUDA correlation ids to the events that carry them, per process: the API call that
// launched work (CudaApi tracks) and the GPU operations it produced (kernels, memcpys,
// memsets, graph executions). Correlation ids are only unique within a process, so every
// lookup takes the pid. Built once from an immutable Report (O(n log n)); afterwards
// read-only and safe to share across threads. Id 0 means "no correlation" and is not indexed.
#include <cstdint>
#include <span>
#include <vector>

#include "model/core/Report.h"

namespace sl::analysis {

// One event of a report: tracks[track], event number `index` within that track.
struct EventRef {
    uint32_t track = UINT32_MAX;
    uint32_t index = 0;
    bool valid() const { return track != UINT32_MAX; }
    bool operator==(const EventRef&) const = default;
};

class CorrelationIndex {
public:
    explicit CorrelationIndex(const Report& report);

    // The API call with this correlation id in process `pid` (invalid ref if none). When a
    // report holds several calls with one id (should not happen), the first in track order.
    EventRef apiCall(int64_t pid, uint32_t correlation) const;
    // The GPU operations launched under this correlation id, in track order.
    std::span<const EventRef> gpuOps(int64_t pid, uint32_t correlation) const;

    // A place in the index for a pass of lookups in (mostly) increasing correlation order, as
    // a thread's API calls come: each lookup gallops from the previous answer instead of
    // binary searching the whole index, so the pass reads the index in order (a search over
    // tens of millions of keys misses the cache at every step). Any order gives the same
    // answers as the plain lookups.
    class Cursor {
        size_t m_gpu = 0, m_api = 0;
        friend class CorrelationIndex;
    };
    std::span<const EventRef> gpuOps(int64_t pid, uint32_t correlation, Cursor& cursor) const;
    // The API call that launched a GPU operation (the event must be on a GPU track).
    EventRef launcherOf(EventRef gpuOp) const;
    // The same for a pass over a GPU track's operations in order (their correlation ids mostly
    // grow): a gallop from the previous answer.
    EventRef launcherOf(EventRef gpuOp, Cursor& cursor) const;

    size_t apiCallCount() const { return m_api.size(); }
    size_t gpuOpCount() const { return m_gpu.size(); }
    // GPU operations whose correlation id matches no API call of their process.
    size_t orphanGpuOpCount() const { return m_orphans; }

    static bool isGpuOpKind(EventKind kind);

private:
    uint64_t key(int64_t pid, uint32_t correlation) const;

    const Report& m_report;
    std::vector<int64_t> m_pids;  // sorted distinct pids; a pid's position is its key prefix
    std::vector<uint64_t> m_apiKeys, m_gpuKeys;  // sorted; parallel to m_api / m_gpu
    std::vector<EventRef> m_api, m_gpu;
    size_t m_orphans = 0;
};

}  // namespace sl::analysis
