// Forked workers whose two threads make their first records at once: a worker's second thread
// marks while its main thread forks (and so opens the worker's stream, which a forked child
// opens with its first record). A thread that went on recording while another opened the
// stream found neither a stream nor one to be made: its blocks were lost without a word (all
// 3,000 marks of a worker, 1 run in 5 of a review's program; 16 KiB buffers, so that blocks
// are handed over while the stream opens).
//   forked_first_records WORKERS MARKS   WORKERS workers, each with a thread making MARKS
//                                        "worker" marks; prints "marks=TOTAL"
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {
std::atomic<bool> g_go{false};
int g_marks = 0;

void* marker(void*) {
    while (!g_go.load(std::memory_order_acquire)) {
    }
    for (int i = 0; i < g_marks; ++i) nvtxMarkA("worker");
    return nullptr;
}

[[noreturn]] void worker() {
    pthread_t t;
    if (pthread_create(&t, nullptr, marker, nullptr) != 0) _exit(2);
    g_go.store(true, std::memory_order_release);
    const pid_t child = fork();  // the worker's first record: it opens the worker's stream
    if (child == 0) _exit(0);
    pthread_join(t, nullptr);
    int status = 0;
    if (child > 0) waitpid(child, &status, 0);
    _exit(child > 0 ? 0 : 3);
}
}  // namespace

int main(int argc, char** argv) {
    const int workers = argc > 1 ? std::atoi(argv[1]) : 50;
    g_marks = argc > 2 ? std::atoi(argv[2]) : 3000;
    int failed = 0;
    for (int i = 0; i < workers; ++i) {
        const pid_t w = fork();
        if (w == 0) worker();
        int status = 0;
        if (w < 0 || waitpid(w, &status, 0) != w || !WIFEXITED(status) || WEXITSTATUS(status))
            ++failed;
    }
    std::printf("marks=%lld\n", static_cast<long long>(workers) * g_marks);
    return failed ? 1 : 0;
}
