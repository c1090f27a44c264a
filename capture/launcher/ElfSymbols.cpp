#include "capture/launcher/ElfSymbols.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <unordered_map>

namespace sl::capture {

// Where the parse reads from: a file, read piece by piece with pread (never mapped: the
// program may rewrite or cut a module in place while the capture runs, and a mapping would then
// show other bytes or fault), or an image in this process's memory (the vDSO).
struct ElfSymbols::Source {
    int fd = -1;
    const uint8_t* memory = nullptr;
    uint64_t size = 0;
    // What at() read, kept until the parse ends (pointers into it are handed out).
    mutable std::deque<std::unique_ptr<uint8_t[]>> pieces;
    ~Source() {
        if (fd >= 0) ::close(fd);
    }
    // `count` T at `offset`, or null when they are not all in the file (or misaligned there).
    template <class T>
    const T* at(uint64_t offset, uint64_t count = 1) const {
        if (offset > size || count > (size - offset) / sizeof(T)) return nullptr;
        if (offset % alignof(T) != 0) return nullptr;  // a corrupt header: refuse, never UB
        if (memory) return reinterpret_cast<const T*>(memory + offset);
        const size_t bytes = static_cast<size_t>(count * sizeof(T));
        // Not zeroed first: pread fills it (cc1's symbols: 2 MB that were written twice).
        auto piece = std::make_unique_for_overwrite<uint8_t[]>(std::max<size_t>(bytes, 1));
        if (!readAt(piece.get(), bytes, offset)) return nullptr;  // cut short since opened
        pieces.push_back(std::move(piece));
        return reinterpret_cast<const T*>(pieces.back().get());
    }
    // Appends `bytes` at `offset` to `out`, read straight into it (a string table is kept whole:
    // no second copy). False, and `out` as it was, when they are not all in the file.
    bool appendTo(std::string& out, uint64_t offset, uint64_t bytes) const {
        if (offset > size || bytes > size - offset) return false;
        const size_t at = out.size();
        if (memory) {
            out.append(reinterpret_cast<const char*>(memory + offset), static_cast<size_t>(bytes));
            return true;
        }
        out.resize(at + static_cast<size_t>(bytes));
        if (readAt(reinterpret_cast<uint8_t*>(out.data() + at), static_cast<size_t>(bytes), offset))
            return true;
        out.resize(at);
        return false;
    }

private:
    bool readAt(uint8_t* to, size_t bytes, uint64_t offset) const {
        for (size_t done = 0; done < bytes;) {
            const ssize_t n = ::pread(fd, to + done, bytes - done, static_cast<off_t>(offset + done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            done += static_cast<size_t>(n);
        }
        return true;
    }
};

namespace {

const Elf64_Ehdr* header(const ElfSymbols::Source& f) {
    const auto* eh = f.at<Elf64_Ehdr>(0);
    if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) return nullptr;
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB) return nullptr;
    return eh;
}

bool isFunction(const Elf64_Sym& s) {
    const int type = ELF64_ST_TYPE(s.st_info);
    return (type == STT_FUNC || type == STT_GNU_IFUNC) && s.st_shndx != SHN_UNDEF &&
           s.st_value != 0;
}

std::string hex(const uint8_t* p, size_t n) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        s += d[p[i] >> 4];
        s += d[p[i] & 15];
    }
    return s;
}

Result<std::shared_ptr<ElfSymbols::Source>> openFile(const std::string& path) {
    auto f = std::make_shared<ElfSymbols::Source>();
    f->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) return makeError(path + ": " + std::strerror(errno));
    struct stat st {};
    if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return makeError(path + ": not a regular file");
    f->size = static_cast<uint64_t>(st.st_size);
    if (!header(*f)) return makeError(path + ": not a 64-bit little-endian ELF file");
    return f;
}
}  // namespace

Result<ElfSymbols> ElfSymbols::load(const std::string& path) {
    auto file = openFile(path);
    if (!file) return makeError(file.error());
    return parse(*file, path);
}

Result<ElfSymbols> ElfSymbols::fromMemory(const uint8_t* data, size_t size,
                                          const std::string& name) {
    auto m = std::make_shared<Source>();
    m->memory = data;
    m->size = size;
    if (!header(*m)) return makeError(name + ": not a 64-bit little-endian ELF image");
    return parse(m, name);
}

Result<ElfSymbols> ElfSymbols::parse(const std::shared_ptr<Source>& file, const std::string& path) {
    const Source& f = *file;
    const Elf64_Ehdr* eh = header(f);
    if (!eh) return makeError(path + ": cut short while it was read");
    ElfSymbols out;
    const auto* ph = f.at<Elf64_Phdr>(eh->e_phoff, eh->e_phnum);
    if (!ph && eh->e_phnum)
        return makeError(path + ": program headers past the end of the file (or misaligned)");
    std::string buildId;
    for (size_t i = 0; i < eh->e_phnum; ++i) {
        if (ph[i].p_type == PT_LOAD)
            out.m_segments.push_back({ph[i].p_offset, ph[i].p_filesz, ph[i].p_vaddr});
        if (ph[i].p_type != PT_NOTE || !buildId.empty()) continue;
        // Notes: namesz, descsz, type, name (4-aligned), desc (4-aligned).
        uint64_t off = ph[i].p_offset, end = ph[i].p_offset + ph[i].p_filesz;
        while (off + 12 <= end) {
            const auto* n = f.at<Elf64_Nhdr>(off);
            if (!n) break;
            const uint64_t name = off + 12, desc = name + ((n->n_namesz + 3) & ~3U);
            const uint64_t next = desc + ((n->n_descsz + 3) & ~3U);
            const uint8_t* descBytes = next <= end ? f.at<uint8_t>(desc, n->n_descsz) : nullptr;
            if (!descBytes) break;
            const uint8_t* nameBytes = n->n_namesz == 4 ? f.at<uint8_t>(name, 4) : nullptr;
            if (n->n_type == NT_GNU_BUILD_ID && nameBytes &&
                std::memcmp(nameBytes, "GNU", 4) == 0 && n->n_descsz > 1)
                buildId = hex(descBytes, n->n_descsz);
            off = next;
        }
    }
    if (Status s = out.readSymbols(file, path); !s) return makeError(s.error());
    // A stripped file (.dynsym only): its separate debug file has the full .symtab.
    if (!out.m_debugFile && !buildId.empty()) {
        const std::string debug =
            "/usr/lib/debug/.build-id/" + buildId.substr(0, 2) + "/" + buildId.substr(2) + ".debug";
        if (auto d = openFile(debug); d) {
            ElfSymbols dbg;
            if (dbg.readSymbols(*d, debug) && dbg.m_debugFile) {
                out.m_symbols = std::move(dbg.m_symbols);
                out.m_strings = std::move(dbg.m_strings);
                out.m_debugFile = true;
            }
        }
    }
    return out;
}

// Reads .symtab (sets m_debugFile: a full table) or else .dynsym of `file`.
Status ElfSymbols::readSymbols(const std::shared_ptr<Source>& file, const std::string& path) {
    const Source& f = *file;
    const Elf64_Ehdr* eh = header(f);
    if (!eh) return makeError(path + ": cut short while it was read");
    if (eh->e_shnum == 0) return {};  // no sections: no symbols, every frame unresolved
    const auto* sh = f.at<Elf64_Shdr>(eh->e_shoff, eh->e_shnum);
    if (!sh) return makeError(path + ": section headers past the end of the file (or misaligned)");
    // As read: the name's offset in m_strings, the place in the table (the sort's tie-break).
    struct Raw {
        uint64_t start, size, name;
        uint32_t order;
    };
    for (uint32_t wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
        std::vector<Raw> symbols;
        // The string tables are kept whole (one copy, the symbols' offsets into them kept): the
        // file is not read again after the parse, as the program may rewrite it meanwhile.
        m_strings.clear();
        std::unordered_map<size_t, uint64_t> copied;  // string section -> its offset in m_strings
        size_t entries = 0;
        for (size_t i = 0; i < eh->e_shnum; ++i)
            if (sh[i].sh_type == wanted) entries += sh[i].sh_size / sizeof(Elf64_Sym);
        symbols.reserve(std::min<size_t>(entries, f.size / sizeof(Elf64_Sym)) + 3);
        for (size_t i = 0; i < eh->e_shnum; ++i) {
            if (sh[i].sh_type != wanted || sh[i].sh_entsize != sizeof(Elf64_Sym)) continue;
            if (sh[i].sh_link >= eh->e_shnum) continue;
            const Elf64_Shdr& strSec = sh[sh[i].sh_link];
            const auto* syms = f.at<Elf64_Sym>(sh[i].sh_offset, sh[i].sh_size / sizeof(Elf64_Sym));
            auto [at, first] = copied.try_emplace(sh[i].sh_link, m_strings.size());
            const uint64_t base = at->second;
            const bool stringsRead = !first || (strSec.sh_size != 0 &&
                                                f.appendTo(m_strings, strSec.sh_offset, strSec.sh_size));
            if (!syms || !stringsRead || m_strings[base + strSec.sh_size - 1] != 0)
                return makeError(path + ": symbol table " + std::to_string(i) +
                                 " or its strings past the end of the file (or misaligned)");
            for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); ++k) {
                if (!isFunction(syms[k]) || syms[k].st_name >= strSec.sh_size) continue;
                uint64_t size = syms[k].st_size;
                // A symbol without a size (crti's _init, hand-written assembly) ends with its
                // section at the latest: past it lie other sections, e.g. the PLT after .init.
                if (size == 0 && syms[k].st_shndx < eh->e_shnum) {
                    const Elf64_Shdr& in = sh[syms[k].st_shndx];
                    if (syms[k].st_value >= in.sh_addr && syms[k].st_value < in.sh_addr + in.sh_size)
                        size = in.sh_addr + in.sh_size - syms[k].st_value;
                }
                symbols.push_back({syms[k].st_value, size, base + syms[k].st_name,
                                   static_cast<uint32_t>(symbols.size())});
            }
        }
        if (symbols.empty()) {
            m_strings.clear();
            continue;
        }
        // The PLT stubs have no symbols: a sample there is "[plt]" (the program calling a
        // shared library's function), not the function before them.
        const Elf64_Shdr& names = sh[eh->e_shstrndx < eh->e_shnum ? eh->e_shstrndx : 0];
        const auto* sectionNames = f.at<char>(names.sh_offset, names.sh_size);
        for (size_t i = 0; sectionNames && names.sh_size > 0 && i < eh->e_shnum; ++i) {
            if (sh[i].sh_name >= names.sh_size || sh[i].sh_size == 0) continue;
            const std::string_view name(sectionNames + sh[i].sh_name,
                                        strnlen(sectionNames + sh[i].sh_name,
                                                names.sh_size - sh[i].sh_name));
            if (name != ".plt" && name != ".plt.sec" && name != ".plt.got") continue;
            symbols.push_back({sh[i].sh_addr, sh[i].sh_size, m_strings.size(),
                               static_cast<uint32_t>(symbols.size())});
            m_strings.append("[plt]").push_back('\0');
        }
        // Aliases share an address: keep one, the one with a size (then the first in the
        // table). The table order makes the order total, so the unstable sort gives what a
        // stable one would, without its buffer (cc1's 26,305 symbols: 2.7 -> 2.0 ms to parse).
        std::sort(symbols.begin(), symbols.end(), [](const Raw& a, const Raw& b) {
            if (a.start != b.start) return a.start < b.start;
            if ((a.size != 0) != (b.size != 0)) return a.size != 0;
            return a.order < b.order;
        });
        symbols.erase(std::unique(symbols.begin(), symbols.end(),
                                  [](const Raw& a, const Raw& b) { return a.start == b.start; }),
                      symbols.end());
        m_symbols.clear();
        m_symbols.reserve(symbols.size());
        for (const Raw& r : symbols) m_symbols.push_back({r.start, r.size, r.name});
        m_debugFile = wanted == SHT_SYMTAB;
        return {};
    }
    return {};
}

bool ElfSymbols::addressOf(uint64_t fileOffset, uint64_t* address) const {
    for (const Segment& s : m_segments) {
        if (fileOffset >= s.offset && fileOffset < s.offset + s.fileSize) {
            *address = fileOffset - s.offset + s.vaddr;
            return true;
        }
    }
    return false;
}

std::string_view ElfSymbols::functionAt(uint64_t fileOffset) {
    uint64_t addr = 0;
    if (!addressOf(fileOffset, &addr)) return {};
    auto it = std::upper_bound(m_symbols.begin(), m_symbols.end(), addr,
                               [](uint64_t a, const Symbol& s) { return a < s.start; });
    if (it == m_symbols.begin()) return {};
    Symbol& s = *(it - 1);
    // A symbol without a size covers up to the next symbol (hand-written assembly).
    if (s.size != 0 ? addr >= s.start + s.size : it == m_symbols.end()) return {};
    if (s.demangled < 0) {
        int status = 0;
        const char* name = m_strings.data() + s.name;
        char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
        m_names.emplace_back(status == 0 && d ? d : name);
        std::free(d);
        s.demangled = static_cast<int32_t>(m_names.size() - 1);
    }
    return m_names[static_cast<size_t>(s.demangled)];
}

}  // namespace sl::capture
