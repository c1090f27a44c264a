#pragma once
// Runs fn(0) ... fn(n - 1) on the calling thread and helpers of a sl::ThreadPool
// (model/util/ThreadPool.h) and returns when all have returned. The timeline builds the rows
// of a frame with it: a wide view spends most of its rebuild in LOD queries that miss the
// cache, row by row, independently, while the rasterizer (llvmpipe's threads on software GL)
// waits for the draw list.
#include <cstddef>
#include <functional>
#include <memory>

#include "model/util/ThreadPool.h"

namespace sl::viewer {

class ParallelFor {
public:
    // A pool of its own with `helpers` threads besides the caller (tests); 0 runs everything
    // on the caller.
    explicit ParallelFor(unsigned helpers);
    ParallelFor(const ParallelFor&) = delete;
    ParallelFor& operator=(const ParallelFor&) = delete;

    // Calls from several threads run at the same time; a call from inside fn runs on its own
    // thread and idle helpers. The first exception thrown by fn is rethrown here; items not
    // started by then are skipped (ThreadPool::parallelFor).
    void run(size_t n, const std::function<void(size_t)>& fn);
    unsigned helpers() const { return m_helpers; }

    // The timelines' rows go to the process's shared pool, at most 7 helpers (a frame has a
    // few dozen rows).
    static ParallelFor& shared();

private:
    ParallelFor(ThreadPool& pool, unsigned helpers) : m_pool(&pool), m_helpers(helpers) {}

    std::unique_ptr<ThreadPool> m_own;
    ThreadPool* m_pool;
    unsigned m_helpers;
};

}  // namespace sl::viewer
