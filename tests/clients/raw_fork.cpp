// Test client: children made without fork(), so without the atfork handlers (issue #15): the
// parent's recording must go on as without them, and each child be a process of its own.
//   raw_fork    runs the cases below, prints one line per case, exits 0 when all held
// Cases (children's exit codes in brackets):
//   _Fork        the child pushes the NVTX range "fork-child" and calls exit() (3).
//   clone        clone() without CLONE_VM (a copy of the memory, as fork): the child pushes
//                "clone-child" and returns from its function (4).
//   clone-pidns  the same in a new PID namespace (CLONE_NEWPID; "clone-pidns", 5); prints
//                "clone-pidns: skipped" where the system does not permit it.
// Before the children the main thread pushes "before" 5 times (still in its buffer when they
// start), after them "after" 3 times; a second thread pushes "worker" 50 times meanwhile.
#include <nvtx3/nvToolsExt.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

extern "C" pid_t _Fork(void);

namespace {

int waitFor(pid_t pid) {
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

bool report(const char* name, int code, int want) {
    std::printf("%s: %s (child exit %d)\n", name, code == want ? "ok" : "FAILED", code);
    return code == want;
}

void range(const char* name) {
    nvtxRangePushA(name);
    usleep(500);
    nvtxRangePop();
}

int cloneChild(void* name) {
    range(static_cast<const char*>(name));
    return std::strcmp(static_cast<const char*>(name), "clone-pidns") == 0 ? 5 : 4;
}

alignas(16) char g_stack[256 * 1024];

}  // namespace

int main() {
    std::thread worker([] {
        for (int i = 0; i < 50; ++i) range("worker");
    });
    for (int i = 0; i < 5; ++i) range("before");
    bool ok = true;

    const pid_t forked = _Fork();
    if (forked == 0) {
        range("fork-child");
        std::exit(3);
    }
    ok &= report("_Fork", forked > 0 ? waitFor(forked) : -1, 3);

    char name[] = "clone-child";
    const pid_t cloned = clone(cloneChild, g_stack + sizeof g_stack, SIGCHLD, name);
    ok &= report("clone", cloned > 0 ? waitFor(cloned) : -1, 4);

    char pidnsName[] = "clone-pidns";
    const pid_t inNs = clone(cloneChild, g_stack + sizeof g_stack, CLONE_NEWPID | SIGCHLD, pidnsName);
    if (inNs < 0 && (errno == EPERM || errno == EINVAL || errno == ENOSPC || errno == EUSERS))
        std::printf("clone-pidns: skipped (%s)\n", std::strerror(errno));
    else
        ok &= report("clone-pidns", inNs > 0 ? waitFor(inNs) : -1, 5);

    worker.join();
    for (int i = 0; i < 3; ++i) range("after");
    return ok ? 0 : 1;
}
