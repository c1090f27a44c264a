// The cost of one fork-join loop: the process's ThreadPool against the hand-written pools it
// replaced (start a std::thread per extra worker, pull items from an atomic counter, join),
// measured in the same run, alternating, for loops of a few items of a given size.
//
//   bench_threadpool [rounds=2000]
// Prints per loop size: median microseconds per loop of each, and their ratio.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

#include "model/util/ThreadPool.h"

namespace {

using Clock = std::chrono::steady_clock;

// What the analyses did before (SelectionParallel.h, ReportMerge, RuleRegistry, ...).
template <class Fn>
void spawnJoin(size_t n, unsigned threads, Fn&& fn) {
    const size_t workers = std::min<size_t>(threads, n);
    std::atomic<size_t> next{0};
    auto loop = [&] {
        for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
    };
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(loop);
    loop();
    for (auto& t : pool) t.join();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(11, std::atoi(argv[1])) : 2000;
    const unsigned threads = sl::ThreadPool::usableCpus();
    sl::ThreadPool& pool = sl::ThreadPool::shared();
    std::printf("%u usable CPUs, %d rounds per figure, items = threads\n", threads, rounds);
    std::printf("%12s %14s %14s %8s\n", "work/item", "spawn+join us", "pool us", "ratio");
    std::vector<uint64_t> data(1 << 20);
    std::iota(data.begin(), data.end(), 0);
    std::atomic<uint64_t> sink{0};
    for (size_t work : {size_t{0}, size_t{1000}, size_t{100'000}}) {
        auto item = [&](size_t i) {
            uint64_t s = 0;
            for (size_t k = 0; k < work; ++k) s += data[(i * 7919 + k) & (data.size() - 1)];
            sink.fetch_add(s, std::memory_order_relaxed);
        };
        std::vector<double> a, b;
        for (int r = 0; r < rounds; ++r) {
            auto t0 = Clock::now();
            spawnJoin(threads, threads, item);
            auto t1 = Clock::now();
            pool.parallelFor(threads, item, sl::ParallelOptions{threads});
            auto t2 = Clock::now();
            a.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            b.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
        }
        const double ma = median(a), mb = median(b);
        std::printf("%12zu %14.1f %14.1f %8.2f\n", work, ma, mb, mb / ma);
    }
    return sink.load() == 42 ? 1 : 0;  // keeps the work from being optimized away
}
