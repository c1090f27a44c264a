#pragma once
// Turns the raw addresses of CPU samples into distinct frames and stacks. Fed in time order
// (mapping changes and samples interleaved as they happened): each address is looked up in its
// process's mappings of that moment (ModuleMaps) and becomes a (module, file offset) frame;
// identical frames and stacks are stored once. symbolize() then names every distinct frame
// once (FrameSymbolizer: one ELF parse per module). Single-threaded.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "capture/launcher/FrameSymbolizer.h"
#include "capture/launcher/KernelSymbols.h"
#include "capture/launcher/ModuleMaps.h"

namespace sl::capture {

class SampleResolver {
public:
    struct Frame {
        uint32_t module;        // ModuleMaps id, ModuleMaps::kNoModule, or kKernel
        uint64_t offset;        // file offset in the module (the address when unmapped or in
                                // the kernel; 0 for a kernel address without a symbol)
        uint32_t function = 0;  // index into functions(); 0 = unresolved
        bool caller = false;    // a return address: symbolized at offset - 1 (the call)
    };
    static constexpr uint32_t kKernel = UINT32_MAX - 1;

    ModuleMaps& maps() { return m_maps; }
    // The distinct stack of these addresses (leaf first) in `pid` now. A kernel address
    // (KernelSymbols::isKernelAddress) is taken as such only as the leaf.
    uint32_t stackOf(int64_t pid, const uint64_t* ips, size_t n);
    // Names every distinct frame; kernel frames from `kernel` (null: all "[kernel]"), the
    // others through `symbolizer` (null: a new one), which may hold modules read already.
    void symbolize(const KernelSymbols* kernel, FrameSymbolizer* symbolizer = nullptr);
    // The modules frames first landed in since the last call (ModuleMaps ids), for reading
    // their symbols ahead.
    std::vector<uint32_t> takeNewModules() { return std::exchange(m_newModules, {}); }
    bool hasKernelFrames() const { return m_kernelFrames; }

    size_t stackCount() const { return m_stackBegin.size() - 1; }
    const uint32_t* stackBegin(uint32_t stack) const {
        return m_stackFrames.data() + m_stackBegin[stack];
    }
    const uint32_t* stackEnd(uint32_t stack) const {
        return m_stackFrames.data() + m_stackBegin[stack + 1];
    }
    uint32_t unresolvedIn(uint32_t stack) const { return m_stackUnresolved[stack]; }
    const std::vector<Frame>& frames() const { return m_frames; }
    const std::vector<std::string>& functions() const { return m_functions; }
    const std::vector<std::string>& modules() const { return m_maps.modules(); }
    // Up to three "path: why" of modules that could not be read, and how many there were.
    const std::string& unreadable() const { return m_unreadable; }
    uint64_t unreadableCount() const { return m_unreadableCount; }
    static bool unresolved(const Frame& f) { return f.function == 0 && f.module != kKernel; }

private:
    struct Key {
        uint32_t module;
        uint64_t offset;
        bool caller;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const noexcept {
            return (k.offset * 0x9E3779B97F4A7C15ULL) ^ (uint64_t{k.module} << 1 | k.caller);
        }
    };
    struct StackHash {
        size_t operator()(const std::vector<uint32_t>& v) const noexcept {
            uint64_t h = 1469598103934665603ULL;
            for (uint32_t f : v) h = (h ^ f) * 1099511628211ULL;
            return static_cast<size_t>(h);
        }
    };

    ModuleMaps m_maps;
    std::vector<Frame> m_frames;
    std::unordered_map<Key, uint32_t, KeyHash> m_frameIndex;
    std::unordered_map<std::vector<uint32_t>, uint32_t, StackHash> m_stackIndex;
    std::vector<uint32_t> m_stackFrames;      // frame indices of the distinct stacks, leaf first
    std::vector<uint64_t> m_stackBegin{0};    // stack i = m_stackFrames[begin[i], begin[i + 1])
    std::vector<uint32_t> m_stackUnresolved;  // per stack, after symbolize()
    std::vector<std::string> m_functions{""};
    std::vector<uint32_t> m_scratch;
    // Fast path for repeated samples: (pid, raw addresses) -> stack, valid for one generation
    // of the mappings (cleared when they change). Collisions fall back to the slow path.
    struct RawStack {
        int64_t pid;
        uint64_t begin;  // in m_rawIps
        uint32_t count, stack;
    };
    std::unordered_map<uint64_t, RawStack> m_rawCache;
    std::vector<uint64_t> m_rawIps;
    uint64_t m_rawGeneration = UINT64_MAX;
    uint32_t slowStackOf(int64_t pid, const uint64_t* ips, size_t n);
    std::string m_unreadable;
    uint64_t m_unreadableCount = 0;
    bool m_kernelFrames = false;
    std::unordered_set<uint32_t> m_modulesSeen;
    std::vector<uint32_t> m_newModules;
};

}  // namespace sl::capture
