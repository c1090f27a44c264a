/* An MPI call inside a signal handler that runs on an alternate signal stack above the
 * thread's own, while the thread is blocked in an MPI_Recv (tests/capture/MpiCaptureTest.cpp).
 * The handler's call was taken as a sign that the receive had been left (siglongjmp), and the
 * 400 ms receive went unrecorded. One rank, MPI_THREAD_MULTIPLE: main sends the message the
 * thread waits for, after the signal. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void* g_altStack;
static volatile int g_ready, g_handled;

static void onUser1(int sig) {
    (void)sig;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    g_handled++;
}

static void* receiver(void* arg) {
    (void)arg;
    stack_t ss;
    ss.ss_sp = g_altStack;
    ss.ss_size = 1 << 20;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
    int x = 0;
    g_ready = 1;
    MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("received %d, handler ran %d\n", x, g_handled);
    return NULL;
}

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    /* Mapped before the thread's stack, so above it. */
    g_altStack = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = onUser1;
    sa.sa_flags = SA_ONSTACK | SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, receiver, NULL);
    while (!g_ready) usleep(1000);
    usleep(200000);
    pthread_kill(t, SIGUSR1);
    usleep(200000);
    int v = 42;
    MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    pthread_join(t, NULL);
    MPI_Finalize();
    return 0;
}
