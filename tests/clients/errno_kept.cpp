// A program that reads errno across NVTX calls (a pop between a failed read() and its perror,
// a retry loop on EAGAIN): the profiler's work inside those calls, making the stream file at the
// first full buffer included, must leave the program's errno as it was.
//   errno_kept N   N marks with errno set to EINTR before each; prints "marks=N", or exits 3
//                  saying at which mark errno changed and to what
#include <nvtx3/nvToolsExt.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
    for (int i = 0; i < n; ++i) {
        errno = EINTR;
        nvtxMarkA("kept");
        if (errno != EINTR) {
            const int changed = errno;
            std::fprintf(stderr, "errno_kept: mark %d changed errno to %d\n", i, changed);
            return 3;
        }
    }
    std::printf("marks=%d\n", n);
    return 0;
}
