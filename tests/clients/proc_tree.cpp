// Test client: a process tree made with fork, fork+exec, posix_spawn and vfork+exec, whose
// children use NVTX. Without arguments it is the parent; "child <name> <code>" is a child that
// pushes a range named <name> and exits with <code>.
//   parent range "parent"; children: fork-only (exit 5), fork+exec "exec-child" (exit 6),
//   posix_spawn "spawn-child" (exit 7), vfork+exec "vfork-child" (exit 8).
#include <nvtx3/nvToolsExt.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern char** environ;

static int runChild(const char* name, int code) {
    nvtxRangePushA(name);
    usleep(20000);
    nvtxRangePop();
    return code;
}

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "child") == 0)
        return runChild(argv[2], std::atoi(argv[3]));
    nvtxRangePushA("parent");
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 100;
    self[n] = 0;
    pid_t pids[4];
    // 1. fork only.
    pids[0] = fork();
    if (pids[0] == 0) {
        nvtxRangePushA("forked-child");
        usleep(20000);
        nvtxRangePop();
        _exit(5);
    }
    // 2. fork + exec.
    pids[1] = fork();
    if (pids[1] == 0) {
        execl(self, self, "child", "exec-child", "6", static_cast<char*>(nullptr));
        _exit(101);
    }
    // 3. posix_spawn.
    char* spawnArgs[] = {self, const_cast<char*>("child"), const_cast<char*>("spawn-child"),
                         const_cast<char*>("7"), nullptr};
    if (posix_spawn(&pids[2], self, nullptr, nullptr, spawnArgs, environ) != 0) return 102;
    // 4. vfork + exec.
    pids[3] = vfork();
    if (pids[3] == 0) {
        execl(self, self, "child", "vfork-child", "8", static_cast<char*>(nullptr));
        _exit(103);
    }
    int codes[4];
    for (int i = 0; i < 4; ++i) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        codes[i] = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    nvtxRangePop();
    std::printf("children exited %d %d %d %d\n", codes[0], codes[1], codes[2], codes[3]);
    return codes[0] == 5 && codes[1] == 6 && codes[2] == 7 && codes[3] == 8 ? 0 : 1;
}
