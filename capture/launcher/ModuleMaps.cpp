#include "capture/launcher/ModuleMaps.h"

#include <algorithm>

namespace sl::capture {

uint32_t ModuleMaps::moduleId(std::string_view path) {
    auto [it, inserted] =
        m_moduleIndex.try_emplace(std::string(path), static_cast<uint32_t>(m_modules.size()));
    if (inserted) m_modules.emplace_back(path);
    return it->second;
}

void ModuleMaps::map(int64_t pid, uint64_t start, uint64_t length, uint64_t pgoff,
                     std::string_view path) {
    if (length == 0) return;
    ++m_generation;
    const uint64_t end = start + length;
    const uint32_t module = moduleId(path);
    auto& v = m_maps[pid];
    // Cut what the new mapping overlaps: keep the parts of old mappings outside [start, end).
    std::vector<Mapping> out;
    out.reserve(v.size() + 2);
    for (const Mapping& m : v) {
        if (m.end <= start || m.start >= end) {
            out.push_back(m);
            continue;
        }
        if (m.start < start) out.push_back({m.start, start, m.pgoff, m.module});
        if (m.end > end) out.push_back({end, m.end, m.pgoff + (end - m.start), m.module});
    }
    out.push_back({start, end, pgoff, module});
    std::sort(out.begin(), out.end(),
              [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
    v = std::move(out);
}

void ModuleMaps::fork(int64_t parent, int64_t child) {
    if (parent == child) return;
    ++m_generation;
    auto it = m_maps.find(parent);
    if (it == m_maps.end()) {
        m_maps.erase(child);
        return;
    }
    const std::vector<Mapping>& src = it->second;  // references survive a rehash, iterators not
    m_maps[child] = src;
}

void ModuleMaps::exec(int64_t pid) {
    ++m_generation;
    m_maps.erase(pid);
}

ModuleMaps::Location ModuleMaps::lookup(int64_t pid, uint64_t address) const {
    auto it = m_maps.find(pid);
    if (it == m_maps.end()) return {kNoModule, address};
    const auto& v = it->second;
    auto m = std::upper_bound(v.begin(), v.end(), address,
                              [](uint64_t a, const Mapping& x) { return a < x.start; });
    if (m == v.begin()) return {kNoModule, address};
    --m;
    if (address >= m->end) return {kNoModule, address};
    return {m->module, address - m->start + m->pgoff};
}

}  // namespace sl::capture
