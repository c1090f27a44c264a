// Test client: children made without fork(), so without the atfork handlers (issue #15): the
// parent's recording must go on as without them, and each child be a process of its own.
//   raw_fork                  runs the cases below, prints one line per case, exits 0 when
//                             all held
//   raw_fork child NAME CODE  an exec'd child: pushes the NVTX range NAME, exits with CODE
// Cases (children's exit codes in brackets); each child pushes the NVTX range
// "before-exec" (which it may not record: it runs async-signal-safe code's child) and execs
// this program with a range name:
//   _Fork        "fork-child" (3).
//   clone        clone() without CLONE_VM (a copy of the memory, as fork): "clone-child" (4).
//   clone-files  the same sharing the descriptor table (CLONE_FILES): "clone-files" (8).
//   clone-pidns  the same in a new PID namespace (CLONE_NEWPID): "clone-pidns" (5); prints
//                "clone-pidns: skipped" where the system does not permit it.
//   clone-vfork  clone(CLONE_VM | CLONE_VFORK) on a stack of its own, as vfork: the child
//                execs this program ("clone-vfork-exec", 6); a second one returns at once (7).
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
#include <initializer_list>
#include <thread>
#include <utility>

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

alignas(16) char g_stack[256 * 1024];

char g_self[4096];

// Pushes "before-exec", then execs this program as "child NAME CODE".
[[noreturn]] void execChild(const char* name, const char* code) {
    range("before-exec");
    char* const argv[] = {g_self, const_cast<char*>("child"), const_cast<char*>(name),
                          const_cast<char*>(code), nullptr};
    execv(g_self, argv);
    _exit(127);
}

int cloneChild(void* which) {
    const char* name = static_cast<const char*>(which);
    execChild(name, std::strcmp(name, "clone-pidns") == 0   ? "5"
                    : std::strcmp(name, "clone-files") == 0 ? "8"
                                                            : "4");
}

int vforkExec(void*) {
    char* const argv[] = {g_self, const_cast<char*>("child"), const_cast<char*>("clone-vfork-exec"),
                          const_cast<char*>("6"), nullptr};
    execv(g_self, argv);
    _exit(127);
}

int vforkReturn(void*) {
    return 7;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "child") == 0) {
        range(argv[2]);
        return std::atoi(argv[3]);
    }
    const ssize_t n = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
    if (n <= 0) return 2;
    g_self[n] = 0;
    std::thread worker([] {
        for (int i = 0; i < 50; ++i) range("worker");
    });
    for (int i = 0; i < 5; ++i) range("before");
    bool ok = true;

    const pid_t forked = _Fork();
    if (forked == 0) execChild("fork-child", "3");
    ok &= report("_Fork", forked > 0 ? waitFor(forked) : -1, 3);

    char name[] = "clone-child";
    const pid_t cloned = clone(cloneChild, g_stack + sizeof g_stack, SIGCHLD, name);
    ok &= report("clone", cloned > 0 ? waitFor(cloned) : -1, 4);

    char filesName[] = "clone-files";
    const pid_t sharing = clone(cloneChild, g_stack + sizeof g_stack, CLONE_FILES | SIGCHLD, filesName);
    ok &= report("clone-files", sharing > 0 ? waitFor(sharing) : -1, 8);

    char pidnsName[] = "clone-pidns";
    const pid_t inNs = clone(cloneChild, g_stack + sizeof g_stack, CLONE_NEWPID | SIGCHLD, pidnsName);
    if (inNs < 0 && (errno == EPERM || errno == EINVAL || errno == ENOSPC || errno == EUSERS))
        std::printf("clone-pidns: skipped (%s)\n", std::strerror(errno));
    else
        ok &= report("clone-pidns", inNs > 0 ? waitFor(inNs) : -1, 5);

    for (auto [fn, want] : {std::pair{&vforkExec, 6}, std::pair{&vforkReturn, 7}}) {
        const pid_t v = clone(fn, g_stack + sizeof g_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, nullptr);
        ok &= report(want == 6 ? "clone-vfork exec" : "clone-vfork return", v > 0 ? waitFor(v) : -1,
                     want);
    }

    worker.join();
    for (int i = 0; i < 3; ++i) range("after");
    return ok ? 0 : 1;
}
