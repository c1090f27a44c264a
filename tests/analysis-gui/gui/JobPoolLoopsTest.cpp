// JobPool: the fork-join loops of a job (the model's analyses call sl::parallelFor) run on a
// pool at the jobs' low priority, never on the process's normal-priority pool, so a busy
// analysis does not take the CPU from the GUI thread through its helpers; and the shared pool
// stays at normal priority.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "model/util/ThreadPool.h"
#include "viewer/jobs/JobPool.h"

namespace sl::viewer {
namespace {

int thisThreadsNice() {
    return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
}

TEST(JobPool, AJobsLoopsRunOnALowPriorityPool) {
    const int normal = thisThreadsNice();
    if (normal >= 10) GTEST_SKIP() << "the test runs at nice " << normal << " already";
    std::mutex m;
    std::vector<int> nices;
    std::atomic<bool> sharedPool{true}, helperRan{false}, done{false};
    JobPool pool(1);
    pool.post([&] {
        sharedPool = &ThreadPool::current() == &ThreadPool::shared();
        const auto job = std::this_thread::get_id();
        // Item 0 (on the job's thread) waits until a worker of the pool has run an item.
        sl::parallelFor(
            4,
            [&](size_t i) {
                if (std::this_thread::get_id() != job) helperRan = true;
                {
                    std::lock_guard lock(m);
                    nices.push_back(thisThreadsNice());
                }
                const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                while (i == 0 && !helperRan && std::chrono::steady_clock::now() < until)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
            },
            ParallelOptions{2});
        done = true;
    });
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ASSERT_TRUE(done.load());
    EXPECT_FALSE(sharedPool.load());
    EXPECT_TRUE(helperRan.load());
    {
        std::lock_guard lock(m);
        ASSERT_EQ(nices.size(), 4u);
        for (int n : nices) EXPECT_GE(n, 10);
        nices.clear();
    }
    // The process's shared pool keeps the normal priority, though a job touched it first.
    ThreadPool::shared().parallelFor(
        8,
        [&](size_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            std::lock_guard inner(m);
            nices.push_back(thisThreadsNice());
        },
        ParallelOptions{2});
    EXPECT_EQ(nices.size(), 8u);
    for (int n : nices) EXPECT_EQ(n, normal);
}

}  // namespace
}  // namespace sl::viewer
