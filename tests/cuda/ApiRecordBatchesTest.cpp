// The per-thread batches of API records made by our CUPTI callbacks (ApiRecordBatches.h): every
// record comes out once, whichever way its thread ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
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

// Threads that each end before filling a batch: their records become ready batches once there
// are enough of them, and the converter is woken (it would otherwise see them only at the end).
std::atomic<int> g_wakes{0};
TEST(ApiRecordBatches, RecordsOfEndedThreadsBecomeReadyBatchesToo) {
    struct Rec2 {
        int id;
    };
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

}  // namespace
}  // namespace sl::cuda
