// Test client: an orphan. The program forks a middle process that forks a grandchild and exits
// at once; the grandchild waits until it is orphaned (its parent changed), then execs itself as
// `orphan adopted` and exits 7. The program prints "middle PID grandchild PID" and returns when
// the grandchild has ended (the end of a pipe only the grandchild holds). It also forks a child
// that exits 9 at once and is never waited for: a zombie until the program ends, reaped by
// whoever adopts it, but never an orphan while it ran.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "adopted") == 0) {
        usleep(20000);
        return 7;
    }
    if (fork() == 0) _exit(9);  // the zombie
    int done[2], ids[2];
    if (pipe(done) != 0 || pipe(ids) != 0) return 1;
    pid_t middle = fork();
    if (middle == 0) {
        close(done[0]);
        close(ids[0]);
        const pid_t self = getpid();
        pid_t grandchild = fork();
        if (grandchild == 0) {
            close(ids[1]);
            while (getppid() == self) usleep(1000);
            char* args[] = {argv[0], const_cast<char*>("adopted"), nullptr};
            execv("/proc/self/exe", args);  // keeps done[1] open: it closes when we exit
            _exit(1);
        }
        if (write(ids[1], &grandchild, sizeof grandchild) != sizeof grandchild) _exit(1);
        _exit(0);
    }
    close(done[1]);
    close(ids[1]);
    pid_t grandchild = 0;
    if (read(ids[0], &grandchild, sizeof grandchild) != sizeof grandchild) return 1;
    int st = 0;
    waitpid(middle, &st, 0);
    char c;
    while (read(done[0], &c, 1) > 0) {
    }
    std::printf("middle %d grandchild %d\n", static_cast<int>(middle), static_cast<int>(grandchild));
    return 0;
}
