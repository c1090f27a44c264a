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

// The buckets [first, last] of `histogram` holding ranks `rankLower` <= `rankUpper`, and how
// many values lie below the first.
struct BucketSpan {
    size_t first, last, below;
};
BucketSpan bucketsOf(const uint32_t* histogram, size_t rankLower, size_t rankUpper) {
    size_t below = 0, b = 0;
    while (below + histogram[b] <= rankLower) below += histogram[b++];
    const size_t first = b;
    size_t upTo = below;
    while (upTo + histogram[b] <= rankUpper) upTo += histogram[b++];
    return {first, b, below};
}

int shiftFor(uint64_t range) {
    const int width = std::bit_width(range);
    return width > kBucketBits ? width - kBucketBits : 0;
}

// Ranks `lower` and `upper` of `v`. Where many values share the middle buckets (a wide range:
// nested ranges of microseconds under one of seconds) the histogram is taken again over just
// those values, each round 4 Ki times finer, instead of a selection over most of the group.
MiddleValues selectRanks(std::vector<int64_t>& v, size_t lower, size_t upper) {
    if (v.size() < 16 * kSmall) return bySelection(v, lower, upper);
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    const uint64_t base = static_cast<uint64_t>(*lo);
    const uint64_t range = static_cast<uint64_t>(*hi) - base;
    if (range == 0) return {*lo, *lo};
    const int shift = shiftFor(range);
    std::vector<uint32_t> histogram(static_cast<size_t>(range >> shift) + 1, 0);
    for (int64_t x : v) ++histogram[(static_cast<uint64_t>(x) - base) >> shift];
    const BucketSpan span = bucketsOf(histogram.data(), lower, upper);
    std::vector<int64_t> middle;
    for (int64_t x : v) {
        const uint64_t k = (static_cast<uint64_t>(x) - base) >> shift;
        if (k >= span.first && k <= span.last) middle.push_back(x);
    }
    if (middle.size() == v.size()) return bySelection(v, lower, upper);  // no narrower: select
    return selectRanks(middle, lower - span.below, upper - span.below);
}

}  // namespace

MiddleSelector::MiddleSelector(size_t count, int64_t min, int64_t max)
    : m_count(count), m_base(static_cast<uint64_t>(min)), m_counting(count >= kSmall) {
    if (!m_counting) return;
    // Buckets of the values' offsets from the minimum (unsigned: any int64 range fits).
    const uint64_t range = static_cast<uint64_t>(max) - m_base;
    m_shift = shiftFor(range);
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
    const BucketSpan span = bucketsOf(m_histogram, rankLower, rankUpper);
    // Select among the values of those buckets only.
    for (const ValueRun& r : runs)
        for (size_t i = 0; i < r.size; ++i) {
            const uint64_t k = (static_cast<uint64_t>(r.data[i]) - m_base) >> m_shift;
            if (k >= span.first && k <= span.last) middle.push_back(r.data[i]);
        }
    return selectRanks(middle, rankLower - span.below, rankUpper - span.below);
}

MiddleValues middleValues(const std::vector<ValueRun>& runs, size_t n, int64_t min, int64_t max) {
    MiddleSelector s(n, min, max);
    for (const ValueRun& r : runs)
        for (size_t i = 0; i < r.size; ++i) s.add(r.data[i]);
    return s.middle(runs);
}

}  // namespace sl::analysis
