// Takes over the descriptor numbers the injection module holds (1000 and up) behind its back,
// with raw dup3 system calls no interposer sees (as Go programs and close_range users do),
// then records ranges and writes through every number it took:
//   held_fds FILE RANGES   prints "ranges=<RANGES>" and "kept=<numbers still naming FILE>".
// FILE must then hold "start\n" and one line per number, nothing of the profiler's.
//   held_fds fill RANGES   opens /dev/null until the descriptor limit says no (EMFILE), then
//                          records RANGES ranges and prints "ranges=<RANGES>" and "open=<n>".
//   held_fds calls         calls what takes a descriptor (stat, statx, the *at calls with it as
//                          the directory, copies, locks) on 1000 and prints each answer
//                          ("statx=EBADF ..."): the same with and without the profiler.
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
constexpr int kFirst = 1000, kCount = 8;

bool namesFile(int fd, const struct stat& file) {
    struct stat st {};
    return fstat(fd, &st) == 0 && st.st_dev == file.st_dev && st.st_ino == file.st_ino;
}
}  // namespace

// At its descriptor limit before its first records are written (the stream is made with the
// first block): every range must still reach the report.
int fill(long ranges) {
    int open_ = 0;
    while (open("/dev/null", O_RDONLY) >= 0) ++open_;
    if (errno != EMFILE) std::perror("open");
    for (long i = 0; i < ranges; ++i) {
        nvtxRangePushA("r");
        nvtxRangePop();
    }
    std::printf("ranges=%ld\nopen=%d\n", ranges, open_);
    return 0;
}

// What binaries built against glibc before 2.33 call for fstat (a compat symbol now).
extern "C" int __fxstat(int ver, int fd, struct stat* st);
__asm__(".symver __fxstat,__fxstat@GLIBC_2.2.5");

int calls() {
    struct stat st {};
    struct statx sx {};
    struct statfs sf {};
    struct statvfs sv {};
    std::string out;
    auto answer = [&](const char* name, long r) {
        out += name;
        out += '=';
        out += r >= 0 ? "ok" : (errno == EBADF ? "EBADF" : strerrorname_np(errno));
        out += ' ';
    };
    const int fd = kFirst;
    answer("fstat", fstat(fd, &st));
    answer("__fxstat", __fxstat(1, fd, &st));
    answer("fstatat_empty", fstatat(fd, "", &st, AT_EMPTY_PATH));
    answer("fstatat_relative", fstatat(fd, "x", &st, 0));
    answer("statx_empty", statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx));
    answer("openat_relative", openat(fd, "x", O_RDONLY));
    answer("fstatfs", fstatfs(fd, &sf));
    answer("fstatvfs", fstatvfs(fd, &sv));
    answer("flock", flock(fd, LOCK_SH | LOCK_NB));
    answer("fchdir", fchdir(fd));
    answer("syncfs", syncfs(fd));
    int pipeFds[2];
    if (pipe(pipeFds) != 0) return 2;
    answer("sendfile", sendfile(pipeFds[1], fd, nullptr, 1));
    answer("copy_file_range", copy_file_range(fd, nullptr, pipeFds[1], nullptr, 1, 0));
    answer("splice", splice(fd, nullptr, pipeFds[1], nullptr, 1, SPLICE_F_NONBLOCK));
    answer("tee", tee(fd, pipeFds[1], 1, SPLICE_F_NONBLOCK));
    answer("openat64_relative", openat64(fd, "x", O_RDONLY));
    answer("fchownat_empty", fchownat(fd, "", getuid(), getgid(), AT_EMPTY_PATH));
    answer("faccessat_relative", faccessat(fd, "x", F_OK, 0));
    answer("unlinkat_relative", unlinkat(fd, "x", 0));
    char link[64];
    answer("readlinkat_empty", readlinkat(fd, "", link, sizeof link));
    answer("linkat_empty", linkat(fd, "", AT_FDCWD, "/nonexistent-dir/x", AT_EMPTY_PATH));
    answer("fgetxattr", fgetxattr(fd, "user.x", link, sizeof link));
    answer("futimens", futimens(fd, nullptr));
    const int ep = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    answer("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
    // An absolute path ignores the directory: these succeed with and without us.
    answer("fstatat_absolute", fstatat(fd, "/", &st, 0));
    std::printf("%s\n", out.c_str());
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "calls") == 0) return calls();
    if (argc < 3) {
        std::fprintf(stderr, "usage: held_fds FILE RANGES | held_fds fill RANGES\n");
        return 2;
    }
    if (std::strcmp(argv[1], "fill") == 0) return fill(std::atol(argv[2]));
    const long ranges = std::atol(argv[2]);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "start\n", 6) != 6) {
        std::perror(argv[1]);
        return 2;
    }
    struct stat file {};
    fstat(fd, &file);
    nvtxMarkA("begin");
    for (int n = kFirst; n < kFirst + kCount; ++n)
        if (syscall(SYS_dup3, fd, n, 0) != n) {
            std::perror("dup3");
            return 2;
        }
    for (long i = 0; i < ranges; ++i) {
        nvtxRangePushA("r");
        nvtxRangePop();
    }
    int kept = 0;
    for (int n = kFirst; n < kFirst + kCount; ++n) {
        if (!namesFile(n, file)) continue;
        ++kept;
        char line[16];
        const int len = std::snprintf(line, sizeof line, "%d\n", n);
        if (write(n, line, static_cast<size_t>(len)) != len) std::perror("write");
    }
    std::printf("ranges=%ld\nkept=%d\n", ranges, kept);
    return 0;
}
