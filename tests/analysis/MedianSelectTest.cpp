// middleValues must give exactly the two middle order statistics a full sort gives, for any
// spread of values: clustered, with far outliers, negative, all equal, the int64 extremes.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "model/analysis/MedianSelect.h"

namespace sl::analysis {
namespace {

void expectMiddles(std::vector<int64_t> v, const std::string& what) {
    std::vector<int64_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = v.size();
    const MiddleValues m = middleValues(v, sorted.front(), sorted.back());
    EXPECT_EQ(m.lower, sorted[(n - 1) / 2]) << what << " n=" << n;
    EXPECT_EQ(m.upper, sorted[n / 2]) << what << " n=" << n;
}

uint64_t next(uint64_t& x) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 11;
}

TEST(MedianSelect, MatchesSortOnManyShapes) {
    uint64_t x = 7;
    for (size_t n : {1u, 2u, 3u, 4095u, 4096u, 4097u, 10'000u, 100'001u, 250'000u}) {
        std::vector<int64_t> clustered, outliers, negative, equal, extremes, fewDistinct;
        for (size_t i = 0; i < n; ++i) {
            clustered.push_back(400'000 + static_cast<int64_t>(next(x) % 200'000));
            // A few huge values stretch the range: the middle lies in one wide bucket.
            outliers.push_back(i % 997 == 0 ? static_cast<int64_t>(next(x) % (int64_t{1} << 60))
                                            : 1000 + static_cast<int64_t>(next(x) % 50));
            negative.push_back(static_cast<int64_t>(next(x) % 2'000'001) - 1'000'000);
            equal.push_back(42);
            extremes.push_back(i % 3 == 0   ? std::numeric_limits<int64_t>::min()
                               : i % 3 == 1 ? std::numeric_limits<int64_t>::max()
                                            : static_cast<int64_t>(next(x)) - (int64_t{1} << 52));
            fewDistinct.push_back(static_cast<int64_t>(next(x) % 3) * 1'000'000'007);
        }
        expectMiddles(clustered, "clustered");
        expectMiddles(outliers, "outliers");
        expectMiddles(negative, "negative");
        expectMiddles(equal, "equal");
        expectMiddles(extremes, "extremes");
        expectMiddles(fewDistinct, "few distinct");
    }
}

TEST(MedianSelect, MiddlesInDifferentBuckets) {
    // Even count whose two middle values are far apart (two halves): each in its own bucket.
    std::vector<int64_t> v;
    for (int i = 0; i < 50'000; ++i) v.push_back(i);
    for (int i = 0; i < 50'000; ++i) v.push_back(int64_t{1} << 40 | i);
    std::reverse(v.begin(), v.end());
    expectMiddles(v, "split halves");
    const MiddleValues m = middleValues(v, 0, int64_t{1} << 40 | 49'999);
    EXPECT_EQ(m.lower, 49'999);
    EXPECT_EQ(m.upper, int64_t{1} << 40);
}

}  // namespace
}  // namespace sl::analysis
