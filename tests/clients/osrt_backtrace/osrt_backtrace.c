/* --osrt-backtrace-threshold (tests/capture/OsrtBacktraceCaptureTest.cpp): main -> outer ->
 * inner makes, ROUNDS times, three slow OS runtime calls (a 5 ms nanosleep, a 5 ms poll, a
 * read from a pipe that a helper thread fills 5 ms after being asked) and fast ones (the
 * request's write, a zero nanosleep, a zero-timeout poll, a read of /dev/zero). Then a forked
 * child sleeps 5 ms in forked() (its stream names the modules anew). Built -O2 -fomit-frame-pointer: the
 * stacks must come from DWARF unwinding. Usage: osrt_backtrace [ROUNDS] */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Named as written: no inlining, and no GCC clone (outer.isra.0) either. */
#if defined(__GNUC__) && !defined(__clang__)
#define KEEP __attribute__((noinline, noipa))
#else
#define KEEP __attribute__((noinline))
#endif

static int g_request[2], g_reply[2];
static volatile long g_sink;

/* The helper: at each request, waits 5 ms, then writes the byte inner's slow read waits for. */
static void* writer(void* arg) {
    long rounds = (long)arg;
    for (long i = 0; i < rounds; ++i) {
        char c;
        if (read(g_request[0], &c, 1) != 1) abort();
        struct timespec t = {0, 5000000};
        nanosleep(&t, NULL);
        if (write(g_reply[1], &c, 1) != 1) abort();
    }
    return NULL;
}

KEEP static long inner(int zero) {
    long got = 0;
    struct timespec slow = {0, 5000000}, fast = {0, 0};
    nanosleep(&slow, NULL);
    got += poll(NULL, 0, 5);
    char c = 'x';
    if (write(g_request[1], &c, 1) != 1) abort();
    got += read(g_reply[0], &c, 1);
    nanosleep(&fast, NULL);
    got += poll(NULL, 0, 0);
    char buf[16];
    got += read(zero, buf, sizeof buf);
    g_sink += got; /* after the calls: none of them is a tail call */
    return got;
}

KEEP static long outer(int zero) {
    long got = inner(zero);
    g_sink += got;
    return got;
}

KEEP static void forked(void) {
    struct timespec slow = {0, 5000000};
    nanosleep(&slow, NULL);
    g_sink += 1;
}

int main(int argc, char** argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 3;
    int zero = open("/dev/zero", O_RDONLY);
    if (zero < 0 || pipe(g_request) != 0 || pipe(g_reply) != 0) return 2;
    pthread_t t;
    if (pthread_create(&t, NULL, writer, (void*)rounds) != 0) return 2;
    for (long i = 0; i < rounds; ++i) outer(zero);
    pthread_join(t, NULL);
    pid_t child = fork();
    if (child == 0) {
        forked();
        _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return 3;
    printf("%ld\n", (long)g_sink);
    return 0;
}
