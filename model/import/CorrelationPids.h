#pragma once
// The process of each CUDA API call's correlation id, for placing GPU events. Correlation ids
// mostly arrive counting up within a process, so they are held as runs (first, last, pid):
// a few bytes per trace instead of a hash node per call. Later ids win over earlier equal ones,
// as a map's assignment would.
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace sl::import {

class CorrelationPids {
public:
    void add(int64_t correlation, int64_t pid);
    // Builds the lookup; call once every id is added.
    void finish();
    std::optional<int64_t> find(int64_t correlation) const;
    size_t memoryBytes() const;

private:
    struct Run {
        int64_t first, last, pid;
    };
    std::vector<Run> m_runs;  // arrival order; after finish(): sorted and disjoint
    // Runs that overlap (ids repeated across processes): looked up one id at a time.
    std::unordered_map<int64_t, int64_t> m_repeated;
    bool m_finished = false;
};

}  // namespace sl::import
