// A single-threaded program that counts on open() taking the lowest free descriptor number:
// the old redirection idiom (close(0), then open() gets 0) and what a shell's `: </dev/null`
// does around each builtin. The injection module's own files must never take the number the
// program has just freed (its writer thread once made the stream there: the program's next
// open() got another number, or its dup2 replaced the stream, which was lost).
//   lowest_fd N   N times close(0) and open("/dev/null"); prints "reused=N", or exits 3 saying
//                 which number open() took instead of 0
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
    for (int i = 0; i < n; ++i) {
        close(0);
        const int fd = open("/dev/null", O_RDONLY);
        if (fd != 0) {
            std::fprintf(stderr, "lowest_fd: iteration %d: open took %d, not the freed 0\n", i, fd);
            return 3;
        }
    }
    std::printf("reused=%d\n", n);
    return 0;
}
