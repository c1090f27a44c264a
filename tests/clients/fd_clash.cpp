// Test client: a program that puts its own file at the descriptor numbers the profiler's module
// uses (1000 and up), as bash's `exec 1000>log` or a program's dup2 does (issue #15):
//   fd_clash FILE RANGES   opens FILE, dup2s it onto 1000-1003, records RANGES push/pop pairs
//                          named "after" (enough to fill and hand over the module's buffers),
//                          writes "mine\n" to 1000 and prints "ranges=<RANGES+1>". FILE must
//                          hold exactly "mine\n" at the end, and every range reach the report.
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    const long ranges = std::atol(argv[2]);
    nvtxRangePushA("before");  // the module's stream and arena are open from here
    nvtxRangePop();
    const int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return 3;
    for (int n = 1000; n <= 1003; ++n)
        if (dup2(fd, n) != n) return 4;
    close(fd);
    for (long i = 0; i < ranges; ++i) {
        nvtxRangePushA("after");
        nvtxRangePop();
    }
    if (write(1000, "mine\n", 5) != 5) return 5;
    for (int n = 1000; n <= 1003; ++n) close(n);
    std::printf("ranges=%ld\n", ranges + 1);
    return 0;
}
