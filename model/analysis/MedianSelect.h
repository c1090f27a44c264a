#pragma once
// The middle values of a set of durations (the exact median of the stats reports), found with
// a histogram of the values' high bits instead of a full selection: two streaming passes and a
// selection among the few values of the middle bucket. std::nth_element over a whole group was
// the summaries' largest cost (issue #23).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sl::analysis {

// Values held in memory in several pieces, read in order (a scanned group's blocks).
struct ValueRun {
    const int64_t* data = nullptr;
    size_t size = 0;
};

struct MiddleValues {
    int64_t lower = 0;  // the value of rank (n - 1) / 2 (0-based, ascending)
    int64_t upper = 0;  // the value of rank n / 2; equal to lower for an odd count
};

// `count` values in `runs`, the smallest `min` and the largest `max`; count must not be 0.
// The values are not changed.
MiddleValues middleValues(const std::vector<ValueRun>& runs, size_t count, int64_t min, int64_t max);
inline MiddleValues middleValues(const std::vector<int64_t>& v, int64_t min, int64_t max) {
    return middleValues({{v.data(), v.size()}}, v.size(), min, max);
}

}  // namespace sl::analysis
