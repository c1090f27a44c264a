#pragma once
// The middle values of a set of durations (the exact median of the stats reports), found with
// a histogram of the values' high bits instead of a full selection: two streaming passes and a
// selection among the few values of the middle bucket. std::nth_element over a whole group was
// the summaries' largest cost (issue #23).
#include <cstdint>
#include <vector>

namespace sl::analysis {

struct MiddleValues {
    int64_t lower = 0;  // the value of rank (n - 1) / 2 (0-based, ascending)
    int64_t upper = 0;  // the value of rank n / 2; equal to lower for an odd count
};

// `min` and `max` are the smallest and largest of `v`, which must not be empty. May reorder `v`.
MiddleValues middleValues(std::vector<int64_t>& v, int64_t min, int64_t max);

}  // namespace sl::analysis
