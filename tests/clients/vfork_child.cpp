// Test client: vfork as programs use it. Under `sightline profile` every check must hold as it
// does without it (issue #15): the child shares the parent's memory until it execs or exits.
//   vfork_child                 the parent: runs the cases below, prints one line per case and
//                               exits 0 when all of them held (1 otherwise)
//   vfork_child child NAME CODE an exec'd child: pushes the NVTX range NAME, exits with CODE
// Cases (children's exit codes in brackets):
//   shared-memory  the child writes a variable and _exits (0); the parent sees the write.
//   exec-error     the child execs a missing file and leaves errno for the parent (127).
//   exec           vfork + exec of this program, range "vfork-exec" (21).
//   empty-env      the same with an empty environment, range "vfork-empty-env" (22).
//   signals        the child ignores SIGTERM and resets SIGUSR1, then exits (0): the parent's
//                  dispositions read as before and its SIGUSR1 handler still runs.
//   nested         the child vforks a child of its own (5) and exits with its code + 1 (6).
//   exit           the child's exec fails and it calls exit(), not _exit (4); it also pushes
//                  the NVTX range "in-vfork-child" first (which no tool may record).
//   heap           500 vfork + exec of this program ("heap", 0) with "LD_PRELOAD=" as the whole
//                  environment: the parent's heap in use grows by less than 16 KiB.
// Meanwhile a second thread pushes 50 ranges "worker"; at the end the main thread pushes
// "after-vfork".
#include <malloc.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

std::atomic<int> g_usr1{0};
void onUsr1(int) {
    g_usr1.fetch_add(1);
}

int waitFor(pid_t pid) {
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

bool report(const char* name, bool ok, const char* detail = "") {
    std::printf("%s: %s%s%s\n", name, ok ? "ok" : "FAILED", *detail ? " " : "", detail);
    return ok;
}

bool sharedMemory() {
    volatile int shared = 0;
    const pid_t pid = vfork();
    if (pid == 0) {
        shared = 42;
        _exit(0);
    }
    const int code = waitFor(pid);
    char detail[64];
    std::snprintf(detail, sizeof detail, "(the parent read %d, child exit %d)", shared, code);
    return report("shared-memory", pid > 0 && shared == 42 && code == 0, detail);
}

bool execError() {
    volatile int childErrno = 0;
    const pid_t pid = vfork();
    if (pid == 0) {
        char* args[] = {const_cast<char*>("missing"), nullptr};
        execv("/nonexistent/vfork_child_missing", args);
        childErrno = errno;
        _exit(127);
    }
    const int code = waitFor(pid);
    char detail[64];
    std::snprintf(detail, sizeof detail, "(errno %d, child exit %d)", childErrno, code);
    return report("exec-error", childErrno == ENOENT && code == 127, detail);
}

bool execSelf(const char* self, const char* name, const char* code, char* const* env) {
    const pid_t pid = vfork();
    if (pid == 0) {
        char* args[] = {const_cast<char*>(self), const_cast<char*>("child"),
                        const_cast<char*>(name), const_cast<char*>(code), nullptr};
        execve(self, args, env);
        _exit(126);
    }
    const int got = waitFor(pid);
    char detail[32];
    std::snprintf(detail, sizeof detail, "(child exit %d)", got);
    return report(name, got == std::atoi(code), detail);
}

bool signals() {
    struct sigaction usr1 {};
    usr1.sa_handler = onUsr1;
    sigemptyset(&usr1.sa_mask);
    sigaction(SIGUSR1, &usr1, nullptr);
    const pid_t pid = vfork();
    if (pid == 0) {
        signal(SIGTERM, SIG_IGN);
        signal(SIGUSR1, SIG_DFL);
        _exit(0);
    }
    const int code = waitFor(pid);
    struct sigaction term {}, now {};
    sigaction(SIGTERM, nullptr, &term);
    sigaction(SIGUSR1, nullptr, &now);
    raise(SIGUSR1);
    const bool ok = code == 0 && term.sa_handler == SIG_DFL && now.sa_handler == onUsr1 &&
                    g_usr1.load() == 1;
    return report("signals", ok, ok ? "" : "(a child's dispositions reached the parent)");
}

bool nested() {
    const pid_t pid = vfork();
    if (pid == 0) {
        const pid_t inner = vfork();
        if (inner == 0) _exit(5);
        _exit(waitFor(inner) + 1);
    }
    const int code = waitFor(pid);
    char detail[32];
    std::snprintf(detail, sizeof detail, "(child exit %d)", code);
    return report("nested", code == 6, detail);
}

bool exitInChild() {
    const pid_t pid = vfork();
    if (pid == 0) {
        nvtxRangePushA("in-vfork-child");
        char* args[] = {const_cast<char*>("missing"), nullptr};
        execv("/nonexistent/vfork_child_missing", args);
        exit(4);
    }
    const int code = waitFor(pid);
    char detail[32];
    std::snprintf(detail, sizeof detail, "(child exit %d)", code);
    return report("exit", code == 4, detail);
}

bool heap(const char* self) {
    char preload[] = "LD_PRELOAD=";
    char* env[] = {preload, nullptr};
    char* args[] = {const_cast<char*>(self), const_cast<char*>("child"),
                    const_cast<char*>("heap"), const_cast<char*>("0"), nullptr};
    const size_t before = mallinfo2().uordblks;
    int failures = 0;
    for (int i = 0; i < 500; ++i) {
        const pid_t pid = vfork();
        if (pid == 0) {
            execve(self, args, env);
            _exit(126);
        }
        failures += waitFor(pid) != 0;
    }
    const size_t after = mallinfo2().uordblks;
    const long grown = static_cast<long>(after) - static_cast<long>(before);
    char detail[96];
    std::snprintf(detail, sizeof detail, "(heap in use grew by %ld bytes; %d children failed)",
                  grown, failures);
    return report("heap", failures == 0 && grown < 16 * 1024, detail);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "child") == 0) {
        nvtxRangePushA(argv[2]);
        nvtxRangePop();
        return std::atoi(argv[3]);
    }
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 100;
    self[n] = 0;
    std::atomic<bool> stop{false};
    std::thread worker([&] {
        for (int i = 0; i < 50; ++i) {
            nvtxRangePushA("worker");
            usleep(2000);
            nvtxRangePop();
        }
    });
    extern char** environ;
    char* emptyEnv[] = {nullptr};
    bool ok = sharedMemory();
    ok = execError() && ok;
    ok = execSelf(self, "vfork-exec", "21", environ) && ok;
    ok = execSelf(self, "vfork-empty-env", "22", emptyEnv) && ok;
    ok = signals() && ok;
    ok = nested() && ok;
    ok = exitInChild() && ok;
    ok = heap(self) && ok;
    worker.join();
    nvtxRangePushA("after-vfork");
    nvtxRangePop();
    return ok ? 0 : 1;
}
