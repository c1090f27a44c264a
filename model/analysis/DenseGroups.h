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
            if (key < m_sizes.size()) {
                m_values.back().reserve(m_sizes[key]);
                adviseHugePages(m_values.back());
            }
        }
        return m_values[s];
    }
    // How many values each key will get: a group is then allocated once at its final size
    // (regrowth copies and their page faults were a third of cuda_gpu_kern_sum's time).
    void sizeHints(std::vector<uint32_t> sizes) { m_sizes = std::move(sizes); }
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
    std::vector<uint32_t> m_sizes;
};

// The durations of the events of every track of `kind` inside the window, grouped by name id
// (each group sized before it is filled).
inline DenseGroups durationsByName(const Report& r, EventKind kind, const StatsOptions& o) {
    DenseGroups groups(r.strings.size());
    std::vector<uint32_t> sizes(r.strings.size(), 0);
    for (const auto& t : r.tracks)
        if (t.key.kind == kind)
            for (size_t i = 0; i < t.size(); ++i) {
                if (o.bounded() && !o.inWindow(t.start[i], t.end[i])) continue;
                const uint32_t name = t.name[i];
                if (name >= sizes.size()) sizes.resize(name + 1, 0);
                ++sizes[name];
            }
    groups.sizeHints(std::move(sizes));
    for (const auto& t : r.tracks) {
        if (t.key.kind != kind) continue;
        const size_t n = t.size();
        if (!o.bounded()) {
            for (size_t i = 0; i < n; ++i) groups.at(t.name[i]).push_back(t.end[i] - t.start[i]);
            continue;
        }
        for (size_t i = 0; i < n; ++i)
            if (o.inWindow(t.start[i], t.end[i])) groups.at(t.name[i]).push_back(t.end[i] - t.start[i]);
    }
    return groups;
}

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
