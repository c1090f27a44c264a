#pragma once
// Kernel name strings: demangling (abi::__cxa_demangle) and the short name nsys shows
// ("vectorized_elementwise_kernel" for "void at::native::vectorized_elementwise_kernel<4,
// ...>(...)"). Caches by the name pointer CUPTI hands out (it is shared by every record of a
// kernel) and checks the text, so a reused address never returns a stale name. Not thread-safe.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sl::cuda {

std::string demangle(const char* mangled);  // the input itself when it is not a mangled name
std::string shortKernelName(std::string_view demangled);

class KernelNames {
public:
    struct Ids {
        uint32_t mangled = 0, demangled = 0, shortName = 0;
    };
    // intern: a callable string_view -> uint32_t id.
    template <class Intern>
    const Ids& lookup(const char* name, Intern&& intern) {
        if (!name) name = "";
        auto it = m_cache.find(name);
        if (it != m_cache.end() && it->second.text == name) return it->second.ids;
        Entry e{name, {}};
        std::string d = demangle(name);
        e.ids.mangled = intern(std::string_view(name));
        e.ids.demangled = intern(std::string_view(d));
        e.ids.shortName = intern(std::string_view(shortKernelName(d)));
        return (m_cache[name] = std::move(e)).ids;
    }

private:
    struct Entry {
        std::string text;
        Ids ids;
    };
    std::unordered_map<const char*, Entry> m_cache;
};

}  // namespace sl::cuda
