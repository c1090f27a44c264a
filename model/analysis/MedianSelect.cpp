#include "model/analysis/MedianSelect.h"

#include <algorithm>
#include <bit>

namespace sl::analysis {
namespace {

constexpr int kBucketBits = 16;  // 64 Ki counters: 256 KiB, stays in the core's cache
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

}  // namespace

MiddleValues middleValues(const std::vector<ValueRun>& runs, size_t n, int64_t min, int64_t max) {
    const size_t rankUpper = n / 2, rankLower = (n - 1) / 2;
    thread_local std::vector<int64_t> middle;
    middle.clear();
    if (n < kSmall) {
        for (const ValueRun& r : runs) middle.insert(middle.end(), r.data, r.data + r.size);
        return bySelection(middle, rankLower, rankUpper);
    }
    // Step 1: count the values per bucket of their offset from the minimum (unsigned: any
    // int64 range fits).
    const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
    const int width = std::bit_width(range);
    const int shift = width > kBucketBits ? width - kBucketBits : 0;
    const size_t buckets = static_cast<size_t>(range >> shift) + 1;
    thread_local std::vector<uint32_t> histogram;
    histogram.assign(buckets, 0);
    const uint64_t base = static_cast<uint64_t>(min);
    for (const ValueRun& r : runs)
        for (size_t i = 0; i < r.size; ++i) ++histogram[(static_cast<uint64_t>(r.data[i]) - base) >> shift];
    // Step 2: the buckets holding the two ranks, and how many values lie below the first.
    size_t below = 0, b = 0;
    while (below + histogram[b] <= rankLower) below += histogram[b++];
    const size_t first = b;
    size_t upTo = below;
    while (upTo + histogram[b] <= rankUpper) upTo += histogram[b++];
    const uint64_t lo = first, hi = b;
    // Step 3: select among the values of those buckets only.
    for (const ValueRun& r : runs)
        for (size_t i = 0; i < r.size; ++i) {
            const uint64_t k = (static_cast<uint64_t>(r.data[i]) - base) >> shift;
            if (k >= lo && k <= hi) middle.push_back(r.data[i]);
        }
    return bySelection(middle, rankLower - below, rankUpper - below);
}

}  // namespace sl::analysis
