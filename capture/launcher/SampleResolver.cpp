#include "capture/launcher/SampleResolver.h"

#include "capture/launcher/FrameSymbolizer.h"
#include "capture/launcher/KernelSymbols.h"

#include <algorithm>

namespace sl::capture {
namespace {
constexpr size_t kRawCacheAddresses = size_t{4} << 20;
}

uint32_t SampleResolver::stackOf(int64_t pid, const uint64_t* ips, size_t n) {
    // Stale after a mapping change; bounded (32 MiB of addresses) when stacks rarely repeat.
    if (m_rawGeneration != m_maps.generation() || m_rawIps.size() > kRawCacheAddresses) {
        m_rawCache.clear();
        m_rawIps.clear();
        m_rawGeneration = m_maps.generation();
    }
    uint64_t h = static_cast<uint64_t>(pid) * 0x9E3779B97F4A7C15ULL ^ n;
    for (size_t i = 0; i < n; ++i) h = (h ^ ips[i]) * 0x100000001B3ULL;
    auto it = m_rawCache.find(h);
    if (it != m_rawCache.end() && it->second.pid == pid && it->second.count == n &&
        std::equal(ips, ips + n, m_rawIps.begin() + static_cast<ptrdiff_t>(it->second.begin)))
        return it->second.stack;
    const uint32_t stack = slowStackOf(pid, ips, n);
    if (it == m_rawCache.end()) {
        m_rawCache.emplace(h, RawStack{pid, m_rawIps.size(), static_cast<uint32_t>(n), stack});
        m_rawIps.insert(m_rawIps.end(), ips, ips + n);
    }
    return stack;
}

uint32_t SampleResolver::slowStackOf(int64_t pid, const uint64_t* ips, size_t n) {
    m_scratch.clear();
    bool userLeaf = true;
    for (size_t i = 0; i < n; ++i) {
        Key k{kKernel, ips[i], false};
        if (i > 0 || !KernelSymbols::isKernelAddress(ips[i])) {
            const ModuleMaps::Location l = m_maps.lookup(pid, ips[i]);
            // Every user frame but the first is a return address: symbolize the call.
            k = {l.module, l.offset, !userLeaf};
            userLeaf = false;
        }
        auto [it, inserted] = m_frameIndex.try_emplace(k, static_cast<uint32_t>(m_frames.size()));
        if (inserted) {
            m_frames.push_back({k.module, k.offset, 0, k.caller});
            m_kernelFrames |= k.module == kKernel;
            if (k.module != kKernel && k.module != ModuleMaps::kNoModule &&
                m_modulesSeen.insert(k.module).second)
                m_newModules.push_back(k.module);
        }
        m_scratch.push_back(it->second);
    }
    auto [st, inserted] = m_stackIndex.try_emplace(m_scratch, static_cast<uint32_t>(stackCount()));
    if (inserted) {
        m_stackFrames.insert(m_stackFrames.end(), m_scratch.begin(), m_scratch.end());
        m_stackBegin.push_back(m_stackFrames.size());
    }
    return st->second;
}

void SampleResolver::symbolize(const KernelSymbols* kernel, FrameSymbolizer* given) {
    FrameSymbolizer own;
    FrameSymbolizer& symbolizer = given ? *given : own;
    std::unordered_map<std::string_view, uint32_t> functionIndex;
    const auto& modules = m_maps.modules();
    for (Frame& f : m_frames) {
        std::string_view name;
        if (f.module == kKernel) {
            if (kernel) name = kernel->functionAt(f.offset);
            if (name.empty()) f.offset = 0;  // all unnamed kernel addresses: one "[kernel]" frame
        } else if (f.module < modules.size()) {
            const uint64_t at = f.caller && f.offset > 0 ? f.offset - 1 : f.offset;
            name = symbolizer.function(modules[f.module], at);
        }
        if (name.empty()) continue;
        auto [it, inserted] =
            functionIndex.try_emplace(name, static_cast<uint32_t>(m_functions.size()));
        if (inserted) m_functions.emplace_back(name);
        f.function = it->second;
    }
    for (const auto& [path, why] : symbolizer.unreadable())
        if (m_unreadableCount++ < 3) m_unreadable += (m_unreadable.empty() ? "" : "; ") + why;
    m_stackUnresolved.assign(stackCount(), 0);
    for (uint32_t s = 0; s < stackCount(); ++s)
        for (const uint32_t* f = stackBegin(s); f != stackEnd(s); ++f)
            m_stackUnresolved[s] += unresolved(m_frames[*f]);
}

}  // namespace sl::capture
