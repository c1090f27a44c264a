#include "capture/launcher/PythonStacks.h"

#include <algorithm>
#include <cctype>

namespace sl::capture {

void PythonStacks::add(int64_t pid, int64_t tid, int64_t time, uint32_t stack) {
    m_threads[{pid, tid}].push_back({time, stack});
    ++m_count;
}

void PythonStacks::finish() {
    for (auto& [key, v] : m_threads)
        std::stable_sort(v.begin(), v.end(),
                         [](const Sample& a, const Sample& b) { return a.time < b.time; });
}

uint32_t PythonStacks::nearest(int64_t pid, int64_t tid, int64_t time, int64_t tolerance) const {
    const auto it = m_threads.find({pid, tid});
    if (it == m_threads.end() || it->second.empty()) return UINT32_MAX;
    const auto& v = it->second;
    const auto after = std::lower_bound(v.begin(), v.end(), time,
                                        [](const Sample& s, int64_t t) { return s.time < t; });
    const Sample* best = nullptr;
    int64_t bestGap = INT64_MAX;
    auto consider = [&](const Sample& s) {
        const int64_t gap = s.time > time ? s.time - time : time - s.time;
        if (gap < bestGap) {
            bestGap = gap;
            best = &s;
        }
    };
    if (after != v.end()) consider(*after);
    if (after != v.begin()) consider(*(after - 1));
    return best && bestGap <= tolerance ? best->stack : UINT32_MAX;
}

bool PythonStacks::isInterpreterModule(std::string_view path) {
    if (const auto slash = path.rfind('/'); slash != std::string_view::npos)
        path.remove_prefix(slash + 1);
    if (path.starts_with("libpython")) return path.find(".so") != std::string_view::npos;
    if (!path.starts_with("python")) return false;
    // python, python3, python3.12, python3.13d, python3.13t: digits, dots and ABI letters.
    for (char c : path.substr(6))
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'd' && c != 't' &&
            c != 'm' && c != 'u')
            return false;
    return true;
}

}  // namespace sl::capture
