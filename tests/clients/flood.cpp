// Load client for the throughput benchmark and the drop-accounting test:
//   flood THREADS RANGES   each thread records RANGES push/pop pairs named "r" as fast as it can,
//                          then prints "ranges=<total> seconds=<wall>" on stdout.
//   flood THREADS RANGES startend   the same with start/end ranges (nvtxRangeStartA/End).
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    int threads = argc > 1 ? std::atoi(argv[1]) : 64;
    long ranges = argc > 2 ? std::atol(argv[2]) : 100000;
    const bool startEnd = argc > 3 && std::strcmp(argv[3], "startend") == 0;
    nvtxMarkA("flood-start");  // initializes NVTX before the clock starts
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([ranges, startEnd] {
            for (long i = 0; i < ranges; ++i) {
                if (startEnd) {
                    nvtxRangeEnd(nvtxRangeStartA("r"));
                } else {
                    nvtxRangePushA("r");
                    nvtxRangePop();
                }
            }
        });
    for (auto& t : pool) t.join();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("ranges=%ld\nseconds=%.3f\n", static_cast<long>(threads) * ranges, secs);
    return 0;
}
