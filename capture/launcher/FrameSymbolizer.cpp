#include "capture/launcher/FrameSymbolizer.h"

#include <sys/auxv.h>

#include <cstdio>
#include <fstream>

namespace sl::capture {
namespace {

// The vDSO of this process: the same image the kernel maps into every 64-bit process.
std::unique_ptr<ElfSymbols> ownVdso() {
    const auto base = getauxval(AT_SYSINFO_EHDR);
    if (base == 0) return nullptr;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        unsigned long long start = 0, end = 0;
        if (line.find("[vdso]") == std::string::npos ||
            std::sscanf(line.c_str(), "%llx-%llx", &start, &end) != 2 || start != base)
            continue;
        auto vdso = ElfSymbols::fromMemory(reinterpret_cast<const uint8_t*>(base),
                                           static_cast<size_t>(end - start), "[vdso]");
        if (vdso) return std::make_unique<ElfSymbols>(std::move(*vdso));
    }
    return nullptr;
}

}  // namespace

ElfSymbols* FrameSymbolizer::symbolsOf(const std::string& module) {
    auto it = m_modules.find(module);
    if (it != m_modules.end()) return it->second.get();
    std::unique_ptr<ElfSymbols> symbols;
    if (module == "[vdso]") symbols = ownVdso();
    // Only files: "[heap]", "//anon", "/memfd:..." and JIT regions are not ("[vdso]" is ours).
    const bool file = module.size() > 1 && module[0] == '/' && module[1] != '/' &&  // "//anon"
                      module.rfind("/memfd:", 0) != 0 &&
                      module.find(" (deleted)") == std::string::npos;
    if (file) {
        auto loaded = ElfSymbols::load(module);
        if (loaded)
            symbols = std::make_unique<ElfSymbols>(std::move(*loaded));
        else
            m_unreadable[module] = loaded.error();
    }
    return m_modules.emplace(module, std::move(symbols)).first->second.get();
}

std::string_view FrameSymbolizer::function(const std::string& module, uint64_t offset) {
    ElfSymbols* s = symbolsOf(module);
    return s ? s->functionAt(offset) : std::string_view();
}

}  // namespace sl::capture
