// Test client: calls the kernel refuses to a multi-threaded process, made after enough NVTX
// ranges that a profiler's writer thread would have started. Prints the outcome of
// unshare(CLONE_NEWUSER) (0 or the errno's name): the same plain and profiled, whatever the
// machine allows.
#include <nvtx3/nvToolsExt.h>
#include <sched.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main() {
    for (int i = 0; i < 200000; ++i) {
        nvtxRangePushA("fill");
        nvtxRangePop();
    }
    const int r = unshare(CLONE_NEWUSER);
    std::printf("unshare %s\n", r == 0 ? "0" : strerrorname_np(errno));
    return 0;
}
