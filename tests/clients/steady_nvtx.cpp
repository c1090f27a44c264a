// Test client: a steady NVTX program for kill tests. Two threads each record "steady" ranges
// (push, a few microseconds of work, pop) forever and count the ranges they completed in a file
// mapped shared, so the count survives a SIGKILL:
//   steady_nvtx COUNTFILE    COUNTFILE holds {pid, completed by thread 1, completed by thread 2}
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>

namespace {

void work(std::atomic<int64_t>* completed) {
    volatile uint64_t sink = 0;
    while (true) {
        nvtxRangePushA("steady");
        for (int i = 0; i < 2000; ++i) sink = sink + static_cast<uint64_t>(i);
        nvtxRangePop();
        // Counted only once the pop returned: every counted range is complete.
        completed->fetch_add(1, std::memory_order_release);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: steady_nvtx COUNTFILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, 3 * sizeof(int64_t)) != 0) return 3;
    void* p = mmap(nullptr, 3 * sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return 4;
    auto* shared = static_cast<std::atomic<int64_t>*>(p);
    shared[0].store(getpid());
    std::thread second(work, &shared[2]);
    work(&shared[1]);
    second.join();
    return 0;
}
