#include "capture/launcher/MpiFlavor.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <string_view>
#include <vector>

namespace sl::capture {
namespace {

std::string flavorOfLauncherName(std::string_view base) {
    for (std::string_view n : {"mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich", "hydra_pmi_proxy"})
        if (base == n) return "mpich";
    for (std::string_view n : {"mpirun.openmpi", "mpiexec.openmpi", "orterun", "prterun", "orted", "prted"})
        if (base == n) return "openmpi";
    return {};
}

std::string flavorOfLibrary(std::string_view lib) {
    if (lib.starts_with("libmpich")) return "mpich";
    if (lib.starts_with("libmpi.so.4") || lib.starts_with("libopen-pal") || lib.starts_with("libopen-rte"))
        return "openmpi";
    return {};
}

bool readAt(int fd, void* out, size_t bytes, uint64_t offset) {
    return ::pread(fd, out, bytes, static_cast<off_t>(offset)) == static_cast<ssize_t>(bytes);
}

// The DT_NEEDED names of a 64-bit ELF executable or library; empty for anything else.
std::vector<std::string> neededLibraries(const std::string& path) {
    std::vector<std::string> out;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return out;
    Elf64_Ehdr eh{};
    std::vector<Elf64_Phdr> ph;
    if (readAt(fd, &eh, sizeof eh, 0) && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 256) {
        ph.resize(eh.e_phnum);
        if (!readAt(fd, ph.data(), ph.size() * sizeof(Elf64_Phdr), eh.e_phoff)) ph.clear();
    }
    // An address in the image to a file offset, through the loadable segments.
    const auto fileOffset = [&](uint64_t addr, uint64_t* off) {
        for (const Elf64_Phdr& p : ph)
            if (p.p_type == PT_LOAD && addr >= p.p_vaddr && addr < p.p_vaddr + p.p_filesz) {
                *off = p.p_offset + (addr - p.p_vaddr);
                return true;
            }
        return false;
    };
    for (const Elf64_Phdr& p : ph) {
        if (p.p_type != PT_DYNAMIC || p.p_filesz > (1u << 20)) continue;
        std::vector<Elf64_Dyn> dyn(p.p_filesz / sizeof(Elf64_Dyn));
        if (!readAt(fd, dyn.data(), dyn.size() * sizeof(Elf64_Dyn), p.p_offset)) break;
        uint64_t strtab = 0, strsz = 0;
        for (const Elf64_Dyn& d : dyn) {
            if (d.d_tag == DT_STRTAB) strtab = d.d_un.d_ptr;
            if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
        }
        uint64_t strOff = 0;
        if (!strtab || !strsz || strsz > (1u << 22) || !fileOffset(strtab, &strOff)) break;
        std::string strings(strsz, '\0');
        if (!readAt(fd, strings.data(), strsz, strOff)) break;
        for (const Elf64_Dyn& d : dyn)
            if (d.d_tag == DT_NEEDED && d.d_un.d_val < strsz) out.emplace_back(strings.c_str() + d.d_un.d_val);
        break;
    }
    ::close(fd);
    return out;
}

}  // namespace

std::string mpiFlavorOf(const std::string& programPath) {
    if (programPath.empty()) return {};
    char real[PATH_MAX];
    const std::string path = ::realpath(programPath.c_str(), real) ? std::string(real) : programPath;
    // The launcher's name counts for an executable only (a script named like one, OpenHPC's
    // prun, wraps any implementation).
    const std::vector<std::string> needed = neededLibraries(path);
    for (const std::string& lib : needed)
        if (std::string f = flavorOfLibrary(lib); !f.empty()) return f;
    if (needed.empty()) return {};
    const size_t slash = path.rfind('/');
    if (std::string f = flavorOfLauncherName(slash == std::string::npos ? path : path.substr(slash + 1)); !f.empty())
        return f;
    return {};
}

std::string mpiFlavorOfEnvironment(std::string* variable) {
    const auto set = [](const char* name) {
        const char* v = std::getenv(name);
        return v && *v;
    };
    if (set("OMPI_COMM_WORLD_RANK")) {
        if (variable) *variable = "OMPI_COMM_WORLD_RANK";
        return "openmpi";
    }
    if (set("PMI_RANK") && (set("PMI_FD") || set("PMI_PORT"))) {
        if (variable) *variable = set("PMI_FD") ? "PMI_RANK and PMI_FD" : "PMI_RANK and PMI_PORT";
        return "mpich";
    }
    return {};
}

}  // namespace sl::capture
