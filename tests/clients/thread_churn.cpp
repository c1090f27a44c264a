// Test client: many short threads, one alive at a time (each joined before the next starts,
// as a server with a thread per request), then one more that pushes and pops the NVTX range
// "late-thread-range". A profiler must give each ended thread's buffer back: a range after
// thousands of threads is kept like the first.
//   thread_churn [threads (default 3000)]
#include <nvtx3/nvToolsExt.h>

#include <cstdlib>
#include <thread>

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 3000;
    for (int i = 0; i < threads; ++i) std::thread([] {}).join();
    std::thread([] {
        nvtxRangePushA("late-thread-range");
        nvtxRangePop();
    }).join();
    return 0;
}
