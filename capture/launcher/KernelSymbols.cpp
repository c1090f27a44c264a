#include "capture/launcher/KernelSymbols.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace sl::capture {
namespace {
constexpr uint64_t kMaxFunctionBytes = 1 << 20;
}

KernelSymbols KernelSymbols::load(const std::string& path) {
    KernelSymbols out;
    std::ifstream f(path);
    std::string line;
    while (std::getline(f, line)) {
        // "ffffffff81000000 T _stext" or "... t name\t[module]"
        char* end = nullptr;
        const uint64_t address = std::strtoull(line.c_str(), &end, 16);
        if (address == 0 && end != line.c_str()) break;  // hidden (kptr_restrict): all zero
        if (end == line.c_str() || line.size() < static_cast<size_t>(end - line.c_str()) + 4)
            continue;
        const size_t typeAt = static_cast<size_t>(end - line.c_str()) + 1;
        const char type = line[typeAt];
        if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
        const size_t nameAt = typeAt + 2;
        const size_t nameEnd = line.find_first_of(" \t", nameAt);
        const std::string_view name = std::string_view(line).substr(
            nameAt, nameEnd == std::string::npos ? std::string::npos : nameEnd - nameAt);
        if (name.empty()) continue;
        out.m_symbols.push_back({address, static_cast<uint32_t>(out.m_names.size()),
                                 static_cast<uint32_t>(name.size())});
        out.m_names.append(name);
    }
    std::stable_sort(out.m_symbols.begin(), out.m_symbols.end(),
                     [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
    return out;
}

std::string_view KernelSymbols::functionAt(uint64_t address) const {
    auto it = std::upper_bound(m_symbols.begin(), m_symbols.end(), address,
                               [](uint64_t a, const Symbol& s) { return a < s.address; });
    if (it == m_symbols.begin()) return {};
    const Symbol& s = *(it - 1);
    if (address - s.address > kMaxFunctionBytes) return {};
    return std::string_view(m_names).substr(s.name, s.length);
}

}  // namespace sl::capture
