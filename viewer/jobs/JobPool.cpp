#include "viewer/jobs/JobPool.h"

#include <algorithm>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "model/util/ThreadPool.h"

namespace sl::viewer {
namespace {

// Nice 10 (CFS weight 110 against the GUI thread's 1024): the GUI thread, which sleeps most of
// the time, gets a core as soon as it wakes, while the workers still get most of an idle
// machine. Linux nice values are per thread.
constexpr int kJobNice = 10;

void lowerThisThreadsPriority() {
#if defined(__linux__)
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kJobNice);
#endif
}

// Where the jobs' fork-join loops run (the model's analyses call sl::parallelFor): the
// process's pool at the jobs' priority. Never destroyed, like ThreadPool::shared().
ThreadPool& jobLoops() {
    static ThreadPool* pool = new ThreadPool(ThreadPool::usableCpus(), kJobNice);
    return *pool;
}

}  // namespace

JobPool::JobPool(unsigned threads) {
    // Both loop pools start here, on the thread that makes the job pool (the GUI thread):
    // Linux threads inherit their creator's nice value and cannot lower it again, so the
    // process's shared pool (the timeline's rows) must not be started first from a job.
    ThreadPool::shared();
    jobLoops();
    threads = std::max(1u, threads);
    m_threads.reserve(threads);
    for (unsigned i = 0; i < threads; ++i) m_threads.emplace_back([this] { workerLoop(); });
}

JobPool::~JobPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_tasks.clear();
    }
    m_wake.notify_all();
    for (std::thread& t : m_threads) t.join();
}

unsigned JobPool::defaultThreads() {
    return std::clamp(std::thread::hardware_concurrency(), 4u, 16u);
}

void JobPool::post(std::function<void()> task) {
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping) return;
        m_tasks.push_back(std::move(task));
    }
    m_wake.notify_one();
}

void JobPool::workerLoop() {
    lowerThisThreadsPriority();
    ThreadPool::Scope loops(jobLoops());
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_tasks.empty(); });
            if (m_stopping) return;
            task = std::move(m_tasks.front());
            m_tasks.pop_front();
        }
        task();
    }
}

}  // namespace sl::viewer
