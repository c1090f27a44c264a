#pragma once
// Kernel function symbols from /proc/kallsyms, for the kernel leaf frame of CPU samples taken
// in the kernel. Empty when the kernel hides addresses (kptr_restrict: every address reads 0).
// Sorted once; lookups are binary searches. Immutable after load().
//
// Reading /proc/kallsyms costs about 60 ms of kernel time (the kernel formats 120,000 lines) plus
// our parse, in every profile that has a kernel-mode sample: a tenth of a short profile. The
// table is the same until the next boot or module load, so loadForThisBoot() keeps it in a
// per-user cache file keyed by the boot id and /proc/modules, and reads that (a few ms) instead.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sl::capture {

class KernelSymbols {
public:
    static KernelSymbols load(const std::string& path = "/proc/kallsyms");
    // As load("/proc/kallsyms"), through the cache file ($SIGHTLINE_CACHE_DIR, else
    // $XDG_CACHE_HOME/sightline, else ~/.cache/sightline; no cache when none can be made).
    static KernelSymbols loadForThisBoot();
    // The parts, for tests: `key` names the kernel's current symbol table (the boot id and the
    // module list); a cache file written for another key, damaged or unreadable is not used and
    // is replaced. An empty table (hidden addresses) is never cached.
    static KernelSymbols loadCached(const std::string& kallsymsPath, const std::string& cacheFile,
                                    uint64_t key, bool* fromCache = nullptr);
    static uint64_t currentKey(const std::string& procRoot = "/proc");
    static std::string defaultCacheFile();
    // The function containing `address`, or "" (unknown, or past the last symbol by more than
    // a plausible function size).
    std::string_view functionAt(uint64_t address) const;
    size_t size() const { return symbols().size(); }
    // Kernel space on x86-64 and arm64: the upper half of the address space.
    static bool isKernelAddress(uint64_t a) { return a >= 0xffff800000000000ULL; }

private:
    struct Symbol {
        uint64_t address;
        uint32_t name, length;  // in m_names
    };
    // The cache file for `key`, mapped; nullopt when it is missing, damaged or for another key.
    static std::optional<KernelSymbols> mapCache(const std::string& cacheFile, uint64_t key);
    // Read from /proc/kallsyms: owned here. From the cache file: the file mapped read-only
    // (the symbols and names are used where they lie: copying 5 MB cost 4 ms of every
    // profile); the cache is only ever replaced by a rename, never rewritten in place.
    std::span<const Symbol> symbols() const { return m_mapping ? m_mappedSymbols : m_symbols; }
    std::string_view names() const { return m_mapping ? m_mappedNames : std::string_view(m_names); }
    std::vector<Symbol> m_symbols;
    std::string m_names;
    std::shared_ptr<const void> m_mapping;
    std::span<const Symbol> m_mappedSymbols;
    std::string_view m_mappedNames;
};

}  // namespace sl::capture
