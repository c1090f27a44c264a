// A SIGALRM handler that leaves with siglongjmp, over a loop of nvtxMarkA("jump"): a handler
// that interrupted a mark between its reserve and its commit never returned to it, and the
// thread's mark of being inside a record stayed set: every later record of the thread was
// refused (counted as made in a signal handler).
//   handler_jumps N INTERVAL_US   N marks completed under the timer; prints "marks=N jumps=J"
//                                 (a mark the jump cut before its count is made again, so
//                                 between N and N + J marks are recorded)
#include <nvtx3/nvToolsExt.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/time.h>

#include <cstdio>
#include <cstdlib>

namespace {
sigjmp_buf g_back;
volatile sig_atomic_t g_jumps = 0;
void onAlarm(int) {
    g_jumps = g_jumps + 1;
    siglongjmp(g_back, 1);
}
}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
    const long interval = argc > 2 ? std::atol(argv[2]) : 100;
    struct sigaction sa {};
    sa.sa_handler = onAlarm;
    sigaction(SIGALRM, &sa, nullptr);
    volatile int done = 0;
    itimerval t{{0, interval}, {0, interval}};
    setitimer(ITIMER_REAL, &t, nullptr);
    sigsetjmp(g_back, 1);  // the mask comes back with the jump: the next SIGALRM is delivered
    while (done < n) {
        nvtxMarkA("jump");
        done = done + 1;
    }
    itimerval off{};
    setitimer(ITIMER_REAL, &off, nullptr);
    std::printf("marks=%d jumps=%d\n", n, static_cast<int>(g_jumps));
    return 0;
}
