// A signal handler that forks (fork is async-signal-safe) after interrupting an NVTX record:
// the child returns from the handler and finishes the record it was forked inside, then
// records its own mark. It died of SIGSEGV there (the record committed through a thread state
// the fork had cleared). The program's memcpy (exported, so that the module's copy of a long
// NVTX text comes here) raises the signal in the middle of that record.
//   fork_in_handler   prints "child exited N" (the child exits 7 after its mark "child")
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>

namespace {
const char kLongText[] = "a-record-interrupted-by-a-handler-that-forks-0123456789";
volatile sig_atomic_t g_armed = 0;
volatile pid_t g_child = -1;
void onSignal(int) {
    g_child = fork();
}
}  // namespace

extern "C" void* memcpy(void* d, const void* s, size_t n) noexcept {
    auto* to = static_cast<volatile unsigned char*>(d);
    const auto* from = static_cast<const volatile unsigned char*>(s);
    for (size_t i = 0; i < n; ++i) to[i] = from[i];
    if (g_armed && s == kLongText) {
        g_armed = 0;
        raise(SIGUSR1);
    }
    return d;
}

int main() {
    signal(SIGUSR1, onSignal);
    g_armed = 1;
    nvtxMarkA(kLongText);  // the handler forks inside this record
    if (g_child == 0) {
        nvtxMarkA("child");
        _exit(7);
    }
    if (g_child < 0) {
        std::printf("no record was interrupted (no NVTX tool loaded, or fork failed)\n");
        return 2;
    }
    int status = 0;
    if (waitpid(g_child, &status, 0) != g_child) return 2;
    if (WIFSIGNALED(status)) {
        std::printf("child killed by signal %d\n", WTERMSIG(status));
        return 1;
    }
    std::printf("child exited %d\n", WEXITSTATUS(status));
    return 0;
}
