// Measures the cost of single calls in the current environment (with or without our module):
//   call_cost nvtx   median ns per nvtxRangePushA, nvtxRangePop and nvtxMarkA
//   call_cost osrt   median ns per pthread_mutex_lock+unlock and read(/dev/zero, 1 byte)
//   call_cost stat   median ns per fstatat and statx of "." (calls the module only checks for
//                    its own descriptors, issue #15)
// The median is over batches of 1,000 calls (per-call cost = batch time / 1,000), which hides
// the rare buffer hand-over and timer noise. Output: "name=value" lines for capture_bench.
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

constexpr int kBatch = 1000;
constexpr int kBatches = 2000;

template <class F>
double medianNs(F&& f) {
    std::vector<double> per;
    per.reserve(kBatches);
    for (int b = 0; b < kBatches; ++b) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < kBatch; ++i) f();
        auto t1 = std::chrono::steady_clock::now();
        per.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kBatch);
    }
    std::nth_element(per.begin(), per.begin() + kBatches / 2, per.end());
    return per[kBatches / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : "nvtx";
    if (std::strcmp(what, "nvtx") == 0) {
        nvtxMarkA("init");  // NVTX initializes (and loads the injection) on its first call
        // Pushes and pops are timed in separate batches: 1,000 pushes, then the 1,000 pops.
        std::vector<double> push, pop;
        for (int b = 0; b < kBatches; ++b) {
            auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < kBatch; ++i) nvtxRangePushA("bench-range");
            auto t1 = std::chrono::steady_clock::now();
            for (int i = 0; i < kBatch; ++i) nvtxRangePop();
            auto t2 = std::chrono::steady_clock::now();
            push.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kBatch);
            pop.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / kBatch);
        }
        auto median = [](std::vector<double>& v) {
            std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
            return v[v.size() / 2];
        };
        double mark = medianNs([] { nvtxMarkA("bench-mark"); });
        std::printf("nvtx_push_ns=%.1f\nnvtx_pop_ns=%.1f\nnvtx_mark_ns=%.1f\n", median(push),
                    median(pop), mark);
    } else if (std::strcmp(what, "stat") == 0) {
        struct stat st;
        struct statx sx;
        double at = medianNs([&st] { fstatat(AT_FDCWD, ".", &st, 0); });
        double x = medianNs([&sx] { statx(AT_FDCWD, ".", 0, STATX_BASIC_STATS, &sx); });
        std::printf("fstatat_ns=%.1f\nstatx_ns=%.1f\n", at, x);
    } else {
        pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
        double lock = medianNs([&m] {
            pthread_mutex_lock(&m);
            pthread_mutex_unlock(&m);
        });
        int fd = open("/dev/zero", O_RDONLY);
        char c;
        double rd = medianNs([fd, &c] { [[maybe_unused]] ssize_t n = read(fd, &c, 1); });
        close(fd);
        std::printf("mutex_lock_unlock_ns=%.1f\nread_dev_zero_ns=%.1f\n", lock, rd);
    }
    return 0;
}
