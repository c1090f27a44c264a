#include "model/analysis/MedianSelect.h"

#include <algorithm>
#include <bit>

namespace sl::analysis {
namespace {

constexpr int kBucketBits = 12;  // 4 Ki counters: 16 KiB, in the first-level cache
constexpr size_t kSmall = 4096;  // below this a plain selection is as fast

MiddleValues bySelection(std::vector<int64_t>& v, size_t offsetLower, size_t offsetUpper) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(offsetUpper), v.end());
    MiddleValues m;
    m.upper = v[offsetUpper];
    // Everything before the upper's position is <= it: the lower is their largest.
    m.lower = offsetLower == offsetUpper
                  ? m.upper
                  : *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(offsetUpper));
    return m;
}

thread_local std::vector<uint32_t> t_histogram;
thread_local std::vector<int64_t> t_middle;

}  // namespace

MiddleSelector::MiddleSelector(size_t count, int64_t min, int64_t max)
    : m_count(count), m_base(static_cast<uint64_t>(min)), m_counting(count >= kSmall) {
    if (!m_counting) return;
    // Buckets of the values' offsets from the minimum (unsigned: any int64 range fits).
    const uint64_t range = static_cast<uint64_t>(max) - m_base;
    const int width = std::bit_width(range);
    m_shift = width > kBucketBits ? width - kBucketBits : 0;
    t_histogram.assign(static_cast<size_t>(range >> m_shift) + 1, 0);
    m_histogram = t_histogram.data();
}

MiddleValues MiddleSelector::middle(const std::vector<ValueRun>& runs) {
    const size_t rankUpper = m_count / 2, rankLower = (m_count - 1) / 2;
    std::vector<int64_t>& middle = t_middle;
    middle.clear();
    if (!m_counting) {
        for (const ValueRun& r : runs) middle.insert(middle.end(), r.data, r.data + r.size);
        return bySelection(middle, rankLower, rankUpper);
    }
    // The buckets holding the two ranks, and how many values lie below the first.
    size_t below = 0, b = 0;
    while (below + m_histogram[b] <= rankLower) below += m_histogram[b++];
    const size_t first = b;
    size_t upTo = below;
    while (upTo + m_histogram[b] <= rankUpper) upTo += m_histogram[b++];
    const uint64_t lo = first, hi = b;
    // Select among the values of those buckets only.
    for (const ValueRun& r : runs)
        for (size_t i = 0; i < r.size; ++i) {
            const uint64_t k = (static_cast<uint64_t>(r.data[i]) - m_base) >> m_shift;
            if (k >= lo && k <= hi) middle.push_back(r.data[i]);
        }
    return bySelection(middle, rankLower - below, rankUpper - below);
}

MiddleValues middleValues(const std::vector<ValueRun>& runs, size_t n, int64_t min, int64_t max) {
    MiddleSelector s(n, min, max);
    for (const ValueRun& r : runs)
        for (size_t i = 0; i < r.size; ++i) s.add(r.data[i]);
    return s.middle(runs);
}

}  // namespace sl::analysis
