#pragma once
// Durations grouped by a dense uint32 key (string ids): the hot loop of the per-name summaries
// (cuda_gpu_kern_sum, cuda_api_sum, osrt_sum). Grouping by the interned id costs an array
// index per event where a map keyed by the name string costs a lookup; names are resolved
// once per group afterwards.
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "model/analysis/StatsCommon.h"
#include "model/core/HugePages.h"

namespace sl::analysis {

class DenseGroups {
public:
    explicit DenseGroups(size_t keySpace) : m_slot(keySpace, UINT32_MAX) {}
    std::vector<int64_t>& at(uint32_t key) {
        if (key >= m_slot.size()) m_slot.resize(key + 1, UINT32_MAX);
        uint32_t& s = m_slot[key];
        if (s == UINT32_MAX) {
            s = static_cast<uint32_t>(m_keys.size());
            m_keys.push_back(key);
            m_values.emplace_back();
        }
        return m_values[s];
    }
    bool has(uint32_t key) const { return key < m_slot.size() && m_slot[key] != UINT32_MAX; }
    // The index of `key`'s group (has(key) must be true).
    uint32_t slotOf(uint32_t key) const { return m_slot[key]; }
    size_t size() const { return m_keys.size(); }
    uint32_t key(size_t i) const { return m_keys[i]; }
    std::vector<int64_t>& values(size_t i) { return m_values[i]; }
    // Moves the groups out with labels made by `label(key)`.
    template <class F>
    void moveInto(std::vector<SummaryGroup>& out, F label) {
        for (size_t i = 0; i < m_keys.size(); ++i) out.push_back({label(m_keys[i]), std::move(m_values[i])});
    }

private:
    std::vector<uint32_t> m_slot;
    std::vector<uint32_t> m_keys;
    std::vector<std::vector<int64_t>> m_values;
};

// The durations of the events of every track of `kind` inside the window, grouped by name id,
// on up to `threads` cores (0: all). Each group holds its values in track order, then event
// order, as one pass would put them: the summaries' floating-point sums stay the same. Once
// o.cancel is set it stops early, and the groups are incomplete.
DenseGroups durationsByName(const Report& r, EventKind kind, const StatsOptions& o, unsigned threads = 0);

// Groups of `byId` merged under the name `nameOf(id)` shows (cudaLaunchKernel_v7000 is
// cudaLaunchKernel), in name order; each name is one SummaryGroup.
template <class NameOf>
std::vector<SummaryGroup> mergedByName(DenseGroups& byId, NameOf nameOf) {
    std::map<std::string_view, std::vector<int64_t>> groups;
    for (size_t k = 0; k < byId.size(); ++k) {
        std::vector<int64_t>& into = groups[nameOf(byId.key(k))];
        if (into.empty()) into = std::move(byId.values(k));
        else into.insert(into.end(), byId.values(k).begin(), byId.values(k).end());
    }
    std::vector<SummaryGroup> out;
    for (auto& [name, v] : groups) out.push_back({{std::string(name)}, std::move(v)});
    return out;
}

}  // namespace sl::analysis
