// The per-thread batches of API records made by our CUPTI callbacks (ApiRecordBatches.h): every
// record comes out once, whichever way its thread ends.
#include <gtest/gtest.h>

#include <algorithm>
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
        for (int i = 0; i < 2500; ++i) ready += b.add({i});
        for (auto& batch : b.takeReady()) {
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

}  // namespace
}  // namespace sl::cuda
