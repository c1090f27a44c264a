#include "capture/launcher/KernelSymbols.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "capture/launcher/HostName.h"

namespace sl::capture {
namespace {
constexpr uint64_t kMaxFunctionBytes = 1 << 20;

// The cache file: this header, `count` symbols (address order), then the names.
struct CacheHeader {
    char magic[8];
    uint64_t key;
    uint64_t count;
    uint64_t namesBytes;
};
constexpr char kCacheMagic[8] = {'S', 'L', 'K', 'S', 'Y', 'M', '0', '1'};

uint64_t fnv1a(uint64_t h, const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    return h;
}

std::string readSmallFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// The whole file mapped read-only (its size in `size`), or null.
std::shared_ptr<const void> mapWhole(const std::string& path, size_t& size) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat st{};
    void* at = MAP_FAILED;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        size = static_cast<size_t>(st.st_size);
        at = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    ::close(fd);
    if (at == MAP_FAILED) return nullptr;
    return std::shared_ptr<const void>(at, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
}

bool writeAll(int fd, const void* from, size_t bytes) {
    const auto* p = static_cast<const char*>(from);
    while (bytes > 0) {
        const ssize_t n = ::write(fd, p, bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n, bytes -= static_cast<size_t>(n);
    }
    return true;
}
}  // namespace

uint64_t KernelSymbols::currentKey(const std::string& procRoot) {
    // The boot id changes at each boot (and with it the KASLR offset); /proc/modules lists each
    // module with its load address, so loading or unloading one changes it too.
    // Of each module only its name and address: the use count on the same line changes as
    // devices open and close, which would make the cache miss for nothing.
    uint64_t h = fnv1a(14695981039346656037ULL, readSmallFile(procRoot + "/sys/kernel/random/boot_id"));
    std::istringstream modules(readSmallFile(procRoot + "/modules"));
    for (std::string line; std::getline(modules, line);) {
        std::istringstream words(line);
        std::string word, name, address;
        for (words >> name; words >> word;)
            if (word.starts_with("0x")) address = word;
        h = fnv1a(h, "\n" + name + " " + address);
    }
    return h;
}

std::string KernelSymbols::defaultCacheFile() {
    std::string dir;
    if (const char* d = std::getenv("SIGHTLINE_CACHE_DIR"); d && *d)
        dir = d;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        dir = std::string(x) + "/sightline";
    else if (const char* home = std::getenv("HOME"); home && *home)
        dir = std::string(home) + "/.cache/sightline";
    else
        return {};
    // One file per machine: a home directory shared over NFS serves many, and a file another
    // machine replaces under a mapping of ours would fault when read (ESTALE).
    std::string host = hostName();
    if (host.empty()) host = "host";
    std::replace(host.begin(), host.end(), '/', '_');
    return dir + "/kallsyms-" + std::to_string(::geteuid()) + "-" + host + ".bin";
}

KernelSymbols KernelSymbols::loadForThisBoot() {
    const std::string file = defaultCacheFile();
    if (file.empty()) return load();
    return loadCached("/proc/kallsyms", file, currentKey());
}

// A damaged file must not name frames wrongly: every name inside the names, addresses in
// order; anything else is read again from the kernel.
std::optional<KernelSymbols> KernelSymbols::mapCache(const std::string& cacheFile, uint64_t key) {
    size_t size = 0;
    std::shared_ptr<const void> mapping = mapWhole(cacheFile, size);
    if (!mapping || size < sizeof(CacheHeader)) return std::nullopt;
    const auto* base = static_cast<const char*>(mapping.get());
    CacheHeader h{};
    std::memcpy(&h, base, sizeof h);
    if (std::memcmp(h.magic, kCacheMagic, sizeof h.magic) != 0 || h.key != key || h.count == 0 ||
        h.count >= (1u << 26) || h.namesBytes >= (1u << 30) ||
        size != sizeof h + h.count * sizeof(Symbol) + h.namesBytes)
        return std::nullopt;
    // The header is 32 bytes, so the symbols that follow it are aligned as mmap's page is.
    const std::span<const Symbol> symbols(reinterpret_cast<const Symbol*>(base + sizeof h), h.count);
    const std::string_view names(base + sizeof h + h.count * sizeof(Symbol), h.namesBytes);
    for (size_t i = 0; i < symbols.size(); ++i) {
        const Symbol& s = symbols[i];
        if (static_cast<uint64_t>(s.name) + s.length > names.size() ||
            (i > 0 && symbols[i - 1].address > s.address))
            return std::nullopt;
    }
    KernelSymbols out;
    out.m_mapping = std::move(mapping);
    out.m_mappedSymbols = symbols;
    out.m_mappedNames = names;
    return out;
}

KernelSymbols KernelSymbols::loadCached(const std::string& kallsymsPath, const std::string& cacheFile,
                                        uint64_t key, bool* fromCache) {
    if (fromCache) *fromCache = false;
    if (std::optional<KernelSymbols> cached = mapCache(cacheFile, key)) {
        if (fromCache) *fromCache = true;
        return std::move(*cached);
    }
    KernelSymbols out = load(kallsymsPath);
    if (out.m_symbols.empty()) return out;
    // Written whole under a temporary name, then renamed: a reader sees the old file or the new.
    std::error_code ec;
    const std::filesystem::path target(cacheFile);
    std::filesystem::create_directories(target.parent_path(), ec);
    const std::string tmp = cacheFile + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return out;
    CacheHeader h{};
    std::memcpy(h.magic, kCacheMagic, sizeof h.magic);
    h.key = key;
    h.count = out.m_symbols.size();
    h.namesBytes = out.m_names.size();
    const bool written = writeAll(fd, &h, sizeof h) &&
                         writeAll(fd, out.m_symbols.data(), out.m_symbols.size() * sizeof(Symbol)) &&
                         writeAll(fd, out.m_names.data(), out.m_names.size());
    ::close(fd);
    if (!written || ::rename(tmp.c_str(), cacheFile.c_str()) != 0) ::unlink(tmp.c_str());
    return out;
}


KernelSymbols KernelSymbols::load(const std::string& path) {
    KernelSymbols out;
    std::ifstream f(path);
    std::string line;
    while (std::getline(f, line)) {
        // "ffffffff81000000 T _stext" or "... t name\t[module]"
        char* end = nullptr;
        const uint64_t address = std::strtoull(line.c_str(), &end, 16);
        if (address == 0 && end != line.c_str()) break;  // hidden (kptr_restrict): all zero
        if (end == line.c_str() || line.size() < static_cast<size_t>(end - line.c_str()) + 4)
            continue;
        const size_t typeAt = static_cast<size_t>(end - line.c_str()) + 1;
        const char type = line[typeAt];
        if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
        const size_t nameAt = typeAt + 2;
        const size_t nameEnd = line.find_first_of(" \t", nameAt);
        const std::string_view name = std::string_view(line).substr(
            nameAt, nameEnd == std::string::npos ? std::string::npos : nameEnd - nameAt);
        if (name.empty()) continue;
        out.m_symbols.push_back({address, static_cast<uint32_t>(out.m_names.size()),
                                 static_cast<uint32_t>(name.size())});
        out.m_names.append(name);
    }
    std::stable_sort(out.m_symbols.begin(), out.m_symbols.end(),
                     [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
    return out;
}

std::string_view KernelSymbols::functionAt(uint64_t address) const {
    const std::span<const Symbol> all = symbols();
    auto it = std::upper_bound(all.begin(), all.end(), address,
                               [](uint64_t a, const Symbol& s) { return a < s.address; });
    if (it == all.begin()) return {};
    const Symbol& s = *(it - 1);
    if (address - s.address > kMaxFunctionBytes) return {};
    return names().substr(s.name, s.length);
}

}  // namespace sl::capture
