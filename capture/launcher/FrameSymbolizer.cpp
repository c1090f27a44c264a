#include "capture/launcher/FrameSymbolizer.h"

namespace sl::capture {

ElfSymbols* FrameSymbolizer::symbolsOf(const std::string& module) {
    auto it = m_modules.find(module);
    if (it != m_modules.end()) return it->second.get();
    std::unique_ptr<ElfSymbols> symbols;
    // Only files: "[vdso]", "[heap]", "//anon", "/memfd:..." and JIT regions are not.
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
