#include "viewer/timeline/ParallelFor.h"

#include <algorithm>

namespace sl::viewer {

ParallelFor::ParallelFor(unsigned helpers)
    : m_own(std::make_unique<ThreadPool>(helpers)), m_pool(m_own.get()), m_helpers(m_own->workerCount()) {}

ParallelFor& ParallelFor::shared() {
    static ParallelFor pool(ThreadPool::shared(), std::clamp(ThreadPool::usableCpus(), 1u, 8u) - 1);
    return pool;
}

void ParallelFor::run(size_t n, const std::function<void(size_t)>& fn) {
    m_pool->parallelFor(n, fn, ParallelOptions{m_helpers + 1});
}

}  // namespace sl::viewer
