#pragma once
// The function symbols of one ELF file (executable or shared object, 64-bit), for turning a
// sampled instruction's file offset into a function name after the process is gone. Reads
// .symtab, else .dynsym (or the .symtab of a /usr/lib/debug/.build-id/ file when one is
// installed); maps file offsets to virtual addresses through the PT_LOAD segments (PIE and
// shared objects). Symbols are sorted once; lookups are binary searches; names are demangled
// on first use. The file is read with pread, never mapped, and its names are kept in the
// object: the program may rewrite or cut it in place while the capture runs. Not thread-safe.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/core/Result.h"

namespace sl::capture {

class ElfSymbols {
public:
    struct Source;  // what a parse reads: a file (by pread) or memory; ElfSymbols.cpp

    static Result<ElfSymbols> load(const std::string& path);
    // An ELF image in this process's memory that outlives the object (the vDSO).
    static Result<ElfSymbols> fromMemory(const uint8_t* data, size_t size, const std::string& name);

    // The function containing the instruction at `fileOffset` (demangled C++), or "" when no
    // function symbol covers it.
    std::string_view functionAt(uint64_t fileOffset);
    // The virtual address (as in the symbol table) of a file offset; false when no loadable
    // segment holds it.
    bool addressOf(uint64_t fileOffset, uint64_t* address) const;
    size_t symbolCount() const { return m_symbols.size(); }
    bool fromDebugFile() const { return m_debugFile; }

private:
    struct Segment {
        uint64_t offset, fileSize, vaddr;
    };
    struct Symbol {
        uint64_t start, size;
        uint64_t name;           // offset in m_strings (NUL-terminated)
        int32_t demangled = -1;  // index into m_names once demangled
    };

    static Result<ElfSymbols> parse(const std::shared_ptr<Source>& file, const std::string& path);
    Status readSymbols(const std::shared_ptr<Source>& file, const std::string& path);

    std::vector<Segment> m_segments;
    std::vector<Symbol> m_symbols;    // sorted by start
    std::string m_strings;            // the symbols' names, as in the file
    std::deque<std::string> m_names;  // stable: functionAt hands out views
    bool m_debugFile = false;
};

}  // namespace sl::capture
