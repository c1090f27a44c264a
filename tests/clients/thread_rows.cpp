// Test client: processes and threads whose rows a report got wrong (issue #15).
//   thread_rows fork-late         a forked child (not exec'd) sleeps 150 ms, then pushes and
//                                 pops "child-late-range" and exits 3: its row starts at the
//                                 fork, not at its first record
//   thread_rows exec-from-thread  the main thread leaves "main-range" open; a thread named
//                                 "execer" execs this program (`image`), which sleeps 30 ms,
//                                 pushes and pops "new-image-range" and exits 4
//   thread_rows comm-main         the main thread renames itself by writing "renamed-main" to
//                                 /proc/self/comm (no interposed call), then exits 0
//   thread_rows raw-clone3        a child of a raw clone3 system call (no fork handler runs)
//                                 exits 14 at once through the exit_group system call
//   thread_rows alive-at-exit     four threads name themselves "sleeper" and wait forever; once
//                                 they have, two more are created and main returns 0 at once
//                                 (they may never be scheduled)
//   thread_rows exec-with-threads two threads name themselves "sleeper" and wait forever; once
//                                 they have, main execs this program (`image`)
#include <fcntl.h>
#include <linux/sched.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace {

char* g_self = nullptr;
std::atomic<int> g_named{0};

void* sleeper(void*) {
    pthread_setname_np(pthread_self(), "sleeper");
    g_named.fetch_add(1);
    for (;;) pause();
}
void* waiter(void*) {
    for (;;) pause();
}

void* execer(void*) {
    pthread_setname_np(pthread_self(), "execer");
    char image[] = "image";
    char* argv[] = {g_self, image, nullptr};
    execv(g_self, argv);
    _exit(2);
}

int waitFor(pid_t child) {
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int main(int argc, char** argv) {
    g_self = argv[0];
    const char* mode = argc > 1 ? argv[1] : "";
    if (!std::strcmp(mode, "fork-late")) {
        const pid_t child = fork();
        if (child == 0) {
            usleep(150'000);
            nvtxRangePushA("child-late-range");
            nvtxRangePop();
            _exit(3);
        }
        return waitFor(child) == 3 ? 0 : 1;
    }
    if (!std::strcmp(mode, "exec-from-thread")) {
        nvtxRangePushA("main-range");
        pthread_t t;
        pthread_create(&t, nullptr, execer, nullptr);
        pause();  // the exec ends this image
        return 1;
    }
    if (!std::strcmp(mode, "image")) {
        usleep(30'000);
        nvtxRangePushA("new-image-range");
        nvtxRangePop();
        return 4;
    }
    if (!std::strcmp(mode, "comm-main")) {
        const int fd = open("/proc/self/comm", O_WRONLY);
        if (fd < 0 || write(fd, "renamed-main", 12) != 12) return 1;
        close(fd);
        usleep(10'000);
        return 0;
    }
    if (!std::strcmp(mode, "alive-at-exit")) {
        pthread_t t;
        for (int i = 0; i < 4; ++i) pthread_create(&t, nullptr, sleeper, nullptr);
        while (g_named.load() < 4) usleep(1000);
        for (int i = 0; i < 2; ++i) pthread_create(&t, nullptr, waiter, nullptr);
        return 0;
    }
    if (!std::strcmp(mode, "exec-with-threads")) {
        pthread_t t;
        for (int i = 0; i < 2; ++i) pthread_create(&t, nullptr, sleeper, nullptr);
        while (g_named.load() < 2) usleep(1000);
        char image[] = "image";
        char* args[] = {g_self, image, nullptr};
        execv(g_self, args);
        return 2;
    }
    if (!std::strcmp(mode, "raw-clone3")) {
        clone_args args{};
        args.exit_signal = SIGCHLD;
        const long child = syscall(SYS_clone3, &args, sizeof args);
        if (child == 0) syscall(SYS_exit_group, 14);
        if (child < 0) return 1;
        return waitFor(static_cast<pid_t>(child)) == 14 ? 0 : 1;
    }
    return 1;
}
