#pragma once
// A minimal fork-join helper for the selection and event-query computations: runs fn(i) for
// i in [0, n) on up to `threads` std::threads (0 = hardware concurrency) pulling indices from
// one atomic counter, so big items (large tracks) listed first balance well. Blocks until done.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace sl::analysis {

template <class Fn>
void parallelFor(size_t n, unsigned threads, Fn&& fn) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    const size_t workers = std::min<size_t>(threads, n);
    if (workers <= 1) {
        for (size_t i = 0; i < n; ++i) fn(i);
        return;
    }
    std::atomic<size_t> next{0};
    auto loop = [&] {
        for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(loop);
    loop();
    for (auto& t : pool) t.join();
}

}  // namespace sl::analysis
