// The pool that builds a frame's rows in parallel: every index runs exactly once, the call
// returns only when all have returned, errors come back to the caller, and callers from
// several threads each get all their items.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "viewer/timeline/ParallelFor.h"

using sl::viewer::ParallelFor;

TEST(ParallelFor, RunsEveryIndexOnceAndWaitsForAll) {
    ParallelFor pool(3);
    EXPECT_EQ(pool.helpers(), 3u);
    for (size_t n : {0u, 1u, 2u, 7u, 100u}) {
        std::vector<std::atomic<int>> hits(n);
        std::atomic<size_t> finished{0};
        pool.run(n, [&](size_t i) {
            if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
            hits[i].fetch_add(1);
            finished.fetch_add(1);
        });
        EXPECT_EQ(finished.load(), n);  // nothing still running after run() returns
        for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n " << n << " i " << i;
    }
}

TEST(ParallelFor, HelpersTakePartWhenThereAreSome) {
    ParallelFor pool(1);
    const auto caller = std::this_thread::get_id();
    std::atomic<bool> helperRan{false};
    // The caller takes item 0 first and holds it until another thread has run an item: only
    // the helper can, so this fails (after 10 s) if the helper never takes part.
    pool.run(4, [&](size_t i) {
        if (std::this_thread::get_id() != caller) helperRan = true;
        if (i != 0) return;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!helperRan && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    EXPECT_TRUE(helperRan.load());
}

TEST(ParallelFor, ANestedRunRunsSeriallyInsteadOfWaitingForItself) {
    ParallelFor pool(2);
    std::atomic<int> inner{0};
    pool.run(3, [&](size_t) { pool.run(4, [&](size_t) { inner.fetch_add(1); }); });
    EXPECT_EQ(inner.load(), 12);
}

TEST(ParallelFor, WithoutHelpersTheCallerRunsEverything) {
    ParallelFor pool(0);
    const auto caller = std::this_thread::get_id();
    int n = 0;
    pool.run(5, [&](size_t) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        ++n;
    });
    EXPECT_EQ(n, 5);
}

TEST(ParallelFor, AnErrorReachesTheCaller) {
    ParallelFor pool(2);
    std::atomic<int> ran{0};
    EXPECT_THROW(pool.run(20,
                          [&](size_t i) {
                              ran.fetch_add(1);
                              if (i == 7) throw std::runtime_error("row 7");
                          }),
                 std::runtime_error);
    EXPECT_GE(ran.load(), 8);  // items 0-7 were taken before 7 threw; later ones may be skipped
    // The pool is usable afterwards.
    std::atomic<int> again{0};
    pool.run(4, [&](size_t) { again.fetch_add(1); });
    EXPECT_EQ(again.load(), 4);
}

TEST(ParallelFor, CallersFromSeveralThreadsEachGetEveryItem) {
    ParallelFor pool(2);
    std::atomic<int> total{0};
    auto caller = [&] {
        for (int k = 0; k < 20; ++k) pool.run(6, [&](size_t) { total.fetch_add(1); });
    };
    std::thread a(caller), b(caller);
    a.join();
    b.join();
    EXPECT_EQ(total.load(), 2 * 20 * 6);
}
