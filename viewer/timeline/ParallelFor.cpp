#include "viewer/timeline/ParallelFor.h"

#include <sched.h>

#include <algorithm>
#include <system_error>
#include <utility>

namespace sl::viewer {

namespace {

// Set while a thread runs items: a nested run() on it must not wait for the pool it occupies.
thread_local bool t_inRun = false;

// The CPUs this process may use (its affinity mask, which containers and taskset narrow),
// not the machine's.
unsigned usableCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

ParallelFor::ParallelFor(unsigned helpers) {
    m_threads.reserve(helpers);
    try {
        for (unsigned i = 0; i < helpers; ++i) m_threads.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
        // Out of threads (a limit of the sandbox or the system): the ones started will do.
    }
}

ParallelFor::~ParallelFor() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (std::thread& t : m_threads) t.join();
}

ParallelFor& ParallelFor::shared() {
    static ParallelFor pool(std::clamp(usableCpus(), 1u, 8u) - 1);
    return pool;
}

void ParallelFor::runOne(std::unique_lock<std::mutex>& lock) {
    const size_t i = m_next++;
    const auto* fn = m_fn;
    lock.unlock();
    std::exception_ptr error;
    t_inRun = true;
    try {
        (*fn)(i);
    } catch (...) {
        error = std::current_exception();
    }
    t_inRun = false;
    lock.lock();
    if (error && !m_error) m_error = error;
    if (++m_done == m_n) m_finished.notify_all();
}

void ParallelFor::run(size_t n, const std::function<void(size_t)>& fn) {
    if (n == 0) return;
    if (t_inRun) {  // nested: this thread holds the pool (or is one of its helpers)
        std::exception_ptr error;
        for (size_t i = 0; i < n; ++i) {
            try {
                fn(i);
            } catch (...) {
                if (!error) error = std::current_exception();
            }
        }
        if (error) std::rethrow_exception(error);
        return;
    }
    std::lock_guard<std::mutex> turn(m_runMutex);
    std::unique_lock<std::mutex> lock(m_mutex);
    m_fn = &fn;
    m_n = n;
    m_next = m_done = 0;
    m_error = nullptr;
    if (n > 1) m_wake.notify_all();
    while (m_next < m_n) runOne(lock);
    // Items the helpers took may still be running; fn must outlive them.
    m_finished.wait(lock, [this] { return m_done == m_n; });
    m_fn = nullptr;
    if (m_error) std::rethrow_exception(std::exchange(m_error, nullptr));
}

void ParallelFor::work() {
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stop || (m_fn && m_next < m_n); });
        if (m_stop) return;
        runOne(lock);
    }
}

}  // namespace sl::viewer
