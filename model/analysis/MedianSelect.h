#pragma once
// The middle values of a set of durations (the exact median of the stats reports), found with
// a histogram of the values' high bits (4 Ki buckets) instead of a full selection: one pass to
// count (which summarizeRuns shares with its variance pass) and one to pick out the few values
// of the middle buckets, then a selection among those. std::nth_element over a whole group was
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

// Step 1: add(x) for each of the `count` values (the smallest `min`, the largest `max`);
// step 2: middle(runs) with the same values. One selector per thread at a time (its
// buffers are the thread's, reused from group to group).
class MiddleSelector {
public:
    MiddleSelector(size_t count, int64_t min, int64_t max);
    void add(int64_t x) {
        if (m_counting) ++m_histogram[(static_cast<uint64_t>(x) - m_base) >> m_shift];
    }
    MiddleValues middle(const std::vector<ValueRun>& runs);

private:
    size_t m_count;
    uint64_t m_base;
    int m_shift = 0;
    bool m_counting;         // large enough for the histogram to pay
    uint32_t* m_histogram = nullptr;
};

// Both steps at once. `count` must not be 0; the values are not changed.
MiddleValues middleValues(const std::vector<ValueRun>& runs, size_t count, int64_t min, int64_t max);
inline MiddleValues middleValues(const std::vector<int64_t>& v, int64_t min, int64_t max) {
    return middleValues({{v.data(), v.size()}}, v.size(), min, max);
}

}  // namespace sl::analysis
