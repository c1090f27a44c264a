#pragma once
// One pool of worker threads for every fork-join loop of the process: the model's analyses,
// builder, merge, exporter and reader, the capture merge and the timeline's frame rows.
//
// parallelFor(n, fn) runs fn(0) ... fn(n - 1) and returns when every item has returned. Item 0
// always runs on the calling thread (work that must stay there, such as progress reports, goes
// into it), and the caller takes further items too, and it only ever waits for items already
// running, so a parallelFor inside an item (nesting, or a loop of a pool worker) cannot deadlock:
// with every worker busy the caller simply runs its items itself. Items are handed out one at a
// time from a shared counter, so big items listed first balance well.
//
// The workers are a fixed set (the CPUs this process may use), started with the pool and
// idle on a condition variable between loops; several callers may run loops at the same time
// and idle workers help any of them. No Qt: the capture merge and the CLI use it.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace sl {

struct ParallelOptions {
    // Threads working on this loop, the caller included; 0: one per CPU this process may use.
    // 1 runs every item on the caller, in order.
    unsigned maxThreads = 0;
    // Set (by anyone, at any time): items not taken yet are skipped and parallelFor returns
    // once the running ones return (set before the call: nothing runs). Items are taken in
    // index order, item 0 when the loop begins. Long items should also check it.
    const std::atomic<bool>* cancel = nullptr;
};

class ThreadPool {
public:
    // `workers` threads besides the callers (0: every loop runs on its caller). Threads the
    // system refuses to start are done without. `niceIncrement` (Linux): the workers' nice
    // value, so that a pool of background work does not take the CPU from an interactive
    // thread (viewer/jobs).
    explicit ThreadPool(unsigned workers, int niceIncrement = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // Runs fn(i) for every i in [0, n) (see the file comment). The first exception an item
    // throws is rethrown here after the running items return; items not taken by then are
    // skipped, like after a cancel.
    template <class Fn>
    void parallelFor(size_t n, Fn&& fn, const ParallelOptions& options = {}) {
        using F = std::remove_reference_t<Fn>;
        run(n,
            ItemFn{const_cast<void*>(static_cast<const void*>(&fn)),
                   [](void* f, size_t i) { (*static_cast<F*>(f))(i); }},
            options);
    }

    unsigned workerCount() const { return static_cast<unsigned>(m_threads.size()); }

    // The process-wide pool: one worker per usable CPU, started by the first call. Its workers
    // take the nice value of the thread that makes that call (Linux threads inherit it), so a
    // program with low-priority threads calls it first from a normal one (viewer/jobs). Never
    // destroyed (a loop may still run while static objects are destroyed at exit).
    static ThreadPool& shared();
    // The pool that sl::parallelFor uses on this thread: the pool of which it is a worker, the
    // one a Scope installed, or shared().
    static ThreadPool& current();
    // The CPUs this process may run on (its affinity mask, which containers and taskset
    // narrow), not the machine's.
    static unsigned usableCpus();

    // Makes `pool` current() on this thread while it lives (a background job thread sends its
    // loops to a low-priority pool).
    class Scope {
    public:
        explicit Scope(ThreadPool& pool);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        ThreadPool* m_saved;
    };

private:
    struct ItemFn {
        void* object;
        void (*call)(void*, size_t);
    };
    struct Loop;

    void run(size_t n, ItemFn fn, const ParallelOptions& options);
    static void runItem(Loop& loop, size_t i);
    static void runItems(Loop& loop);
    Loop* joinableLoop();
    void workerMain(int niceIncrement);

    std::mutex m_mutex;              // guards m_open, every Loop::helpers and m_stop
    std::condition_variable m_wake;  // a loop opened, or the pool stops
    std::condition_variable m_left;  // a helper left a loop
    std::vector<Loop*> m_open;       // loops with items workers may still take
    bool m_stop = false;
    const unsigned m_cpus;  // usableCpus() when the pool started: a loop's default thread count
    std::vector<std::thread> m_threads;
};

// ThreadPool::current().parallelFor(n, fn, options): what model code calls.
template <class Fn>
void parallelFor(size_t n, Fn&& fn, const ParallelOptions& options = {}) {
    ThreadPool::current().parallelFor(n, std::forward<Fn>(fn), options);
}

}  // namespace sl
