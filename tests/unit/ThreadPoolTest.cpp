// The process's one fork-join pool (model/util/ThreadPool.h): every item runs exactly once and
// the call returns only when all have returned, the workers take part, nested loops never wait
// for themselves, errors and cancels stop the items not yet started, and loops of several
// callers run at the same time.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "model/util/ThreadPool.h"

using sl::ParallelOptions;
using sl::ThreadPool;

namespace {

// Waits until `done` holds or 10 s pass: a test that needs another thread to act fails
// instead of hanging when it never does.
template <class Pred>
bool waitFor(Pred done) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return true;
}

}  // namespace

TEST(ThreadPool, RunsEveryItemOnceAndReturnsWhenAllHaveReturned) {
    ThreadPool pool(3);
    EXPECT_EQ(pool.workerCount(), 3u);
    for (size_t n : {0u, 1u, 2u, 3u, 7u, 100u}) {
        std::vector<std::atomic<int>> hits(n);
        std::atomic<size_t> finished{0};
        pool.parallelFor(n, [&](size_t i) {
            if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
            hits[i].fetch_add(1);
            finished.fetch_add(1);
        });
        EXPECT_EQ(finished.load(), n);  // nothing still running after parallelFor returns
        for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n " << n << " i " << i;
    }
}

TEST(ThreadPool, ZeroItemsCallNothing) {
    ThreadPool pool(2);
    bool called = false;
    pool.parallelFor(0, [&](size_t) { called = true; });
    sl::parallelFor(0, [&](size_t) { called = true; });
    EXPECT_FALSE(called);
}

TEST(ThreadPool, ManyMoreItemsThanWorkers) {
    ThreadPool pool(2);
    constexpr size_t kItems = 200'000;
    std::vector<uint8_t> hits(kItems, 0);  // each item writes only its own byte
    std::atomic<uint64_t> sum{0};
    pool.parallelFor(kItems, [&](size_t i) {
        ++hits[i];
        sum.fetch_add(i, std::memory_order_relaxed);
    });
    EXPECT_EQ(sum.load(), uint64_t{kItems} * (kItems - 1) / 2);
    for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(hits[i], 1) << i;
}

TEST(ThreadPool, WorkersTakePart) {
    ThreadPool pool(1);
    const auto caller = std::this_thread::get_id();
    std::atomic<bool> workerRan{false};
    // Whoever takes item 0 holds it until another thread has run an item: fails (after 10 s)
    // if the worker never takes part.
    pool.parallelFor(
        4,
        [&](size_t i) {
            if (std::this_thread::get_id() != caller) workerRan = true;
            if (i == 0)
                waitFor([&] { return workerRan.load() || std::this_thread::get_id() != caller; });
        },
        ParallelOptions{2});  // not the machine's CPU count: the test must pass on one CPU
    EXPECT_TRUE(workerRan.load());
}

TEST(ThreadPool, ItemZeroRunsOnTheCaller) {
    ThreadPool pool(3);
    const auto caller = std::this_thread::get_id();
    for (int k = 0; k < 200; ++k) {
        std::thread::id first;
        pool.parallelFor(
            8,
            [&](size_t i) {
                if (i == 0) first = std::this_thread::get_id();
            },
            ParallelOptions{4});
        ASSERT_EQ(first, caller) << "round " << k;
    }
}

TEST(ThreadPool, OneThreadOrNoWorkersRunEverythingOnTheCallerInOrder) {
    ThreadPool none(0), two(2);
    for (auto [pool, maxThreads] : {std::pair{&none, 0u}, std::pair{&two, 1u}}) {
        const auto caller = std::this_thread::get_id();
        std::vector<size_t> order;
        pool->parallelFor(
            5,
            [&](size_t i) {
                EXPECT_EQ(std::this_thread::get_id(), caller);
                order.push_back(i);
            },
            ParallelOptions{maxThreads});
        EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
    }
}

TEST(ThreadPool, NestedLoopsFinishWhenEveryWorkerIsBusy) {
    // Two workers and the caller each hold an outer item while its inner loop runs: no inner
    // loop can get a free worker, so each must run on the thread that asked for it.
    ThreadPool pool(2);
    std::atomic<int> inner{0}, outerRunning{0};
    pool.parallelFor(
        3,
        [&](size_t) {
            outerRunning.fetch_add(1);
            waitFor([&] { return outerRunning.load() == 3; });
            pool.parallelFor(50, [&](size_t) {
                // Three levels: a loop inside an inner item too.
                pool.parallelFor(2, [&](size_t) { inner.fetch_add(1); });
            });
        },
        ParallelOptions{3});
    EXPECT_EQ(outerRunning.load(), 3);
    EXPECT_EQ(inner.load(), 3 * 50 * 2);
}

TEST(ThreadPool, LoopsInsideAWorkersItemStayOnItsPool) {
    ThreadPool pool(1);
    std::atomic<bool> sawWorker{false};
    pool.parallelFor(
        2,
        [&](size_t) {
            if (&ThreadPool::current() == &pool) sawWorker = true;
            waitFor([&] { return sawWorker.load(); });
        },
        ParallelOptions{2});
    EXPECT_TRUE(sawWorker.load());
    EXPECT_EQ(&ThreadPool::current(), &ThreadPool::shared());  // the caller has no Scope
    {
        ThreadPool::Scope scope(pool);
        EXPECT_EQ(&ThreadPool::current(), &pool);
    }
    EXPECT_EQ(&ThreadPool::current(), &ThreadPool::shared());
}

TEST(ThreadPool, AnExceptionReachesTheCallerAndSkipsTheItemsNotStarted) {
    ThreadPool pool(2);
    std::atomic<int> ran{0}, running{0};
    EXPECT_THROW(pool.parallelFor(1000,
                                  [&](size_t i) {
                                      running.fetch_add(1);
                                      ran.fetch_add(1);
                                      std::this_thread::sleep_for(std::chrono::microseconds(100));
                                      running.fetch_sub(1);
                                      if (i == 3) throw std::runtime_error("item 3");
                                  }),
                 std::runtime_error);
    EXPECT_EQ(running.load(), 0);  // every started item had returned
    EXPECT_LT(ran.load(), 1000);
    EXPECT_GE(ran.load(), 4);
    // The first of several errors wins; the pool is usable afterwards.
    try {
        pool.parallelFor(1, [](size_t) { throw std::logic_error("only"); });
        FAIL() << "no exception";
    } catch (const std::logic_error& e) {
        EXPECT_STREQ(e.what(), "only");
    }
    std::atomic<int> again{0};
    pool.parallelFor(4, [&](size_t) { again.fetch_add(1); });
    EXPECT_EQ(again.load(), 4);
}

TEST(ThreadPool, ACancelSkipsTheItemsNotStarted) {
    ThreadPool pool(2);
    std::atomic<bool> cancel{false};
    std::atomic<int> ran{0};
    pool.parallelFor(
        1000,
        [&](size_t i) {
            ran.fetch_add(1);
            if (i == 10) cancel = true;
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        },
        ParallelOptions{0, &cancel});
    EXPECT_GE(ran.load(), 11);
    EXPECT_LT(ran.load(), 1000);
    // Serially, nothing after the cancelling item runs.
    cancel = false;
    ran = 0;
    pool.parallelFor(
        100,
        [&](size_t i) {
            ran.fetch_add(1);
            if (i == 10) cancel = true;
        },
        ParallelOptions{1, &cancel});
    EXPECT_EQ(ran.load(), 11);
    // Cancelled before it begins: nothing runs.
    ran = 0;
    pool.parallelFor(100, [&](size_t) { ran.fetch_add(1); }, ParallelOptions{0, &cancel});
    EXPECT_EQ(ran.load(), 0);
}

TEST(ThreadPool, MaxThreadsBoundsTheThreadsOfALoop) {
    ThreadPool pool(3);
    std::atomic<int> inside{0}, most{0};
    pool.parallelFor(
        64,
        [&](size_t) {
            const int now = inside.fetch_add(1) + 1;
            for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
            }
            std::this_thread::sleep_for(std::chrono::microseconds(300));
            inside.fetch_sub(1);
        },
        ParallelOptions{2});
    EXPECT_LE(most.load(), 2);
}

TEST(ThreadPool, LoopsOfSeveralCallersRunAtTheSameTime) {
    ThreadPool pool(2);
    std::atomic<int> total{0};
    std::atomic<int> bothInside{0};
    // Every item of both callers' first loops waits until all four run (two callers, two
    // workers): fails (after 10 s) if one caller's loop had to wait for the other's to end.
    auto caller = [&] {
        pool.parallelFor(
            2,
            [&](size_t) {
                bothInside.fetch_add(1);
                waitFor([&] { return bothInside.load() == 4; });
            },
            ParallelOptions{2});
        for (int k = 0; k < 50; ++k) pool.parallelFor(6, [&](size_t) { total.fetch_add(1); });
    };
    std::thread a(caller), b(caller);
    a.join();
    b.join();
    EXPECT_EQ(bothInside.load(), 4);
    EXPECT_EQ(total.load(), 2 * 50 * 6);
}
