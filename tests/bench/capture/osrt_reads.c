/* The program of osrt_backtrace.sh: N one-byte reads of /dev/zero (each a recorded OS runtime
 * call with --osrt-threshold=0) made DEPTH calls deep, built -O2 -fomit-frame-pointer so that
 * each native stack is unwound from DWARF CFI through a realistic depth.
 * Usage: osrt_reads N [DEPTH] */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static volatile long g_sink;

__attribute__((noinline)) static long reads(int fd, long n) {
    char c;
    long got = 0;
    for (long i = 0; i < n; ++i) got += read(fd, &c, 1);
    return got;
}

__attribute__((noinline)) static long deep(int depth, int fd, long n) {
    long got = depth == 0 ? reads(fd, n) : deep(depth - 1, fd, n);
    g_sink += got; /* not a tail call: every level stays on the stack */
    return got;
}

int main(int argc, char** argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int depth = argc > 2 ? atoi(argv[2]) : 20;
    int fd = open("/dev/zero", O_RDONLY);
    if (fd < 0) return 2;
    long got = deep(depth, fd, n);
    close(fd);
    return got == n ? 0 : 1;
}
