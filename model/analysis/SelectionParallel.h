#pragma once
// The analyses' fork-join loops run on the process's one pool (model/util/ThreadPool.h):
// fn(i) for i in [0, n) on up to `threads` threads, the caller included (0: one per usable
// CPU), pulling indices from one counter, so big items (large tracks) listed first balance
// well. Blocks until done.
#include <cstddef>
#include <utility>

#include "model/util/ThreadPool.h"

namespace sl::analysis {

template <class Fn>
void parallelFor(size_t n, unsigned threads, Fn&& fn) {
    sl::parallelFor(n, std::forward<Fn>(fn), ParallelOptions{threads});
}

}  // namespace sl::analysis
