#include "model/util/ThreadPool.h"

#include <sched.h>

#include <algorithm>
#include <system_error>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace sl {

// One parallelFor call, on its caller's stack. Items are claimed from `next`; the caller
// unlists the loop once it finds no item left and then waits for `helpers` to reach zero, so
// no worker touches the loop after run() returns.
struct ThreadPool::Loop {
    Loop(ItemFn f, size_t items, const std::atomic<bool>* c, unsigned most)
        : fn(f), n(items), cancel(c), maxHelpers(most) {}

    const ItemFn fn;
    const size_t n;
    const std::atomic<bool>* const cancel;
    const unsigned maxHelpers;
    unsigned helpers = 0;  // workers inside runItems (guarded by the pool's mutex)
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex errorMutex;
    std::exception_ptr error;

    bool stopped() const {
        return failed.load(std::memory_order_relaxed) ||
               (cancel && cancel->load(std::memory_order_relaxed));
    }
    bool hasItems() const { return !stopped() && next.load(std::memory_order_relaxed) < n; }
};

namespace {

thread_local ThreadPool* t_current = nullptr;

}  // namespace

ThreadPool::ThreadPool(unsigned workers, int niceIncrement) : m_cpus(usableCpus()) {
    m_threads.reserve(workers);
    try {
        for (unsigned i = 0; i < workers; ++i)
            m_threads.emplace_back([this, niceIncrement] { workerMain(niceIncrement); });
    } catch (const std::system_error&) {
        // Out of threads (a limit of the sandbox or the system): the ones started will do.
    }
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (std::thread& t : m_threads) t.join();
}

unsigned ThreadPool::usableCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
}

ThreadPool& ThreadPool::shared() {
    static ThreadPool* pool = new ThreadPool(usableCpus());
    return *pool;
}

ThreadPool& ThreadPool::current() {
    return t_current ? *t_current : shared();
}

ThreadPool::Scope::Scope(ThreadPool& pool) : m_saved(t_current) {
    t_current = &pool;
}

ThreadPool::Scope::~Scope() {
    t_current = m_saved;
}

void ThreadPool::runItem(Loop& loop, size_t i) {
    try {
        loop.fn.call(loop.fn.object, i);
    } catch (...) {
        std::lock_guard lock(loop.errorMutex);
        if (!loop.error) loop.error = std::current_exception();
        loop.failed.store(true, std::memory_order_relaxed);
    }
}

void ThreadPool::runItems(Loop& loop) {
    for (size_t i; !loop.stopped() && (i = loop.next.fetch_add(1)) < loop.n;) runItem(loop, i);
}

void ThreadPool::run(size_t n, ItemFn fn, const ParallelOptions& options) {
    if (n == 0) return;
    const unsigned wanted = options.maxThreads ? options.maxThreads : m_cpus;
    const size_t helpers = std::min<size_t>({n - 1, wanted - 1, m_threads.size()});
    Loop loop(fn, n, options.cancel, static_cast<unsigned>(helpers));
    // Item 0 is the caller's (a loop may give it the work that must stay on the calling
    // thread, such as progress reports) and taken now, like an item a helper takes: it runs
    // even if another item fails or cancels first. The helpers start at item 1.
    if (loop.stopped()) return;  // cancelled before it began
    loop.next.store(1, std::memory_order_relaxed);
    if (helpers > 0) {
        {
            std::lock_guard lock(m_mutex);
            m_open.push_back(&loop);
        }
        if (helpers == 1)
            m_wake.notify_one();
        else
            m_wake.notify_all();
    }
    runItem(loop, 0);
    runItems(loop);
    if (helpers > 0) {
        std::unique_lock lock(m_mutex);
        m_open.erase(std::find(m_open.begin(), m_open.end(), &loop));
        // Items the helpers took may still be running; fn and the loop must outlive them.
        m_left.wait(lock, [&loop] { return loop.helpers == 0; });
    }
    if (loop.error) std::rethrow_exception(loop.error);
}

// A loop a worker may join (called with the mutex held): the oldest with items left and room
// for another helper.
ThreadPool::Loop* ThreadPool::joinableLoop() {
    for (Loop* l : m_open)
        if (l->helpers < l->maxHelpers && l->hasItems()) return l;
    return nullptr;
}

void ThreadPool::workerMain(int niceIncrement) {
#if defined(__linux__)
    // Linux nice values are per thread: only this worker is affected.
    if (niceIncrement != 0)
        setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), niceIncrement);
#else
    (void)niceIncrement;
#endif
    t_current = this;  // loops inside items stay on this pool (and on its priority)
    std::unique_lock lock(m_mutex);
    for (;;) {
        Loop* loop = nullptr;
        m_wake.wait(lock, [&] { return m_stop || (loop = joinableLoop()) != nullptr; });
        if (m_stop) return;
        ++loop->helpers;
        lock.unlock();
        runItems(*loop);
        lock.lock();
        if (--loop->helpers == 0) m_left.notify_all();
    }
}

}  // namespace sl
