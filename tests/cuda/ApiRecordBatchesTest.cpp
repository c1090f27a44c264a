// The per-thread batches of API records made by our CUPTI callbacks (ApiRecordBatches.h): every
// record comes out once, whichever way its thread ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "capture/cupti/inject/ApiRecordBatches.h"

namespace sl::cuda {
namespace {

struct Rec {
    int id;
};
using Batches = ApiRecordBatchesOf<Rec>;

std::vector<int> ids(const std::vector<Rec>& v) {
    std::vector<int> out;
    for (const Rec& r : v) out.push_back(r.id);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<int> range(int n) {
    std::vector<int> v(n);
    for (int i = 0; i < n; ++i) v[i] = i;
    return v;
}

TEST(ApiRecordBatches, AFullBatchIsReadyForTheConverterAndTheRestWaitsInItsThread) {
    Batches b;
    int ready = 0;
    std::vector<Rec> kept;
    std::thread([&] {
        for (int i = 0; i < 2500; ++i) b.add({i});
        auto batches = b.takeReady();
        ASSERT_TRUE(batches.has_value());
        ready = int(batches->size());
        for (auto& batch : *batches) {
            EXPECT_EQ(batch.size(), Batches::kBatch);
            kept.insert(kept.end(), batch.begin(), batch.end());
        }
        auto rest = b.takeAll();  // while the thread lives: from its slot
        EXPECT_TRUE(rest.complete);
        kept.insert(kept.end(), rest.records.begin(), rest.records.end());
    }).join();
    EXPECT_EQ(ready, 2);
    EXPECT_EQ(ids(kept), range(2500));
}

TEST(ApiRecordBatches, RecordsOfThreadsThatEndedAreKept) {
    Batches b;
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&b, t] {
            for (int i = 0; i < 300; ++i) b.add({t * 300 + i});
        });
    for (auto& t : threads) t.join();
    auto all = b.takeAll();
    EXPECT_EQ(ids(all.records), range(2400));
    EXPECT_TRUE(b.takeAll().records.empty());  // each once
}

// A thread_local made before the thread's first record is destroyed after the batches' own
// per-thread state: a record it makes then still arrives (it used to go into a freed slot).
TEST(ApiRecordBatches, ARecordMadeAfterTheThreadsStateIsGoneIsKept) {
    static Batches b;
    std::thread([] {
        struct RecordsAtExit {
            ~RecordsAtExit() { b.add({1}); }
        };
        thread_local RecordsAtExit late;
        (void)&late;
        b.add({0});
    }).join();
    EXPECT_EQ(ids(b.takeAll().records), range(2));
}

TEST(ApiRecordBatches, ManyThreadsAddingWhileAnotherTakesLoseNothing) {
    Batches b;
    std::vector<Rec> kept;
    std::atomic<bool> done{false};
    std::thread taker([&] {
        while (!done) {
            auto t = b.takeAll();
            kept.insert(kept.end(), t.records.begin(), t.records.end());
        }
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&b, t] {
            for (int i = 0; i < 5000; ++i) b.add({t * 5000 + i});
        });
    for (auto& t : threads) t.join();
    done = true;
    taker.join();
    auto last = b.takeAll();
    kept.insert(kept.end(), last.records.begin(), last.records.end());
    EXPECT_EQ(ids(kept), range(20000));
}

// As the converter works: full batches taken, converted, given back and filled again by the
// program's threads, while the threads add; every record comes out exactly once.
TEST(ApiRecordBatches, BatchesGivenBackAreFilledAgainWithoutLossOrRepeat) {
    struct Rec3 {
        int id;
    };
    ApiRecordBatchesOf<Rec3> b;
    std::vector<int> kept;
    std::atomic<bool> done{false};
    size_t givenBack = 0;
    std::thread converter([&] {
        std::vector<std::vector<Rec3>> unreturned;
        for (bool last = false; !last;) {
            last = done;  // one more round after the threads ended: every ready batch
            if (auto ready = b.takeReady()) {
                for (auto& batch : *ready) {
                    for (const Rec3& r : batch) kept.push_back(r.id);
                    unreturned.push_back(std::move(batch));
                }
            }
            givenBack += unreturned.size();
            if (!unreturned.empty()) {
                ASSERT_TRUE(b.giveBack(unreturned));
            }
            EXPECT_TRUE(unreturned.empty());
        }
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&b, t] {
            for (int i = 0; i < 25000; ++i) b.add({t * 25000 + i});
        });
    for (auto& t : threads) t.join();
    done = true;
    converter.join();
    for (const Rec3& r : b.takeAll().records) kept.push_back(r.id);
    std::sort(kept.begin(), kept.end());
    EXPECT_EQ(kept, range(100000));
    EXPECT_GT(givenBack, 0u);
}

// Threads that each end before filling a batch: their records become ready batches once there
// are enough of them, and the converter is woken (it would otherwise see them only at the end).
std::atomic<int> g_wakes{0};
TEST(ApiRecordBatches, RecordsOfEndedThreadsBecomeReadyBatchesToo) {
    struct Rec2 {
        int id;
    };
    g_wakes = 0;  // a repeated run (--gtest_repeat) starts again from none
    ApiRecordBatchesOf<Rec2> b([] { ++g_wakes; });
    for (int t = 0; t < 200; ++t)
        std::thread([&b, t] {
            for (int i = 0; i < 100; ++i) b.add({t * 100 + i});
        }).join();
    auto ready = b.takeReady();
    ASSERT_TRUE(ready.has_value());
    size_t n = 0;
    for (auto& batch : *ready) n += batch.size();
    EXPECT_EQ(ready->size(), 18u);  // 20,000 records, 11 threads (1,100) to a batch
    EXPECT_EQ(g_wakes.load(), int(ready->size()));
    n += b.takeAll().records.size();
    EXPECT_EQ(n, 20000u);
}

// A thread stopped for good while it holds one of the locks (a signal stopped it, or a handler
// that ends the process runs on it) is made here by a record whose copy waits at a gate: the
// first copy after the gate is armed stops there, inside the lock its caller holds.
struct Gate {
    std::mutex m;
    std::condition_variable cv;
    bool armed = false, stopped = false, open = false;
    void arm() {
        std::lock_guard l(m);
        armed = true;
    }
    void waitStopped() {
        std::unique_lock l(m);
        cv.wait(l, [&] { return stopped; });
    }
    void release() {
        std::lock_guard l(m);
        open = true;
        cv.notify_all();
    }
    void pass() {
        std::unique_lock l(m);
        if (!armed) return;
        armed = false;
        stopped = true;
        cv.notify_all();
        cv.wait(l, [&] { return open; });
    }
};

struct GatedRec {
    int id = 0;
    Gate* gate = nullptr;
    GatedRec(int i, Gate* g) : id(i), gate(g) {}
    GatedRec(const GatedRec& o) : id(o.id), gate(o.gate) {
        if (gate) gate->pass();
    }
    GatedRec& operator=(const GatedRec& o) = default;
};

std::vector<int> gatedIds(const std::vector<GatedRec>& v) {
    std::vector<int> out;
    for (const GatedRec& r : v) out.push_back(r.id);
    std::sort(out.begin(), out.end());
    return out;
}

// A thread that adds these records (their copies pass the gate) and ends; as it ends, its
// records are copied to the orphans under the list lock, and the first copy stops at the gate.
// Returns once it is stopped there, holding the list lock.
std::thread stopInListLockAtExit(ApiRecordBatchesOf<GatedRec>& b, Gate& gate,
                                 const std::vector<int>& ids) {
    std::atomic<bool> added{false}, armed{false};
    std::thread ending([&] {
        for (int id : ids) b.add({id, &gate});
        added = true;
        while (!armed) std::this_thread::yield();
    });
    while (!added) std::this_thread::yield();
    gate.arm();
    armed = true;
    gate.waitStopped();
    return ending;
}

// The flush at the end must not wait for such a thread: it takes everything else within its
// bounded wait and says how many slots it could not read.
TEST(ApiRecordBatches, AThreadStoppedWhileAppendingLeavesOnlyItsOwnRecordsUnread) {
    ApiRecordBatchesOf<GatedRec> b;
    Gate gate;
    std::thread other([&] {
        for (int i = 0; i < 10; ++i) b.add({100 + i, nullptr});
    });
    other.join();  // ended: its records are orphans now
    std::thread live([&] {
        for (int i = 0; i < 5; ++i) b.add({200 + i, nullptr});
    });
    live.join();
    gate.arm();
    std::thread stopped([&] { b.add({1, &gate}); });  // stops inside its slot lock
    gate.waitStopped();
    const auto t0 = std::chrono::steady_clock::now();
    auto taken = b.takeAll(std::chrono::milliseconds(20));
    const auto waited = std::chrono::steady_clock::now() - t0;
    EXPECT_TRUE(taken.complete);
    EXPECT_EQ(taken.busySlots, 1);
    EXPECT_LT(waited, std::chrono::seconds(2));
    std::vector<int> want;
    for (int i = 0; i < 10; ++i) want.push_back(100 + i);
    for (int i = 0; i < 5; ++i) want.push_back(200 + i);
    EXPECT_EQ(gatedIds(taken.records), want);
    gate.release();
    stopped.join();
    EXPECT_EQ(gatedIds(b.takeAll().records), std::vector<int>{1});
}

// A thread stopped while it holds the list lock (here: giving its records back as it ends):
// the converter's takeReady and the final takeAll return within their wait, read nothing and
// say so, and everything is there once the lock is free again.
TEST(ApiRecordBatches, AThreadStoppedHoldingTheListLockBlocksNoTaker) {
    ApiRecordBatchesOf<GatedRec> b;
    Gate gate;
    std::thread ending = stopInListLockAtExit(b, gate, {0, 1, 2});
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(b.takeReady(std::chrono::milliseconds(20)).has_value());
    auto taken = b.takeAll(std::chrono::milliseconds(20));
    EXPECT_FALSE(taken.complete);
    EXPECT_TRUE(taken.records.empty());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
    gate.release();
    ending.join();
    EXPECT_EQ(gatedIds(b.takeAll().records), (std::vector<int>{0, 1, 2}));
}

// The converter gives converted batches back under the list lock: when a program thread is
// stopped holding it, giveBack returns within its wait and leaves the batches to the caller.
TEST(ApiRecordBatches, GiveBackWaitsNoLongerThanItsLimit) {
    ApiRecordBatchesOf<GatedRec> b;
    Gate gate;
    std::thread filler([&] {
        for (int i = 0; i < int(ApiRecordBatchesOf<GatedRec>::kBatch); ++i) b.add({i, nullptr});
    });
    filler.join();
    auto ready = b.takeReady();
    ASSERT_TRUE(ready.has_value());
    ASSERT_EQ(ready->size(), 1u);
    std::thread ending = stopInListLockAtExit(b, gate, {5000});
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(b.giveBack(*ready, std::chrono::milliseconds(20)));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
    EXPECT_EQ(ready->size(), 1u);  // still the caller's
    gate.release();
    ending.join();
    EXPECT_TRUE(b.giveBack(*ready));
    EXPECT_TRUE(ready->empty());
    EXPECT_EQ(gatedIds(b.takeAll().records), std::vector<int>{5000});
}

}  // namespace
}  // namespace sl::cuda
