#pragma once
// Whether the loader will run our preloaded module in an executable: a statically linked one has
// no loader; for a setuid or setgid one (the caller not its owner) the loader runs in secure mode
// and ignores LD_PRELOAD. Used by the launcher before the program starts and by the injected
// module before each exec and posix_spawn, so the report can name every process that could not
// be traced and why. Header-only and allocation-free: it runs in the exec interposer, possibly
// in a forked child of a threaded program.
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace sl::capture {

enum class Untraceable : uint8_t { No = 0, Static = 1, Setuid = 2, Setgid = 3 };

// Why the loader will not run our module in `path` (No also when it cannot be read: the exec
// then decides).
inline Untraceable untraceableImage(const char* path) {
    struct stat st {};
    if (!path || ::stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return Untraceable::No;
    if ((st.st_mode & S_ISUID) && st.st_uid != ::getuid()) return Untraceable::Setuid;
    if ((st.st_mode & S_ISGID) && st.st_gid != ::getgid()) return Untraceable::Setgid;
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Untraceable::No;
    Elf64_Ehdr eh{};
    const bool isElf64 = ::pread(fd, &eh, sizeof eh, 0) == static_cast<ssize_t>(sizeof eh) &&
                         std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
                         eh.e_ident[EI_CLASS] == ELFCLASS64;
    bool hasInterp = false;
    if (isElf64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (int i = 0; i < eh.e_phnum && !hasInterp; ++i) {
            Elf64_Phdr ph{};
            const off_t at = static_cast<off_t>(eh.e_phoff + static_cast<uint64_t>(i) * sizeof ph);
            if (::pread(fd, &ph, sizeof ph, at) != static_cast<ssize_t>(sizeof ph)) break;
            hasInterp = ph.p_type == PT_INTERP;
        }
    }
    ::close(fd);
    // A script (#!) or another format: its interpreter decides; only ELF executables without an
    // interpreter (ET_EXEC, or static-pie ET_DYN) are known to run without the loader.
    if (isElf64 && !hasInterp && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN))
        return Untraceable::Static;
    return Untraceable::No;
}

// What the report and the launcher's warning say after the program's name.
inline const char* untraceableText(Untraceable u) {
    switch (u) {
        case Untraceable::Static:
            return "is statically linked: no loader runs in it to preload our module";
        case Untraceable::Setuid:
            return "is setuid: the loader ignores LD_PRELOAD for it";
        case Untraceable::Setgid:
            return "is setgid: the loader ignores LD_PRELOAD for it";
        case Untraceable::No:
            break;
    }
    return "";
}

// The file execvp would run for `file` (searched in $PATH when it has no '/'), written to `out`;
// false when there is none or it does not fit.
inline bool findExecutable(const char* file, char* out, size_t size) {
    if (!file || !*file) return false;
    const size_t fileLen = std::strlen(file);
    if (std::strchr(file, '/')) {
        if (fileLen + 1 > size) return false;
        std::memcpy(out, file, fileLen + 1);
        return true;
    }
    const char* dirs = std::getenv("PATH");
    if (!dirs) dirs = "/bin:/usr/bin";
    for (const char* d = dirs;; ) {
        const char* end = std::strchr(d, ':');
        const size_t len = end ? static_cast<size_t>(end - d) : std::strlen(d);
        const size_t dirLen = len ? len : 1;  // an empty entry is the current directory
        if (dirLen + 1 + fileLen + 1 <= size) {
            std::memcpy(out, len ? d : ".", dirLen);
            out[dirLen] = '/';
            std::memcpy(out + dirLen + 1, file, fileLen + 1);
            if (::access(out, X_OK) == 0) return true;
        }
        if (!end) break;
        d = end + 1;
    }
    return false;
}

}  // namespace sl::capture
