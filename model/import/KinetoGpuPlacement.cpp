// KinetoEventMapper: placing GPU events in their processes once every event is seen. A GPU
// event belongs to the process of the API call with its correlation id; events without one go
// to the process that launched most correlated work on their device, else to the process with
// most CUDA calls overall, else to their own pid field. Until then they wait in pending tracks
// (kPendingPidBase), in the builder or, streamed, in the spool.
#include <algorithm>

#include "model/import/KinetoEventMapper.h"
#include "model/import/UsedGpus.h"

namespace sl::import {
namespace {

constexpr uint64_t kCorrelationColumn = 1;  // column 0 of kernels, memcpy, memset and sync

int64_t rawPidOf(const TrackKey& pending) {
    return pending.pid - KinetoEventMapper::kPendingPidBase;
}

}  // namespace

int64_t KinetoEventMapper::fallbackPid(int32_t device, int64_t rawPid) const {
    if (auto it = m_devicePid.find(device); it != m_devicePid.end()) return it->second;
    if (m_busiestPid >= 0) return m_busiestPid;
    return std::max<int64_t>(0, rawPid);
}

int64_t KinetoEventMapper::pidOf(const PendingTrack& p, uint32_t storedCorrelation) const {
    if (storedCorrelation != 0)
        if (auto pid = m_corrPid.find(int64_t{storedCorrelation - 1}); pid && *pid >= 0)
            return *pid;
    return p.fallbackPid;
}

Status KinetoEventMapper::planGpu(const std::vector<Track>& inMemory,
                                  std::vector<PendingTrack>& plan) {
    // Step 1: votes of correlated work per device, and the processes of each pending track.
    std::map<int32_t, std::map<int64_t, uint64_t>> votes;
    std::vector<uint64_t> unplaced;  // per pending track: events whose correlation finds no call
    auto count = [&](size_t k, uint32_t stored) {
        std::optional<int64_t> pid;
        if (stored != 0) pid = m_corrPid.find(int64_t{stored - 1});
        if (pid) ++votes[plan[k].key.device][*pid];
        if (pid && *pid >= 0)  // a negative pid counts as none, as it always has
            plan[k].pids.insert(*pid);
        else
            ++unplaced[k];
    };
    if (m_spool) {
        for (const TrackKey& key : m_spool->keys()) {
            if (!isPendingPid(key.pid)) continue;
            plan.push_back({key, {}, 0});
            unplaced.push_back(0);
            const size_t k = plan.size() - 1;
            if (Status s = m_spool->scan(key, kCorrelationColumn,
                                         [&](const Track& t, size_t b, size_t e) -> Status {
                                             for (size_t i = b; i < e; ++i)
                                                 count(k, static_cast<uint32_t>(t.intAt(0, i)));
                                             return {};
                                         });
                !s)
                return s;
        }
    } else {
        for (const Track& t : inMemory) {
            plan.push_back({t.key, {}, 0});
            unplaced.push_back(0);
            for (size_t i = 0; i < t.size(); ++i)
                count(plan.size() - 1, static_cast<uint32_t>(t.intAt(0, i)));
        }
    }
    for (const auto& g : m_gpu) {
        if (g.correlation < 0) continue;
        if (auto pid = m_corrPid.find(g.correlation)) ++votes[g.device][*pid];
    }
    // Step 2: the fallbacks.
    uint64_t most = 0;
    for (const auto& [pid, n] : m_apiCallsPerPid)
        if (n > most) {
            most = n;
            m_busiestPid = pid;
        }
    for (const auto& [device, counts] : votes) {
        auto best =
            std::max_element(counts.begin(), counts.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        m_devicePid[device] = best->first;
    }
    int64_t uncorrelated = 0;
    for (size_t k = 0; k < plan.size(); ++k) {
        plan[k].fallbackPid = fallbackPid(plan[k].key.device, rawPidOf(plan[k].key));
        if (unplaced[k]) plan[k].pids.insert(plan[k].fallbackPid);
        uncorrelated += static_cast<int64_t>(unplaced[k]);
    }
    if (uncorrelated)
        diag("kineto.gpu_events_without_api_call",
             "GPU events whose correlation id matches no CUDA runtime/driver "
             "call; placed in the process that launched most work on their device",
             uncorrelated);
    return {};
}

void KinetoEventMapper::addGpuAnnotations() {
    // gpu_user_annotation: the span of GPU work a user annotation caused on one stream. Shown as
    // NVTX ranges on a row of their own per (device, stream) in the traced process, named after
    // the stream, in an NVTX domain of the category.
    for (const auto& g : m_gpu) {
        std::optional<int64_t> found;
        if (g.correlation >= 0) found = m_corrPid.find(g.correlation);
        const int64_t pid = found && *found >= 0 ? *found : fallbackPid(g.device, g.rawPid);
        const int64_t tid = kGpuAnnotationTidBase + (int64_t{g.device} << 24) + g.stream;
        NvtxRangeEvent r;
        r.pid = pid;
        r.tid = tid;
        r.domain = domainFor("gpu_user_annotation");
        r.start = g.start;
        r.end = g.end;
        r.message = g.name;
        m_b.add(r);
        m_threads.emplace(pid, tid);
        m_threadNames[{pid, tid}] = "GPU " + std::to_string(g.device) + " stream " +
                                    std::to_string(g.stream) + " (gpu_user_annotation)";
        m_usedDomains.emplace(pid, r.domain);
        m_cpuPids.insert(pid);
    }
    m_gpu.clear();
    m_gpu.shrink_to_fit();
}

void KinetoEventMapper::moveGpuInMemory(const std::vector<PendingTrack>& plan,
                                        const std::vector<Track>& pending) {
    for (size_t k = 0; k < plan.size(); ++k) {
        const Track& t = pending[k];
        const PendingTrack& p = plan[k];
        std::vector<int64_t> extra(t.cols.size());
        TrackKey key = t.key;
        key.pid = *p.pids.begin();
        for (size_t i = 0; i < t.size(); ++i) {
            const auto stored = static_cast<uint32_t>(t.intAt(0, i));
            if (p.pids.size() > 1) key.pid = pidOf(p, stored);
            extra[0] = stored == 0 ? 0 : int64_t{stored - 1};
            for (size_t c = 1; c < extra.size(); ++c) extra[c] = columnBits(t.cols[c], i);
            m_b.addRaw(key, t.start[i], t.endAt(i), t.nameAt(i), extra.data());
        }
    }
}

void KinetoEventMapper::addGpuEntities(const std::vector<PendingTrack>& plan) {
    Report& r = m_b.report();
    std::set<std::tuple<int64_t, int32_t, uint32_t, uint32_t>> streams;
    for (const PendingTrack& p : plan)
        for (int64_t pid : p.pids) {
            streams.emplace(pid, p.key.device, p.key.context, p.key.stream);
            m_cpuPids.insert(pid);
        }
    UsedContexts contexts;
    for (const auto& [pid, device, context, stream] : streams) {
        CudaStream s;
        s.pid = pid;
        s.deviceId = device;
        s.contextId = context;
        s.streamId = stream;
        r.streams.push_back(s);
        contexts.emplace(pid, device, context);
    }
    addUsedContextsAndGpus(r, contexts);
}

Status KinetoEventMapper::flushGpu() {
    m_corrPid.finish();
    // In memory the pending tracks leave the builder (emptied tracks are dropped at its
    // finish); streamed they are in the spool already.
    std::vector<Track> pending;
    if (!m_spool)
        for (Track& t : m_b.report().tracks)
            if (isPendingPid(t.key.pid) && !t.empty()) {
                pending.push_back(std::move(t));
                t = Track(pending.back().key);
            }
    std::vector<PendingTrack> plan;
    if (Status s = planGpu(pending, plan); !s) return s;
    addGpuAnnotations();
    if (m_spool)
        m_gpuPlan = plan;
    else
        moveGpuInMemory(plan, pending);
    addGpuEntities(plan);
    return {};
}

}  // namespace sl::import
