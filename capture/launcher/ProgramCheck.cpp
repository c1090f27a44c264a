#include "capture/launcher/ProgramCheck.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace sl::capture {

std::string resolveProgram(const std::string& program) {
    if (program.find('/') != std::string::npos) return program;
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/bin:/usr/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        std::string dir = dirs.substr(start, end - start);
        std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
        start = end + 1;
    }
    return {};
}

std::string untraceableReason(const std::string& path) {
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
    if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
        return path + " is setuid: the loader ignores LD_PRELOAD for it, so its NVTX, OS runtime "
                      "and CUDA calls are not traced (CPU samples, context switches and its exit "
                      "status are)";
    if ((st.st_mode & S_ISGID) && st.st_gid != getgid())
        return path + " is setgid: the loader ignores LD_PRELOAD for it, so its NVTX, OS runtime "
                      "and CUDA calls are not traced (CPU samples, context switches and its exit "
                      "status are)";
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    Elf64_Ehdr eh{};
    bool isElf64 = ::pread(fd, &eh, sizeof eh, 0) == static_cast<ssize_t>(sizeof eh) &&
                   std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64;
    bool hasInterp = false;
    if (isElf64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (int i = 0; i < eh.e_phnum && !hasInterp; ++i) {
            Elf64_Phdr ph{};
            if (::pread(fd, &ph, sizeof ph,
                        static_cast<off_t>(eh.e_phoff + static_cast<uint64_t>(i) * sizeof ph)) !=
                static_cast<ssize_t>(sizeof ph))
                break;
            hasInterp = ph.p_type == PT_INTERP;
        }
    }
    ::close(fd);
    // A script (#!) or another format: its interpreter decides; only static ELF executables
    // (ET_EXEC or static-pie ET_DYN without PT_INTERP) are known to run without the loader.
    if (isElf64 && !hasInterp && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN))
        return path + " is statically linked: no loader runs in it to preload our module, so its "
                      "NVTX, OS runtime and CUDA calls are not traced (CPU samples, context "
                      "switches and its exit status are)";
    return {};
}

}  // namespace sl::capture
