#pragma once
// Resolves (module path, file offset) frames to function names at merge time: one ELF parse
// per module per session (ElfSymbols), unreadable modules remembered with the reason. "[vdso]"
// is read from the profiler's own vDSO (the kernel maps the same image into every 64-bit
// process); other pseudo modules ("//anon", JIT memory, deleted files) are left unresolved.
// Not thread-safe.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "capture/launcher/ElfSymbols.h"

namespace sl::capture {

class FrameSymbolizer {
public:
    // "" when unresolved.
    std::string_view function(const std::string& module, uint64_t offset);
    // Reads the module's symbols now (SymbolPrefetch); function() then only looks them up.
    void preload(const std::string& module) { symbolsOf(module); }
    // module path -> why it could not be read (not pseudo modules).
    const std::map<std::string, std::string>& unreadable() const { return m_unreadable; }
    size_t modulesLoaded() const { return m_modules.size(); }

private:
    ElfSymbols* symbolsOf(const std::string& module);
    std::unordered_map<std::string, std::unique_ptr<ElfSymbols>> m_modules;  // null: unreadable
    std::map<std::string, std::string> m_unreadable;
};

}  // namespace sl::capture
