#pragma once
// Kernel function symbols from /proc/kallsyms, for the kernel leaf frame of CPU samples taken
// in the kernel. Empty when the kernel hides addresses (kptr_restrict: every address reads 0).
// Sorted once; lookups are binary searches. Immutable after load().
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sl::capture {

class KernelSymbols {
public:
    static KernelSymbols load(const std::string& path = "/proc/kallsyms");
    // The function containing `address`, or "" (unknown, or past the last symbol by more than
    // a plausible function size).
    std::string_view functionAt(uint64_t address) const;
    size_t size() const { return m_symbols.size(); }
    // Kernel space on x86-64 and arm64: the upper half of the address space.
    static bool isKernelAddress(uint64_t a) { return a >= 0xffff800000000000ULL; }

private:
    struct Symbol {
        uint64_t address;
        uint32_t name, length;  // in m_names
    };
    std::vector<Symbol> m_symbols;
    std::string m_names;
};

}  // namespace sl::capture
