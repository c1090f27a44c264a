// NVTX marks made in a signal handler while the thread it interrupted makes its own: a SIGALRM
// interval timer whose handler calls nvtxMarkA("sig"), over a loop of nvtxMarkA("main"). A
// handler that came between a record's reserve and commit was given the same space: the two
// records mixed cut the rest of the buffer off (names like "mai", thousands of marks lost).
//   handler_marks N INTERVAL_US   N "main" marks under the timer; prints "marks=N hits=H" (H
//                                 handler runs, each one "sig" mark made or refused)
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {
std::atomic<int> g_hits{0};
void onAlarm(int) {
    nvtxMarkA("sig");
    g_hits.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
    const long interval = argc > 2 ? std::atol(argv[2]) : 200;
    struct sigaction sa {};
    sa.sa_handler = onAlarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, nullptr);
    itimerval t{{0, interval}, {0, interval}};
    setitimer(ITIMER_REAL, &t, nullptr);
    for (int i = 0; i < n; ++i) nvtxMarkA("main");
    itimerval off{};
    setitimer(ITIMER_REAL, &off, nullptr);
    std::printf("marks=%d hits=%d\n", n, g_hits.load());
    return 0;
}
