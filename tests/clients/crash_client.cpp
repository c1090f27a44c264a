// Test client: records 1000 NVTX ranges "before-crash" and then ends badly:
//   segv    dereferences a null pointer halfway through its work
//   abort   calls abort()
//   exit    calls _exit(3)
//   kill9   forks a child that records 500 ranges "child-work" and then blocks; the parent
//           kills it with SIGKILL and exits 0 (the child's unflushed data is lost)
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
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
