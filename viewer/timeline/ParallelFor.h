#pragma once
// A small pool that runs fn(0) ... fn(n - 1) on the calling thread and its helper threads and
// returns when all have returned. The timeline builds the rows of a frame with it: a wide view
// spends most of its rebuild in LOD queries that miss the cache, row by row, independently,
// while the rasterizer (llvmpipe's threads on software GL) waits for the draw list.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sl::viewer {

class ParallelFor {
public:
    // `helpers` threads besides the caller; 0 runs everything on the caller. Threads the
    // system refuses to start are done without.
    explicit ParallelFor(unsigned helpers);
    ~ParallelFor();
    ParallelFor(const ParallelFor&) = delete;
    ParallelFor& operator=(const ParallelFor&) = delete;

    // Calls from several threads take turns; a call from inside fn runs its items serially on
    // its own thread. An exception thrown by fn is rethrown here (the first one; the other
    // calls still run).
    void run(size_t n, const std::function<void(size_t)>& fn);
    unsigned helpers() const { return static_cast<unsigned>(m_threads.size()); }

    // One pool for the timelines of the process: the CPUs this process may run on minus the
    // caller, at most 7 helpers (a frame has a few dozen rows).
    static ParallelFor& shared();

private:
    void work();
    // Runs item m_next++ with the lock released; returns with it held again.
    void runOne(std::unique_lock<std::mutex>& lock);

    std::mutex m_runMutex;  // one run at a time
    std::mutex m_mutex;     // guards everything below
    std::condition_variable m_wake, m_finished;
    const std::function<void(size_t)>* m_fn = nullptr;
    size_t m_n = 0, m_next = 0, m_done = 0;
    std::exception_ptr m_error;
    bool m_stop = false;
    std::vector<std::thread> m_threads;
};

}  // namespace sl::viewer
