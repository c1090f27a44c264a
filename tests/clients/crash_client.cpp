// Test client: records 1000 NVTX ranges "before-crash" and then ends badly:
//   segv    dereferences a null pointer halfway through its work
//   abort   calls abort()
//   exit    calls _exit(3)
//   queued-bus  queues itself a SIGBUS of a memory failure (BUS_MCEERR_AO), which no
//           instruction raises again: a handler that only returned would let it live
//   xfsz    raises SIGXFSZ (as a write past `ulimit -f` does)
//   kill9   forks a child that records 500 ranges "child-work" and then blocks; the parent
//           kills it with SIGKILL and exits 0 (the child's unflushed data is lost)
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "segv";
    for (int i = 0; i < 1000; ++i) {
        nvtxRangePushA("before-crash");
        nvtxRangePop();
    }
    if (std::strcmp(mode, "segv") == 0) {
        volatile int* p = nullptr;
        *p = 42;
    } else if (std::strcmp(mode, "abort") == 0) {
        std::abort();
    } else if (std::strcmp(mode, "queued-bus") == 0) {
        siginfo_t si;
        std::memset(&si, 0, sizeof si);
        si.si_signo = SIGBUS;
        si.si_code = BUS_MCEERR_AO;
        si.si_pid = getpid();
        syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), SIGBUS, &si);
        std::printf("still alive\n");
        return 0;
    } else if (std::strcmp(mode, "xfsz") == 0) {
        raise(SIGXFSZ);
    } else if (std::strcmp(mode, "exit") == 0) {
        _exit(3);
    } else if (std::strcmp(mode, "kill9") == 0) {
        int ready[2];
        if (pipe(ready) != 0) return 2;
        pid_t child = fork();
        if (child == 0) {
            for (int i = 0; i < 500; ++i) {
                nvtxRangePushA("child-work");
                nvtxRangePop();
            }
            [[maybe_unused]] ssize_t w = write(ready[1], "r", 1);
            pause();
            _exit(0);
        }
        char c;
        [[maybe_unused]] ssize_t r = read(ready[0], &c, 1);
        kill(child, SIGKILL);
        int st;
        waitpid(child, &st, 0);
        return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 1;
    }
    return 0;
}
