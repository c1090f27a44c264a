// GL-free tests of the "CPU samples" rows (tests/analysis-gui/SampleFixture.h): their place and
// count in the row tree, sample ticks in the leaf function's color (alone and folded by the
// LOD), and the hit test's tooltip fields (CPU, call stack leaf first).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tests/analysis-gui/SampleFixture.h"
#include "model/analysis/EventQueryDetails.h"
#include "viewer/timeline/Palette.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TrackRow.h"

using namespace sl;
using namespace sl::viewer;

namespace {

class CpuSampleRow : public ::testing::Test {
protected:
    std::shared_ptr<Report> report = test::makeSampleTreeReport();
    std::unique_ptr<Row> root = buildRowTree(*report);
    Palette palette{*report};
    TrackRow* row =
        dynamic_cast<TrackRow*>(root->find("Process 1 (app)/Thread 10 (main)/CPU samples"));

    RowContext context(double nsPerPixel, float width) {
        RowContext c;
        c.t0 = 0;
        c.t1 = static_cast<int64_t>(nsPerPixel * width);
        c.nsPerPixel = nsPerPixel;
        c.x = 0;
        c.width = width;
        c.y = 0;
        c.height = row->height();
        c.palette = &palette;
        return c;
    }
    // Pixel column -> color of the boxes drawn.
    std::map<int, uint32_t> pixels(const RowContext& c) {
        DrawList out;
        row->build(c, out);
        std::map<int, uint32_t> px;
        for (const DrawBox& b : out.boxes)
            for (int x = static_cast<int>(b.x); x < static_cast<int>(b.x + b.w); ++x)
                px[x] = b.argb;
        for (const DrawStrip& s : out.strips)
            for (uint32_t i = 0; i < s.count; ++i)
                if (const uint32_t argb = out.stripPixels[s.first + i]; argb >> 24)
                    px[static_cast<int>(s.x) + static_cast<int>(i)] = argb;
        return px;
    }
};

TEST_F(CpuSampleRow, IsTheLastRowOfItsThreadAndCountsItsSamples) {
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->title(), "CPU samples");
    EXPECT_EQ(row->count(), 6u);
    EXPECT_EQ(row->laneCount(), 1u);
    Row* thread = root->find("Process 1 (app)/Thread 10 (main)");
    EXPECT_EQ(thread->children().back().get(), row);
    EXPECT_EQ(root->find("Process 1 (app)/Thread 11 (worker)/CPU samples")->count(), 3u);
}

TEST_F(CpuSampleRow, SamplesAreTicksInTheirLeafFunctionsColor) {
    const uint32_t compute = Palette::hashColor("compute"), helper = Palette::hashColor("helper"),
                   run = Palette::hashColor("run"),
                   unknown = Palette::kindColor(EventKind::CpuSample);
    // 1 ns per pixel: every sample alone, one pixel wide.
    EXPECT_EQ(pixels(context(1, 1000)), (std::map<int, uint32_t>{{100, compute},
                                                                 {200, compute},
                                                                 {300, helper},
                                                                 {400, run},
                                                                 {500, run},
                                                                 {600, unknown}}));
    // 150 ns per pixel: the gaps (100 ns) fold all six into one item, drawn per pixel in the
    // color of the pixel's first sample, opaque (samples have no busy time to fade by).
    EXPECT_EQ(pixels(context(150, 20)),
              (std::map<int, uint32_t>{{0, compute}, {1, compute}, {2, helper}, {3, run}}));
    // 300 ns per pixel: a fold under 3 pixels ([0.33, 2.0)) is one tick in its first sample's
    // color.
    EXPECT_EQ(pixels(context(300, 10)), (std::map<int, uint32_t>{{0, compute}, {1, compute}}));
}

// The tooltip form of the one details formatter (what the timeline's tooltip shows).
std::vector<analysis::EventField> tooltipOf(const Report& r, const HitInfo& hit) {
    return analysis::eventDetails(r, *hit.track, hit.index, analysis::DetailForm::Tooltip);
}

TEST_F(CpuSampleRow, HitTestGivesCpuAndTheStackLeafFirst) {
    const RowContext c = context(1, 1000);
    const auto hit = row->hitTest(c, 300, 6);
    ASSERT_TRUE(hit);
    ASSERT_TRUE(hit->track);
    EXPECT_EQ(hit->start, 300);
    EXPECT_EQ(hit->end, 300);
    const auto f = tooltipOf(*report, *hit);
    EXPECT_EQ(analysis::detailValue(f, "Name"), "helper");
    EXPECT_EQ(analysis::detailValue(f, "Kind"), "CPU samples");
    EXPECT_EQ(analysis::detailValue(f, "Time"), "300 ns (300 ns)");
    EXPECT_EQ(analysis::detailValue(f, "CPU"), "1");
    // The stack leaf first, a frame per field after "Call stack".
    auto stack = std::find(f.begin(), f.end(), analysis::EventField{"Call stack", "helper (app)"});
    ASSERT_NE(stack, f.end());
    ASSERT_GE(f.end() - stack, 4);
    EXPECT_EQ(stack[1], (analysis::EventField{"", "compute (libm.so)"}));
    EXPECT_EQ(stack[3], (analysis::EventField{"", "main (app)"}));
    const auto foo = row->hitTest(c, 601, 6);
    ASSERT_TRUE(foo);
    EXPECT_EQ(analysis::detailValue(tooltipOf(*report, *foo), "Name"), "libfoo.so+0x40");
}

TEST(CpuSampleTooltip, DeepStacksShowTheNearestFramesAndCountTheRest) {
    ReportBuilder b;
    const uint32_t mod = b.intern("/lib/libdeep.so");
    std::vector<uint32_t> frames;
    for (int i = 0; i < 30; ++i)
        frames.push_back(b.frameId({b.intern("f" + std::to_string(i)), mod, 0}));
    const std::string longName(300, 'x');
    frames[1] = b.frameId({b.intern(longName), mod, 0});
    const uint32_t stack = b.stackId(frames);
    b.add(CpuSampleEvent{1, 2, 10, stack, b.intern("f0"), -1});
    const auto r = b.finish();
    const auto tip = analysis::eventDetails(*r, r->tracks[0], 0, analysis::DetailForm::Tooltip);
    const auto top = std::find_if(tip.begin(), tip.end(), [](const auto& f) { return f.field == "Call stack"; });
    EXPECT_EQ(analysis::detailValue(tip, "CPU"), "unknown");
    ASSERT_NE(top, tip.end());
    EXPECT_EQ(top->value, "f0 (libdeep.so)");
    ASSERT_EQ(tip.end() - top, 13);  // 12 frames and the rest's count
    EXPECT_EQ(top[1].value, longName + " (libdeep.so)");  // whole: the tooltip cuts its lines
    EXPECT_EQ(top[11].value, "f11 (libdeep.so)");
    EXPECT_EQ(top[12], (analysis::EventField{"", "... 18 more frames (click: details)"}));
    // The full form (the details panel) lists every frame.
    const auto full = analysis::eventDetails(*r, analysis::EventRef{0, 0});
    EXPECT_EQ(std::count_if(full.begin(), full.end(),
                            [](const auto& f) { return f.field.empty() || f.field == "Call stack"; }),
              30);
}

}  // namespace
