// Column: a column of one repeated value holds no vector, and every access answers as if it
// held one (decision 18 in docs/ARCHITECTURE.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <vector>

#include "model/core/Column.h"

namespace sl {
namespace {

template <class T>
std::vector<T> all(const Column& c) {
    const ColumnView<T> v = c.view<T>();
    return std::vector<T>(v.begin(), v.end());
}

TEST(Column, RepeatedValuesHoldNoVector) {
    Column c(ColumnType::U32);
    c.reserve(1000);
    for (int i = 0; i < 1000; ++i) c.push<uint32_t>(7);
    EXPECT_TRUE(c.uniform());
    EXPECT_EQ(c.size(), 1000u);
    EXPECT_EQ(c.memoryBytes(), 0u);
    EXPECT_EQ(c.view<uint32_t>()[999], 7u);
    EXPECT_EQ(c.intAt(500), 7);
    EXPECT_EQ(c.doubleAt(0), 7.0);
    EXPECT_EQ(all<uint32_t>(c), std::vector<uint32_t>(1000, 7));
}

TEST(Column, TheFirstDifferentValueWritesTheVectorOut) {
    Column c(ColumnType::I64);
    c.reserve(10);
    for (int i = 0; i < 5; ++i) c.pushInt(-3);
    c.pushInt(4);
    EXPECT_FALSE(c.uniform());
    EXPECT_EQ(all<int64_t>(c), (std::vector<int64_t>{-3, -3, -3, -3, -3, 4}));
    EXPECT_GE(c.memoryBytes(), 10 * sizeof(int64_t));  // the reservation was kept
    c.pushInt(-3);
    EXPECT_EQ(c.size(), 7u);
    EXPECT_EQ(c.intAt(6), -3);
}

TEST(Column, DoublesCompareByBits) {
    Column c(ColumnType::F64);
    c.pushDouble(0.0);
    c.pushDouble(-0.0);  // equal as doubles, a different value to keep
    EXPECT_FALSE(c.uniform());
    EXPECT_TRUE(std::signbit(c.view<double>()[1]));
    Column d(ColumnType::F64);
    d.pushInt(std::bit_cast<int64_t>(2.5));
    d.push<double>(2.5);
    EXPECT_TRUE(d.uniform());
    EXPECT_EQ(d.view<double>()[1], 2.5);
}

TEST(Column, NarrowingHappensBeforeTheComparison) {
    Column c(ColumnType::U8);
    c.pushInt(1);
    c.pushInt(257);  // 1 in a u8 column
    EXPECT_TRUE(c.uniform());
    EXPECT_EQ(c.intAt(1), 1);
}

TEST(Column, ResizeSetAndPermute) {
    Column c(ColumnType::U8);
    c.resize(4);  // zeros
    EXPECT_TRUE(c.uniform());
    c.setInt(2, 0);
    EXPECT_TRUE(c.uniform());
    c.setInt(2, 9);
    EXPECT_EQ(all<uint8_t>(c), (std::vector<uint8_t>{0, 0, 9, 0}));
    c.permute({2, 0, 1, 3});
    EXPECT_EQ(all<uint8_t>(c), (std::vector<uint8_t>{9, 0, 0, 0}));

    Column u(ColumnType::U8);
    for (int i = 0; i < 3; ++i) u.pushInt(5);
    u.permute({2, 1, 0});
    EXPECT_TRUE(u.uniform());
    EXPECT_EQ(u.size(), 3u);
    u.resize(5);  // grows with zeros: no longer one value
    EXPECT_EQ(all<uint8_t>(u), (std::vector<uint8_t>{5, 5, 5, 0, 0}));
    u.clear();
    EXPECT_TRUE(u.uniform());
    EXPECT_EQ(u.size(), 0u);
}

TEST(Column, AppendRangeMixesBothForms) {
    Column a(ColumnType::I32), b(ColumnType::I32), mixed(ColumnType::I32);
    for (int i = 0; i < 4; ++i) a.pushInt(1);
    for (int i = 0; i < 4; ++i) b.pushInt(1);
    for (int i = 0; i < 4; ++i) mixed.pushInt(i);
    a.appendRange(b, 1, 3);
    EXPECT_TRUE(a.uniform());
    EXPECT_EQ(a.size(), 6u);
    a.appendRange(mixed, 0, 3);
    EXPECT_EQ(all<int32_t>(a), (std::vector<int32_t>{1, 1, 1, 1, 1, 1, 0, 1, 2}));
    mixed.appendRange(b, 0, 2);
    EXPECT_EQ(all<int32_t>(mixed), (std::vector<int32_t>{0, 1, 2, 3, 1, 1}));
    Column empty(ColumnType::I32);
    empty.appendRange(mixed, 1, 2);
    EXPECT_EQ(all<int32_t>(empty), (std::vector<int32_t>{1}));
}

// appendInts (the reader's bulk path) gives what pushInt of each value gives: the same values,
// narrowed the same way, and one repeated value stays without a vector.
TEST(Column, AppendIntsEqualsPushIntOfEachValue) {
    const std::vector<std::vector<int64_t>> batches = {
        {7, 7, 7}, {7, 7}, {7, 263, -1, 7}, {}, {1ll << 40, 5}};
    for (ColumnType type : {ColumnType::I64, ColumnType::U32, ColumnType::U8, ColumnType::I16, ColumnType::F64}) {
        Column bulk(type), one(type);
        for (size_t b = 0; b < batches.size(); ++b) {
            bulk.appendInts(batches[b].data(), batches[b].size());
            for (int64_t v : batches[b]) one.pushInt(v);
            ASSERT_EQ(bulk.size(), one.size());
            EXPECT_EQ(bulk.uniform(), one.uniform()) << "after batch " << b;
            for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(bulk.intAt(i), one.intAt(i)) << i;
        }
        EXPECT_FALSE(bulk.uniform());
    }
    Column same(ColumnType::U32);
    const int64_t zeros[4] = {0, 0, 0, 0};
    same.appendInts(zeros, 4);
    same.appendInts(zeros, 4);
    EXPECT_TRUE(same.uniform());
    EXPECT_EQ(same.size(), 8u);
}

TEST(Column, ValuesWritesOutForBulkChanges) {
    Column c(ColumnType::U32);
    c.push<uint32_t>(3);
    c.push<uint32_t>(3);
    std::vector<uint32_t>& v = c.values<uint32_t>();
    ASSERT_EQ(v.size(), 2u);
    v[0] = 8;
    EXPECT_FALSE(c.uniform());
    EXPECT_EQ(c.intAt(0), 8);
    EXPECT_EQ(c.intAt(1), 3);
}

TEST(Column, ViewIteratorsWorkWithAlgorithms) {
    Column c(ColumnType::U32);
    for (uint32_t i = 0; i < 6; ++i) c.push<uint32_t>(2);
    const auto v = c.view<uint32_t>();
    EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0u), 12u);
    EXPECT_EQ(v.end() - v.begin(), 6);
    EXPECT_TRUE(std::binary_search(v.begin(), v.end(), 2u));
}

}  // namespace
}  // namespace sl
