// DrawList's strips: how a fold's columns are collected, trimmed and concatenated.
#include <gtest/gtest.h>

#include "viewer/timeline/DrawList.h"

using namespace sl::viewer;

namespace {

std::vector<uint32_t> columns(const DrawList& l, const DrawStrip& s) {
    return {l.stripPixels.begin() + s.first, l.stripPixels.begin() + s.first + s.count};
}

}  // namespace

TEST(DrawList, AStripDropsItsEmptyEndsAndKeepsInnerGaps) {
    DrawList l;
    l.beginStrip(100, 20, 17);
    for (uint32_t c : {0u, 0u, 0xFF112233u, 0u, 0xFF445566u, 0u}) l.addColumn(c);
    l.endStrip();
    ASSERT_EQ(l.strips.size(), 1u);
    const DrawStrip& s = l.strips[0];
    EXPECT_FLOAT_EQ(s.x, 102);  // starts at its first drawn column
    EXPECT_EQ(s.count, 3u);
    EXPECT_TRUE(s.opaque);
    EXPECT_EQ(columns(l, s), (std::vector<uint32_t>{0xFF112233u, 0u, 0xFF445566u}));
    EXPECT_EQ(l.stripPixels.size(), 3u);  // nothing left behind
    EXPECT_EQ(l.stripColorAt(102.5f, 25), 0xFF112233u);
    EXPECT_EQ(l.stripColorAt(103.5f, 25), 0u);
    EXPECT_EQ(l.stripColorAt(104.5f, 25), 0xFF445566u);
    EXPECT_EQ(l.stripColorAt(104.5f, 37.5f), 0u);  // below the strip
    EXPECT_EQ(l.stripColorAt(105.5f, 25), 0u);
}

TEST(DrawList, AnEmptyStripIsDroppedAndATranslucentColumnMakesItTranslucent) {
    DrawList l;
    l.beginStrip(0, 0, 17);
    l.addColumn(0);
    l.addColumn(0);
    l.beginStrip(10, 0, 17);  // ends the empty one
    l.addColumn(0xFF000001u);
    l.addColumn(0x80000002u);
    l.endStrip();
    l.endStrip();  // a second end changes nothing
    ASSERT_EQ(l.strips.size(), 1u);
    EXPECT_FLOAT_EQ(l.strips[0].x, 10);
    EXPECT_FALSE(l.strips[0].opaque);
    EXPECT_EQ(columns(l, l.strips[0]), (std::vector<uint32_t>{0xFF000001u, 0x80000002u}));
}

TEST(DrawList, AppendKeepsEachStripsColumnsAndEmptiesTheSource) {
    DrawList a, b;
    a.boxes.push_back({1, 2, 3, 4, 0xFF0000FFu});
    a.beginStrip(5, 0, 17);
    for (uint32_t i = 1; i <= 3; ++i) a.addColumn(0xFF000000u | i);
    b.beginStrip(50, 20, 17);
    for (uint32_t i = 10; i <= 14; ++i) b.addColumn(0xFF000000u | i);
    b.labels.push_back({0, 0, 10, 10, 0xFF000000u, "x"});
    b.beginStrip(80, 40, 17);
    b.addColumn(0xFF0000AAu);  // left open: append ends it
    a.append(b);
    ASSERT_EQ(a.strips.size(), 3u);
    EXPECT_EQ(columns(a, a.strips[0]), (std::vector<uint32_t>{0xFF000001u, 0xFF000002u, 0xFF000003u}));
    EXPECT_EQ(columns(a, a.strips[1]),
              (std::vector<uint32_t>{0xFF00000Au, 0xFF00000Bu, 0xFF00000Cu, 0xFF00000Du, 0xFF00000Eu}));
    EXPECT_EQ(columns(a, a.strips[2]), (std::vector<uint32_t>{0xFF0000AAu}));
    EXPECT_EQ(a.stripColorAt(52.5f, 21), 0xFF00000Cu);
    EXPECT_EQ(a.labels.size(), 1u);
    EXPECT_EQ(a.boxes.size(), 1u);
    EXPECT_TRUE(b.strips.empty());
    EXPECT_TRUE(b.stripPixels.empty());
    EXPECT_TRUE(b.labels.empty());
    EXPECT_FALSE(b.stripOpen);
}

// A layer starts where beginLayer() was called (an open strip ends first); appending a list
// carries its layers, moved by what was there before.
TEST(DrawList, LayersStartAtBeginLayerAndMoveWhenAppended) {
    DrawList a, b;
    a.boxes.push_back({1, 2, 3, 4, 0xFF0000FFu});
    a.beginStrip(5, 0, 17);
    a.addColumn(0xFF000001u);
    a.beginLayer();
    EXPECT_FALSE(a.stripOpen);
    ASSERT_EQ(a.layers.size(), 1u);
    EXPECT_EQ(a.layers[0].firstBox, 1u);
    EXPECT_EQ(a.layers[0].firstStrip, 1u);
    b.boxes.push_back({0, 0, 1, 1, 0xFF000002u});
    b.beginLayer();
    b.boxes.push_back({0, 0, 1, 1, 0xFF000003u});
    a.append(b);
    ASSERT_EQ(a.layers.size(), 2u);
    EXPECT_EQ(a.layers[1].firstBox, 2u);  // b's second box, after a's one and b's first
    EXPECT_EQ(a.layers[1].firstStrip, 1u);
    EXPECT_TRUE(b.layers.empty());
    a.clear();
    EXPECT_TRUE(a.layers.empty());
}
