#pragma once
// A fixed set of worker threads running tasks in the order they were posted. It knows nothing
// of cancellation or results (JobTracker does); its destructor drops the tasks not yet started
// and joins the threads, so it returns as soon as the running tasks return. The workers run
// at a lower scheduling priority than the GUI thread: on a machine with few cores a busy
// analysis must not take the CPU from the thread that draws and answers the user.
// Any thread may post.
//
// These are long-job threads, not a second fork-join pool: a job (loading, the rules) blocks
// its thread for seconds, so jobs get threads of their own (a short job is not queued behind
// long ones), while the fork-join loops inside a job run on a sl::ThreadPool at the same low
// priority (ThreadPool::Scope), whose workers go back to the pool after each item.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sl::viewer {

class JobPool {
public:
    explicit JobPool(unsigned threads);
    JobPool(const JobPool&) = delete;
    JobPool& operator=(const JobPool&) = delete;
    ~JobPool();

    void post(std::function<void()> task);
    unsigned threadCount() const { return static_cast<unsigned>(m_threads.size()); }
    // Enough threads that a long job (the rules at 100 M events) does not hold back a short
    // one (the statistics of a new selection) on a two-core machine.
    static unsigned defaultThreads();

private:
    void workerLoop();

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_tasks;
    bool m_stopping = false;
    std::vector<std::thread> m_threads;
};

}  // namespace sl::viewer
