// Test client: many short threads, as a server with a thread per request; a profiler must give
// each ended thread's buffer back: nothing after thousands of threads is dropped.
//   thread_churn [threads (default 3000)]   joined one at a time, then one more that pushes and
//                                           pops "late-thread-range"
//   thread_churn THREADS ALIVE              detached, at most ALIVE at once, each pushing and
//                                           popping "short" 3 times (3 x THREADS ranges)
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <semaphore.h>

#include <cstdlib>
#include <thread>

namespace {

sem_t g_slots, g_done;

void* shortThread(void*) {
    for (int i = 0; i < 3; ++i) {
        nvtxRangePushA("short");
        nvtxRangePop();
    }
    sem_post(&g_slots);
    sem_post(&g_done);
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 3000;
    if (argc > 2) {
        sem_init(&g_slots, 0, static_cast<unsigned>(std::atoi(argv[2])));
        sem_init(&g_done, 0, 0);
        pthread_attr_t detached;
        pthread_attr_init(&detached);
        pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
        for (int i = 0; i < threads; ++i) {
            sem_wait(&g_slots);
            pthread_t t;
            if (pthread_create(&t, &detached, shortThread, nullptr) != 0) return 1;
        }
        for (int i = 0; i < threads; ++i) sem_wait(&g_done);
        return 0;
    }
    for (int i = 0; i < threads; ++i) std::thread([] {}).join();
    std::thread([] {
        nvtxRangePushA("late-thread-range");
        nvtxRangePop();
    }).join();
    return 0;
}
