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

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace sl::capture {

enum class Untraceable : uint8_t { No = 0, Static = 1, Setuid = 2, Setgid = 3 };

// Why the loader will not run our module in `path` (No also when it cannot be read: the exec
// then decides). One open, one fstat and two or three preads.
inline Untraceable untraceableImage(const char* path) {
    if (!path) return Untraceable::No;
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Untraceable::No;
    struct stat st {};
    Untraceable why = Untraceable::No;
    Elf64_Ehdr eh{};
    Elf64_Phdr ph[32];
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        why = Untraceable::No;
    } else if ((st.st_mode & S_ISUID) && st.st_uid != ::getuid()) {
        why = Untraceable::Setuid;
    } else if ((st.st_mode & S_ISGID) && st.st_gid != ::getgid()) {
        why = Untraceable::Setgid;
    } else if (::pread(fd, &eh, sizeof eh, 0) == static_cast<ssize_t>(sizeof eh) &&
               std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
               (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) && eh.e_phentsize == sizeof(Elf64_Phdr) &&
               eh.e_phnum > 0 && eh.e_phnum <= 32) {
        // Only ELF executables without an interpreter run without the loader (a script (#!) or
        // another format: its interpreter decides). Not the loader itself run as a program
        // (`ld-linux-x86-64.so.2 prog`): a shared object, it has a DT_SONAME, and preloads.
        const size_t bytes = sizeof(Elf64_Phdr) * eh.e_phnum;
        if (::pread(fd, ph, bytes, static_cast<off_t>(eh.e_phoff)) == static_cast<ssize_t>(bytes)) {
            const Elf64_Phdr* dynamic = nullptr;
            bool hasInterp = false;
            for (int i = 0; i < eh.e_phnum; ++i) {
                hasInterp = hasInterp || ph[i].p_type == PT_INTERP;
                if (ph[i].p_type == PT_DYNAMIC) dynamic = &ph[i];
            }
            bool hasSoname = false;
            if (!hasInterp && dynamic && eh.e_type == ET_DYN) {
                Elf64_Dyn dyn[64];
                const size_t n = std::min<size_t>(dynamic->p_filesz / sizeof(Elf64_Dyn), 64);
                const ssize_t got = ::pread(fd, dyn, n * sizeof(Elf64_Dyn),
                                            static_cast<off_t>(dynamic->p_offset));
                for (size_t i = 0; got > 0 && i < static_cast<size_t>(got) / sizeof(Elf64_Dyn) &&
                                   dyn[i].d_tag != DT_NULL;
                     ++i)
                    hasSoname = hasSoname || dyn[i].d_tag == DT_SONAME;
            }
            if (!hasInterp && !hasSoname) why = Untraceable::Static;
        }
    }
    ::close(fd);
    return why;
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
