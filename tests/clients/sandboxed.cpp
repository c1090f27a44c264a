// Test client: a program that sandboxes itself with seccomp after an NVTX range "before-seal",
// then works inside the sandbox. Exits with a known code; prints what it did.
//   sandboxed filter   an allow-list filter (prctl) that kills the process on any other call:
//                      printf inside, exit code 3
//   sandboxed syscall  the same filter installed through syscall(SYS_seccomp), as libseccomp
//                      does: exit code 3
//   sandboxed deny     a filter refusing openat with EACCES (prctl), then open, a forked child
//                      (exit 5) and an exec of `/bin/sh -c "exit 6"` (which cannot load its
//                      libraries: exit 127, as without a profiler)
//   sandboxed strict   strict mode: one write, then the exit system call with code 4
//   sandboxed system   a filter that kills on ftruncate and fallocate (calls a profiler's module
//                      makes as it starts, the program never), then system("exit 7"): exit 7
//   sandboxed probe    libseccomp's feature probes (calls that fail: EINVAL, EFAULT), then the
//                      NVTX range "after-probe": exit 0
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

#define SL_ALLOW(n) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, n, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

// What printf and exit need, and nothing of what a profiler's module does at its end.
sock_filter g_allowList[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
    SL_ALLOW(SYS_read), SL_ALLOW(SYS_write), SL_ALLOW(SYS_exit), SL_ALLOW(SYS_exit_group),
    SL_ALLOW(SYS_rt_sigreturn), SL_ALLOW(SYS_brk), SL_ALLOW(SYS_mmap), SL_ALLOW(SYS_munmap),
    SL_ALLOW(SYS_fstat), SL_ALLOW(SYS_newfstatat), SL_ALLOW(SYS_close), SL_ALLOW(SYS_futex),
    SL_ALLOW(SYS_clock_gettime), SL_ALLOW(SYS_lseek),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)};

sock_filter g_denyOpen[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};

sock_filter g_killModuleCalls[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ftruncate, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fallocate, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};

template <size_t N>
int install(sock_filter (&f)[N], bool viaSyscall) {
    sock_fprog prog{static_cast<unsigned short>(N), f};
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (viaSyscall) return static_cast<int>(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

}  // namespace

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "filter";
    nvtxRangePushA("before-seal");
    nvtxRangePop();
    std::printf("sandboxing\n");
    std::fflush(stdout);
    if (!std::strcmp(mode, "filter") || !std::strcmp(mode, "syscall")) {
        if (install(g_allowList, mode[0] == 's') != 0) return 1;
        nvtxRangePushA("in-sandbox");
        std::printf("in sandbox\n");
        nvtxRangePop();
        return 3;
    }
    if (!std::strcmp(mode, "deny")) {
        if (install(g_denyOpen, false) != 0) return 1;
        const int fd = open("/etc/hostname", O_RDONLY);
        std::printf("open %d %s\n", fd, fd < 0 ? strerrorname_np(errno) : "");
        std::fflush(stdout);
        const pid_t child = fork();
        if (child == 0) _exit(5);
        int status = 0;
        waitpid(child, &status, 0);
        std::printf("child %d\n", WEXITSTATUS(status));
        std::fflush(stdout);
        execl("/bin/sh", "sh", "-c", "exit 6", static_cast<char*>(nullptr));
        return 2;
    }
    if (!std::strcmp(mode, "system")) {
        if (install(g_killModuleCalls, false) != 0) return 1;
        const int status = std::system("exit 7");
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (!std::strcmp(mode, "probe")) {
        const long strict = syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 1, nullptr);
        const long filter = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, nullptr);
        std::printf("probes %ld %ld\n", strict, filter);
        nvtxRangePushA("after-probe");
        nvtxRangePop();
        return 0;
    }
    if (!std::strcmp(mode, "strict")) {
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
        const char text[] = "in strict mode\n";
        if (write(1, text, sizeof text - 1) < 0) return 1;
        syscall(SYS_exit, 4);
    }
    return 1;
}
