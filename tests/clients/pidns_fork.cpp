// A program that moves its children to a new PID namespace itself (unshare(CLONE_NEWPID), as
// container runtimes and `unshare --pid` do) and forks without exec: the child is pid 1 there
// and its own child pid 2, yet both record and must keep the pids the profiler sees.
//   pidns_fork   exits 77 when unshare is not permitted (no CAP_SYS_ADMIN)
#include <nvtx3/nvToolsExt.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main() {
    if (unshare(CLONE_NEWPID) != 0) {
        std::perror("unshare(CLONE_NEWPID)");
        return 77;
    }
    const pid_t child = fork();
    if (child == 0) {
        nvtxRangePushA("ns-child");
        const pid_t grandchild = fork();
        if (grandchild == 0) {
            nvtxRangePushA("ns-grandchild");
            nvtxRangePop();
            _exit(0);
        }
        waitpid(grandchild, nullptr, 0);
        nvtxRangePop();
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
