/* An MPI program that leaves a blocked call with siglongjmp, as a SIGALRM timeout around a
 * receive that never matches does (tests/capture/MpiCaptureTest.cpp). Then it makes one more
 * MPI call, from deeper in the stack than the receive's frame was, and exits with 3.
 * Under -t mpi the module's record of the receive pointed at the abandoned frame: the
 * program crashed in exit() (SIGSEGV), and every later call of the thread went unrecorded. */
#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sigjmp_buf g_timeout;
static void onAlarm(int sig) {
    (void)sig;
    siglongjmp(g_timeout, 1);
}

/* The next MPI call, from deeper than the receive was (its frames cover the receive's). */
__attribute__((noinline)) static int barrierFrom(int depth) {
    volatile char pad[512];
    memset((char*)pad, depth, sizeof pad);
    return depth > 0 ? barrierFrom(depth - 1) + pad[0] : MPI_Barrier(MPI_COMM_WORLD);
}

/* Writes over the stack below main, where the receive's frame was. */
__attribute__((noinline)) static long deep(int n) {
    volatile char buf[4096];
    memset((char*)buf, 0x5a, sizeof buf);
    return n > 0 ? deep(n - 1) + buf[n] : buf[0];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    signal(SIGALRM, onAlarm);
    int x = 0;
    alarm(1);
    if (!sigsetjmp(g_timeout, 1)) {
        MPI_Recv(&x, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("received\n");
    } else {
        printf("receive timed out\n");
    }
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    barrierFrom(6);
    printf("deep: %ld, size %d\n", deep(8), size);
    fflush(stdout);
    exit(3);
}
