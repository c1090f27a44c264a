#include "model/analysis/CorrelationIndex.h"

#include <algorithm>
#include <numeric>

namespace sl::analysis {
namespace {

// Sorts keys and refs together by key, keeping track order among equal keys.
void sortByKey(std::vector<uint64_t>& keys, std::vector<EventRef>& refs) {
    std::vector<uint32_t> order(keys.size());
    std::iota(order.begin(), order.end(), 0u);
    const bool sorted = std::is_sorted(keys.begin(), keys.end());
    if (sorted) return;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    std::vector<uint64_t> k(keys.size());
    std::vector<EventRef> r(refs.size());
    for (size_t i = 0; i < order.size(); ++i) {
        k[i] = keys[order[i]];
        r[i] = refs[order[i]];
    }
    keys.swap(k);
    refs.swap(r);
}

// The first position of sorted `v` whose value is >= k, searched outward from `hint` in
// doubling steps: O(log distance), so lookups in increasing order read `v` in order.
size_t gallopLowerBound(const std::vector<uint64_t>& v, size_t hint, uint64_t k) {
    const size_t n = v.size();
    hint = std::min(hint, n);
    size_t lo, hi;
    if (hint < n && v[hint] < k) {
        // Forward: everything before lo is < k.
        lo = hint + 1;
        hi = lo;
        for (size_t step = 1; hi < n && v[hi] < k; step *= 2) {
            lo = hi + 1;
            hi = lo + step;
        }
        hi = std::min(hi, n);
    } else {
        // Backward: v[hi] >= k (or hi == n); stop once v[lo - 1] < k.
        hi = hint;
        lo = hint;
        for (size_t step = 1; lo > 0 && v[lo - 1] >= k; step *= 2) {
            hi = lo - 1;
            lo = step >= lo ? 0 : lo - step;
        }
    }
    return static_cast<size_t>(
        std::lower_bound(v.begin() + static_cast<ptrdiff_t>(lo), v.begin() + static_cast<ptrdiff_t>(hi), k) -
        v.begin());
}

}  // namespace

bool CorrelationIndex::isGpuOpKind(EventKind kind) {
    return kind == EventKind::Kernel || kind == EventKind::Memcpy || kind == EventKind::Memset ||
           kind == EventKind::GraphTrace;
}

uint64_t CorrelationIndex::key(int64_t pid, uint32_t correlation) const {
    auto it = std::lower_bound(m_pids.begin(), m_pids.end(), pid);
    if (it == m_pids.end() || *it != pid) return UINT64_MAX;
    return (static_cast<uint64_t>(it - m_pids.begin()) << 32) | correlation;
}

CorrelationIndex::CorrelationIndex(const Report& report) : m_report(report) {
    // Step 1: the processes that own API calls or GPU work.
    size_t apiN = 0, gpuN = 0;
    for (const auto& t : report.tracks) {
        if (t.key.kind == EventKind::CudaApi) apiN += t.size();
        else if (isGpuOpKind(t.key.kind)) gpuN += t.size();
        else continue;
        m_pids.push_back(t.key.pid);
    }
    std::sort(m_pids.begin(), m_pids.end());
    m_pids.erase(std::unique(m_pids.begin(), m_pids.end()), m_pids.end());
    m_apiKeys.reserve(apiN);
    m_api.reserve(apiN);
    m_gpuKeys.reserve(gpuN);
    m_gpu.reserve(gpuN);
    // Step 2: one (key, ref) per correlated event. Every correlated kind stores the
    // correlation id as its schema column 0.
    static_assert(cols::CudaApi::Correlation == 0 && cols::Kernel::Correlation == 0 &&
                  cols::Memcpy::Correlation == 0 && cols::Memset::Correlation == 0 &&
                  cols::GraphTrace::Correlation == 0);
    for (uint32_t ti = 0; ti < report.tracks.size(); ++ti) {
        const Track& t = report.tracks[ti];
        const bool api = t.key.kind == EventKind::CudaApi;
        if (!api && !isGpuOpKind(t.key.kind)) continue;
        const uint64_t prefix = key(t.key.pid, 0);
        const auto& corr = t.col<uint32_t>(0);
        auto& keys = api ? m_apiKeys : m_gpuKeys;
        auto& refs = api ? m_api : m_gpu;
        for (uint32_t i = 0; i < corr.size(); ++i) {
            if (corr[i] == 0) continue;
            keys.push_back(prefix | corr[i]);
            refs.push_back({ti, i});
        }
    }
    // Step 3: sort for binary search.
    sortByKey(m_apiKeys, m_api);
    sortByKey(m_gpuKeys, m_gpu);
    // GPU operations without a launching call: one merge pass over the two sorted key lists.
    size_t a = 0;
    for (uint64_t k : m_gpuKeys) {
        while (a < m_apiKeys.size() && m_apiKeys[a] < k) ++a;
        if (a == m_apiKeys.size() || m_apiKeys[a] != k) ++m_orphans;
    }
}

EventRef CorrelationIndex::apiCall(int64_t pid, uint32_t correlation) const {
    const uint64_t k = key(pid, correlation);
    auto it = std::lower_bound(m_apiKeys.begin(), m_apiKeys.end(), k);
    if (k == UINT64_MAX || correlation == 0 || it == m_apiKeys.end() || *it != k) return {};
    return m_api[static_cast<size_t>(it - m_apiKeys.begin())];
}

std::span<const EventRef> CorrelationIndex::gpuOps(int64_t pid, uint32_t correlation) const {
    const uint64_t k = key(pid, correlation);
    if (k == UINT64_MAX || correlation == 0) return {};
    auto [b, e] = std::equal_range(m_gpuKeys.begin(), m_gpuKeys.end(), k);
    return {m_gpu.data() + (b - m_gpuKeys.begin()), static_cast<size_t>(e - b)};
}

std::span<const EventRef> CorrelationIndex::gpuOps(int64_t pid, uint32_t correlation,
                                                   Cursor& cursor) const {
    const uint64_t k = key(pid, correlation);
    if (k == UINT64_MAX || correlation == 0) return {};
    const size_t b = gallopLowerBound(m_gpuKeys, cursor.m_gpu, k);
    size_t e = b;
    while (e < m_gpuKeys.size() && m_gpuKeys[e] == k) ++e;  // a launch's few operations
    cursor.m_gpu = b;
    return {m_gpu.data() + b, e - b};
}

EventRef CorrelationIndex::launcherOf(EventRef op, Cursor& cursor) const {
    if (!op.valid() || op.track >= m_report.tracks.size()) return {};
    const Track& t = m_report.tracks[op.track];
    if (!isGpuOpKind(t.key.kind) || op.index >= t.size()) return {};
    const uint32_t correlation = t.col<uint32_t>(0)[op.index];
    const uint64_t k = key(t.key.pid, correlation);
    if (k == UINT64_MAX || correlation == 0) return {};
    const size_t at = gallopLowerBound(m_apiKeys, cursor.m_api, k);
    cursor.m_api = at;
    if (at == m_apiKeys.size() || m_apiKeys[at] != k) return {};
    return m_api[at];
}

EventRef CorrelationIndex::launcherOf(EventRef op) const {
    if (!op.valid() || op.track >= m_report.tracks.size()) return {};
    const Track& t = m_report.tracks[op.track];
    if (!isGpuOpKind(t.key.kind) || op.index >= t.size()) return {};
    return apiCall(t.key.pid, t.col<uint32_t>(0)[op.index]);
}

}  // namespace sl::analysis
