// GL-free tests of the timeline: view state, ruler, row tree, folding, hit testing, the
// frame's draw list and option parsing. They need no display.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "ViewerFixture.h"
#include "model/analysis/EventQueryDetails.h"
#include "model/gen/SyntheticGenerator.h"
#include "viewer/ReportSummary.h"
#include "viewer/analysis/EventsModel.h"
#include "viewer/analysis/TimeText.h"
#include "viewer/analysis/TimelineOverlay.h"
#include "viewer/timeline/EventFields.h"
#include "viewer/timeline/Palette.h"
#include "viewer/timeline/ProjectedNvtxRow.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimeRuler.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TrackRow.h"
#include "viewer/timeline/ViewState.h"
#include "viewer/window/CommandLine.h"

using namespace sl;
using namespace sl::viewer;
using sl::test::kMs;
using sl::test::kOrigin;

namespace {

std::vector<std::string> childTitles(const Row& r) {
    std::vector<std::string> out;
    for (const auto& c : r.children()) out.push_back(c->title());
    return out;
}

std::unique_ptr<TimelineScene> makeScene(float w = 1600, float h = 900) {
    std::shared_ptr<Report> r = sl::test::makeViewerReport();
    auto rows = buildRowTree(*r);
    auto scene = std::make_unique<TimelineScene>(r, std::move(rows));
    scene->setSize(w, h);
    return scene;
}

const LayoutRow* findLayout(TimelineScene& s, const Row* row) {
    for (const LayoutRow& lr : s.layout())
        if (lr.row == row) return &lr;
    return nullptr;
}

}  // namespace

TEST(ViewState, ZoomPanClampAndHistory) {
    ViewState v;
    v.reset(1000, 11000, 1000);
    EXPECT_EQ(v.range(), (TimeRange{1000, 11000}));
    v.zoomAround(6000, 0.5);
    EXPECT_EQ(v.range(), (TimeRange{3500, 8500}));
    v.pan(1000);
    EXPECT_EQ(v.range(), (TimeRange{4500, 9500}));
    EXPECT_EQ(v.historySize(), 0u);  // wheel steps are not history
    v.pan(100000);                   // clamped to the bounds plus 5% (500)
    EXPECT_EQ(v.range(), (TimeRange{6500, 11500}));
    v.setSelection(7000, 5000);
    EXPECT_EQ(v.selection(), (TimeRange{5000, 7000}));
    EXPECT_TRUE(v.zoomToSelection());
    EXPECT_EQ(v.range(), (TimeRange{5000, 7000}));
    EXPECT_FALSE(v.hasSelection());
    v.showAll();
    EXPECT_EQ(v.range(), (TimeRange{1000, 11000}));
    EXPECT_TRUE(v.back());
    EXPECT_EQ(v.range(), (TimeRange{5000, 7000}));
    EXPECT_TRUE(v.back());
    EXPECT_EQ(v.range(), (TimeRange{6500, 11500}));
    EXPECT_FALSE(v.back());
    v.zoomAround(7000, 1e-9);  // never narrower than kMinSpan, anchor kept
    EXPECT_EQ(v.range().span(), ViewState::kMinSpan);
    EXPECT_LE(v.range().start, 7000);
    EXPECT_GE(v.range().end, 7000);
    v.addMarker(42);
    EXPECT_EQ(v.markers(), std::vector<int64_t>{42});
}

TEST(TimeRuler, AdaptiveStepsAndLabels) {
    RulerTicks t = rulerTicks(kOrigin, kOrigin + 10 * kMs, kOrigin, 1320);
    EXPECT_EQ(t.step, 1 * kMs);
    std::vector<std::string> labels;
    for (const auto& k : t.ticks)
        if (k.major) labels.push_back(k.label);
    ASSERT_EQ(labels.size(), 11u);
    EXPECT_EQ(labels.front(), "0 ms");
    EXPECT_EQ(labels[3], "3 ms");
    EXPECT_EQ(labels.back(), "10 ms");
    EXPECT_EQ(formatTickLabel(1'500'000, 500'000), "1.5 ms");
    EXPECT_EQ(formatTickLabel(2'000'000'000, 1'000'000'000), "2 s");
    EXPECT_EQ(formatTickLabel(250, 50), "250 ns");
    EXPECT_EQ(formatTickLabel(1'250, 250), "1.25 us");
    // 20 ns over 1320 px: steps of 2 ns at most, never zero.
    RulerTicks fine = rulerTicks(100, 120, 0, 1320);
    EXPECT_EQ(fine.step, 2);
}

TEST(RowTree, GroupsRowsAndCounts) {
    auto r = sl::test::makeViewerReport();
    auto root = buildRowTree(*r);
    EXPECT_EQ(childTitles(*root),
              (std::vector<std::string>{"Process 100 (app)", "GPU 0 (Test GPU)"}));
    Row* thread = root->find("Process 100 (app)/Thread 101 (main)");
    ASSERT_NE(thread, nullptr);
    EXPECT_EQ(childTitles(*thread), (std::vector<std::string>{"NVTX", "CUDA API", "OS runtime"}));
    EXPECT_EQ(thread->count(), 2u + 1003u + 1u);
    Row* gpu = root->find("GPU 0 (Test GPU)");
    ASSERT_NE(gpu, nullptr);
    const auto gpuChildren = childTitles(*gpu);
    EXPECT_EQ(gpuChildren.front(), "All kernels");
    EXPECT_NE(std::find(gpuChildren.begin(), gpuChildren.end(), "All memory operations"),
              gpuChildren.end());
    EXPECT_NE(std::find(gpuChildren.begin(), gpuChildren.end(), "GPU utilization"),
              gpuChildren.end());
    Row* stream = root->find("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)");
    ASSERT_NE(stream, nullptr);
    EXPECT_EQ(childTitles(*stream), (std::vector<std::string>{"Kernels", "Memcpy"}));
    EXPECT_EQ(stream->find("Kernels")->count(), 1002u);
    EXPECT_EQ(root->find("GPU 0 (Test GPU)/All kernels")->count(), 1002u);
    // Summary rows do not count twice: the GPU counts its streams and its metric.
    EXPECT_EQ(gpu->count(), 1002u + 1u + 3u);
    // Nested NVTX ranges stack: two lanes.
    auto* nvtx = dynamic_cast<TrackRow*>(thread->find("NVTX"));
    ASSERT_NE(nvtx, nullptr);
    EXPECT_EQ(nvtx->laneCount(), 2u);
    EXPECT_FLOAT_EQ(nvtx->height(), 2 * TrackRow::kLaneHeight + 2 * TrackRow::kPad);
}

TEST(TrackRow, FoldsSubPixelEventsAndLabelsWideOnes) {
    auto r = sl::test::makeViewerReport();
    auto root = buildRowTree(*r);
    auto* kernels = dynamic_cast<TrackRow*>(
        root->find("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Kernels"));
    ASSERT_NE(kernels, nullptr);
    Palette palette(*r);
    RowContext ctx;
    ctx.t0 = kOrigin;
    ctx.t1 = kOrigin + 10 * kMs;
    ctx.width = 1000;
    ctx.nsPerPixel = 10.0 * kMs / 1000;  // 10 us per pixel: the tiny kernels fold
    ctx.palette = &palette;
    DrawList out;
    kernels->build(ctx, out);
    std::vector<std::string> labels;
    for (const auto& l : out.labels) labels.push_back(l.text);
    EXPECT_EQ(labels, (std::vector<std::string>{"kernel_a", "kernel_b", "1,000 events"}));
    // kernel_a: x 100..200, its stable hash color.
    const uint32_t colorA = Palette::hashColor("kernel_a");
    auto a = std::find_if(out.boxes.begin(), out.boxes.end(),
                          [&](const DrawBox& b) { return b.argb == colorA; });
    ASSERT_NE(a, out.boxes.end());
    EXPECT_FLOAT_EQ(a->x, 100);
    EXPECT_FLOAT_EQ(a->w, 100);
    // The fold is drawn per pixel column: 100 columns for 1000 events, each in the tiny
    // kernels' color by busy fraction (opaque, blended over the white background). Every
    // column is 10% busy, so the lane draws them as one box (a run of one color).
    auto drawnAt = [&out](float x, float y) {
        uint32_t argb = 0;
        for (const DrawBox& b : out.boxes)
            if (b.x <= x + 0.5f && x + 0.5f < b.x + b.w && b.y <= y && y < b.y + b.h) argb = b.argb;
        if (const uint32_t c = out.stripColorAt(x + 0.5f, y)) argb = c;  // strips come after boxes
        return argb;
    };
    const float foldY = TrackRow::kPad + 1;
    for (int i = 0; i < 100; ++i) {
        const uint32_t c = drawnAt(500.0f + static_cast<float>(i), foldY);
        EXPECT_EQ(c >> 24, 0xFFu) << i;
        EXPECT_NE(c, 0xFFFFFFFFu) << i;  // every column is busy
    }
    EXPECT_EQ(drawnAt(499, foldY), 0u);
    EXPECT_EQ(drawnAt(600, foldY), 0u);
    EXPECT_LE(out.boxes.size() + out.strips.size(), 3u);  // the two kernels and the fold

    // Zoomed to 10 us: the tiny kernels are 13 px wide and drawn one by one.
    ctx.t0 = kOrigin + 5 * kMs;
    ctx.t1 = ctx.t0 + 10'000;
    ctx.nsPerPixel = 10'000.0 / 1300;
    out.clear();
    kernels->build(ctx, out);
    // A box each for the 8 inside the row's 1000 px (10 us are 1300 px here; boxes used to be
    // made for the two beyond its right edge too).
    EXPECT_EQ(out.boxes.size(), 8u);
    EXPECT_EQ(out.strips.size(), 0u);
    EXPECT_EQ(out.labels.size(), 0u);  // 13 px is too narrow for text
}

TEST(TrackRow, HitTestFindsTheEventAndItsFields) {
    auto r = sl::test::makeViewerReport();
    auto root = buildRowTree(*r);
    auto* kernels = root->find("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Kernels");
    Palette palette(*r);
    RowContext ctx;
    ctx.t0 = kOrigin;
    ctx.t1 = kOrigin + 10 * kMs;
    ctx.x = 200;
    ctx.width = 1000;
    ctx.nsPerPixel = 10.0 * kMs / 1000;
    ctx.y = 50;
    ctx.height = kernels->height();
    ctx.palette = &palette;
    auto hit = kernels->hitTest(ctx, 200 + 150, 55);
    ASSERT_TRUE(hit.has_value());
    ASSERT_TRUE(hit->track);
    EXPECT_EQ(hit->start, kOrigin + kMs);
    EXPECT_EQ(hit->end, kOrigin + 2 * kMs);
    // What the tooltip shows of it: the tooltip form of the details formatter.
    const auto tip = analysis::eventDetails(*r, *hit->track, hit->index, analysis::DetailForm::Tooltip);
    EXPECT_EQ(analysis::detailValue(tip, "Name"), "kernel_a");
    EXPECT_EQ(analysis::detailValue(tip, "Grid"), "4 x 1 x 1");
    EXPECT_EQ(analysis::detailValue(tip, "Block"), "128 x 1 x 1");
    EXPECT_EQ(analysis::detailValue(tip, "Correlation ID"), "1");
    // Empty space far from any event: nothing.
    EXPECT_FALSE(kernels->hitTest(ctx, 200 + 270, 55).has_value());
    // The memcpy row names direction and size.
    auto* memcpy = root->find("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Memcpy");
    auto m = memcpy->hitTest(ctx, 200 + 670, 55);
    ASSERT_TRUE(m.has_value() && m->track);
    EXPECT_EQ(eventLabel(*r, *m->track, m->index), "HtoD 8.00 MiB");
    const auto copy = analysis::eventDetails(*r, *m->track, m->index, analysis::DetailForm::Tooltip);
    EXPECT_EQ(analysis::detailValue(copy, "Copy kind"), "Host-to-Device");
    EXPECT_EQ(analysis::detailValue(copy, "Size"), "8.00 MiB (8388608 B)");
}

TEST(TimelineScene, LayoutCollapsePinAndScroll) {
    auto scene = makeScene(1600, 300);
    Row* thread = scene->root().find("Process 100 (app)/Thread 101 (main)");
    const size_t all = scene->layout().size();
    scene->setExpanded(thread, false);
    EXPECT_EQ(scene->layout().size(), all - 3);
    scene->setExpanded(thread, true);
    Row* kernels = scene->root().find("GPU 0 (Test GPU)/All kernels");
    scene->setPinned(kernels, true);
    const LayoutRow* pinned = findLayout(*scene, kernels);
    ASSERT_NE(pinned, nullptr);
    EXPECT_TRUE(pinned->pinned);
    EXPECT_FLOAT_EQ(pinned->y, TimelineScene::kRulerHeight);
    // Scrolling moves the other rows but not the pinned one.
    const float firstY = scene->layout()[1].y;
    scene->setScroll(40);
    EXPECT_FLOAT_EQ(scene->layout()[1].y, firstY - 40);
    EXPECT_FLOAT_EQ(findLayout(*scene, kernels)->y, TimelineScene::kRulerHeight);
    EXPECT_EQ(scene->rowAt(TimelineScene::kRulerHeight + 2)->row, kernels);
}

TEST(TimelineScene, RowsBuiltInParallelGiveTheSerialFrame) {
    GeneratorOptions o;
    o.events = 200'000;
    std::shared_ptr<Report> r = generateReport(o);
    TimelineScene scene(r, buildRowTree(*r));
    scene.setSize(1600, 900);
    ParallelFor serial(0), parallel(3);
    const int64_t span = r->tMax() - r->tMin();
    // The full view, a middle zoom and a deep one: folds, strips, single events and labels.
    for (int64_t div : {1, 50, 5000}) {
        const TimeRange range{r->tMin() + span / 3, r->tMin() + span / 3 + span / div};
        DrawList a, b;
        scene.build(range, a, serial);
        scene.build(range, b, parallel);
        ASSERT_EQ(a.boxes.size(), b.boxes.size()) << div;
        for (size_t i = 0; i < a.boxes.size(); ++i) {
            const DrawBox &x = a.boxes[i], &y = b.boxes[i];
            ASSERT_TRUE(x.x == y.x && x.y == y.y && x.w == y.w && x.h == y.h && x.argb == y.argb)
                << div << " box " << i;
        }
        ASSERT_EQ(a.strips.size(), b.strips.size()) << div;
        for (size_t i = 0; i < a.strips.size(); ++i) {
            const DrawStrip &x = a.strips[i], &y = b.strips[i];
            ASSERT_TRUE(x.x == y.x && x.y == y.y && x.h == y.h && x.count == y.count &&
                        x.opaque == y.opaque)
                << div << " strip " << i;
            for (uint32_t k = 0; k < x.count; ++k)
                ASSERT_EQ(a.stripPixels[x.first + k], b.stripPixels[y.first + k]) << div;
        }
        ASSERT_EQ(a.labels.size(), b.labels.size()) << div;
        for (size_t i = 0; i < a.labels.size(); ++i) {
            EXPECT_EQ(a.labels[i].text, b.labels[i].text);
            EXPECT_EQ(a.labels[i].x, b.labels[i].x);
            EXPECT_EQ(a.labels[i].y, b.labels[i].y);
        }
        if (div == 1) {
            EXPECT_GT(a.strips.size(), 10u);
        }
        if (div == 5000) {
            EXPECT_GT(a.labels.size(), 50u);
        }
    }
}

TEST(TimelineScene, ScrolledRowsAreClippedUnderThePinnedOnes) {
    auto scene = makeScene(1600, 150);
    scene->setPinned(scene->root().find("GPU 0 (Test GPU)/All kernels"), true);
    Row* kernels = scene->root().find("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Kernels");
    float pinnedBottom = TimelineScene::kRulerHeight;
    for (const LayoutRow& lr : scene->layout())
        if (lr.pinned) pinnedBottom = std::max(pinnedBottom, lr.y + lr.h);
    scene->setSize(1600, pinnedBottom + 30);  // short, so that any row can scroll to the top
    // Scroll the stream's kernel lane (with its fold of 1,000 tiny kernels) 5 px under the
    // pinned row.
    const float laneY = findLayout(*scene, kernels)->y + TrackRow::kPad;
    scene->setScroll(scene->scroll() + laneY - (pinnedBottom - 5));
    ASSERT_FLOAT_EQ(findLayout(*scene, kernels)->y + TrackRow::kPad, pinnedBottom - 5);
    DrawList out;
    scene->build({kOrigin, kOrigin + 10 * kMs}, out);
    // Nothing in the event area crosses the pinned area's bottom edge: scrolled items are cut
    // there (the header's separator line runs the full height, left of it).
    bool clippedFold = false;  // a box or a strip of the kernel lane, cut to its lower 11 px
    for (const DrawBox& b : out.boxes)
        if (b.x >= scene->eventX()) {
            EXPECT_FALSE(b.y < pinnedBottom && b.y + b.h > pinnedBottom) << b.x << "," << b.y;
            clippedFold = clippedFold || (b.y == pinnedBottom && b.h == TrackRow::kLaneHeight - 6);
        }
    for (const DrawStrip& st : out.strips) {
        EXPECT_FALSE(st.y < pinnedBottom && st.y + st.h > pinnedBottom) << st.x << "," << st.y;
        clippedFold = clippedFold || (st.y == pinnedBottom && st.h == TrackRow::kLaneHeight - 6);
    }
    EXPECT_TRUE(clippedFold);
    // The find bar's covers (every kernel dimmed: an empty match mask) are cut there too.
    DrawList covers;
    dimNonMatching(*scene, {kOrigin, kOrigin + 10 * kMs}, {}, false, covers);
    bool clippedCover = false;
    for (const DrawBox& b : covers.boxes) {
        EXPECT_FALSE(b.y < pinnedBottom && b.y + b.h > pinnedBottom) << b.x << "," << b.y;
        clippedCover = clippedCover || (b.y == pinnedBottom && b.h == TrackRow::kLaneHeight - 6);
    }
    EXPECT_TRUE(clippedCover);
}

TEST(TimelineScene, HitTestThroughLayout) {
    auto scene = makeScene();
    Row* kernels = scene->root().find("GPU 0 (Test GPU)/Context 1/Stream 7 (compute)/Kernels");
    const LayoutRow* lr = findLayout(*scene, kernels);
    ASSERT_NE(lr, nullptr);
    const TimeRange range{kOrigin, kOrigin + 10 * kMs};
    const float x = scene->xOf(range, kOrigin + 3 * kMs + kMs / 2);
    auto hit = scene->hitTest(range, x, lr->y + 5);
    ASSERT_TRUE(hit.has_value() && hit->track);
    EXPECT_EQ(scene->report().str(hit->track->name[hit->index]), "kernel_b");
    EXPECT_FALSE(scene->hitTest(range, 10, lr->y + 5).has_value());  // the header column
}

TEST(TimelineScene, FrameCostIsBoundedByPixelsNotEvents) {
    // A full view of 400 thousand generated events: at most one box per pixel column per
    // visible lane (plus a fixed number per row for backgrounds, grid and headers), and a
    // label only where there is room for one.
    GeneratorOptions o;
    o.events = 400'000;
    std::shared_ptr<Report> r = generateReport(o);
    TimelineScene scene(r, buildRowTree(*r));
    scene.setSize(1600, 900);
    DrawList out;
    scene.build({r->tMin(), r->tMax()}, out);
    size_t lanes = 0, rows = 0;
    for (const LayoutRow& lr : scene.layout()) {
        if (lr.y >= 900 || lr.y + lr.h <= 0) continue;
        ++rows;
        if (auto* t = dynamic_cast<const TrackRow*>(lr.row))
            lanes += t->laneCount() * t->tracks().size();
        else if (!lr.row->isGroup())
            lanes += 1;  // a graph: one column per pixel
    }
    EXPECT_GT(lanes, 10u);
    EXPECT_LE(out.boxes.size() + out.stripPixels.size(), lanes * 1320 + rows * 20 + 200);
    EXPECT_LE(out.strips.size(), lanes * 1320);
    EXPECT_LE(out.labels.size(), rows * 40 + 40);
}

TEST(CommandLine, SizeAndRange) {
    EXPECT_EQ(parseSize("1600x900"), QSize(1600, 900));
    EXPECT_FALSE(parseSize("1600").has_value());
    EXPECT_FALSE(parseSize("10x10").has_value());
    EXPECT_EQ(parseTime("1.5s"), 1'500'000'000);
    EXPECT_EQ(parseTime("250us"), 250'000);
    EXPECT_EQ(parseTime("2"), 2'000'000'000);
    EXPECT_EQ(parseTime("100 ns"), 100);
    EXPECT_FALSE(parseTime("abc").has_value());
    auto r = parseTimeRange("100ms:250ms");
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->first, 100'000'000);
    EXPECT_EQ(r->second, 250'000'000);
    EXPECT_FALSE(parseTimeRange("2s:1s").has_value());
    EXPECT_FALSE(parseTimeRange("1s").has_value());
}

#ifdef SIGHTLINE_VIEWER_HAVE_IMPORT
#include "model/analysis/NvtxGpuProjection.h"
#include "model/import/OpenAny.h"

namespace {

struct TreeTotals {
    std::map<std::string, uint64_t> byTitle;  // summed counts of leaf rows by their title
    int streamsWithKernels = 0;
    int projectedRows = 0;
    std::vector<std::string> gpuTitles;
};

void walk(const Row& r, TreeTotals& t) {
    for (const auto& c : r.children()) {
        if (!c->isGroup()) t.byTitle[c->title()] += c->count();
        if (c->title().rfind("NVTX (projected)", 0) == 0) t.projectedRows += 1;
        if (c->title().rfind("Stream ", 0) == 0 && c->find("Kernels")) ++t.streamsWithKernels;
        if (c->depth() == 0 && c->title().rfind("GPU ", 0) == 0) t.gpuTitles.push_back(c->title());
        walk(*c, t);
    }
}

}  // namespace

TEST(RowTree, ImportedNsysExport) {
    // extrap_concurrent_s1.sqlite (nsys 2022.1.1, GTX 1060): 12 kernels on 10 streams, 30 memcpy,
    // 17 memset, 184 CUDA runtime rows, 76 nested NVTX push/pop ranges.
    auto r =
        openAnyReport(std::string(SIGHTLINE_VIEWER_TEST_DATA) + "/extrap_concurrent_s1.sqlite", {});
    ASSERT_TRUE(r.ok()) << r.error();
    ProjectedNvtx projected(**r);
    auto root = buildRowTree(**r, &projected);
    TreeTotals t;
    walk(*root, t);
    EXPECT_EQ(t.byTitle["Kernels"], 12u);
    EXPECT_EQ(t.byTitle["All kernels"], 12u);
    EXPECT_EQ(t.streamsWithKernels, 10);
    EXPECT_EQ(t.byTitle["Memcpy"], 30u);
    EXPECT_EQ(t.byTitle["Memset"], 17u);
    EXPECT_EQ(t.byTitle["All memory operations"], 47u);
    EXPECT_EQ(t.byTitle["CUDA API"], (*r)->eventCount(EventKind::CudaApi));
    EXPECT_EQ(t.byTitle["NVTX (de.tu-darmstadt.parallel.extra_prof)"], 76u);  // a named domain
    EXPECT_EQ(t.byTitle["NVTX"], 0u);
    EXPECT_EQ(t.byTitle["Sync"], 16u);
    EXPECT_EQ(t.byTitle["CUDA memory usage (pid 5360)"], 60u);
    // NVTX projected onto the (only) GPU: every range the projection keeps (those that
    // launched GPU work), none lost to the device assignment.
    const analysis::CorrelationIndex corr(**r);
    const analysis::NvtxRangeTree tree(**r);
    const analysis::NvtxGpuProjection proj(**r, corr, tree);
    EXPECT_EQ(proj.ranges().size(), 67u);
    EXPECT_EQ(t.byTitle["NVTX (projected)"], proj.ranges().size());
    EXPECT_EQ(t.projectedRows, 1);  // one thread launched the work
    ASSERT_EQ(t.gpuTitles.size(), 1u);
    EXPECT_NE(t.gpuTitles[0].find("1060"), std::string::npos) << t.gpuTitles[0];
    // Every event of the report is in exactly one non-summary row.
    uint64_t topLevel = 0;
    for (const auto& c : root->children()) topLevel += c->count();
    EXPECT_EQ(topLevel, (*r)->eventCount());
}
#endif

#ifdef SIGHTLINE_VIEWER_HAVE_IMPORT
TEST(RowTree, ProjectedNvtxOneRowPerThreadOfTheGpu) {
    // Generated: threads 0 and 2 launch on GPU 0, 1 and 3 on GPU 1. Every default-domain range
    // (train_step, forward, backward, layers) encloses launches; load_batch (domain "data")
    // ends before its copy is issued, so it is not projected.
    GeneratorOptions o;
    o.events = 20'000;
    std::shared_ptr<Report> r = generateReport(o);
    ProjectedNvtx projected(*r);
    auto root = buildRowTree(*r, &projected);
    Row* gpu0 = root->find("GPU 0 (Synthetic GPU (H100-like))");
    ASSERT_NE(gpu0, nullptr);
    std::vector<std::string> titles = childTitles(*gpu0);
    ASSERT_GE(titles.size(), 4u);
    EXPECT_EQ(titles[2], "NVTX (projected): Thread 4243 (python3)");
    EXPECT_EQ(titles[3], "NVTX (projected): Thread 4245 (worker-2)");
    for (const char* t : {"4243 (python3)", "4245 (worker-2)"}) {
        Row* row = gpu0->find(std::string("NVTX (projected): Thread ") + t);
        Row* nvtx = root->find(std::string("Process 4242 (python3)/Thread ") + t + "/NVTX");
        ASSERT_NE(row, nullptr);
        ASSERT_NE(nvtx, nullptr);
        EXPECT_EQ(row->count(), nvtx->count()) << t;
        // Nested like the thread's ranges: train_step > forward/backward > layer.
        EXPECT_EQ(dynamic_cast<TrackRow*>(row)->laneCount(), 3u);
    }
}
#endif

TEST(TimelineScene, AnInstantAtTheReportsEndIsInTheFullView) {
    ReportBuilder b;
    b.ensureThread(1, 1);
    b.add(NvtxRangeEvent{1, 1, 0, 1000, 2000, b.intern("range")});
    b.add(NvtxMarkEvent{1, 1, 0, 5000, b.intern("last mark")});
    std::shared_ptr<Report> r = b.finish();
    EXPECT_EQ(viewEnd(*r), 5001);  // views are half-open: 1 ns past the last instant
    auto scene = std::make_unique<TimelineScene>(r, buildRowTree(*r));
    scene->setSize(1600, 400);
    DrawList list;
    scene->build({r->tMin(), viewEnd(*r)}, list);
    const uint32_t mark = Palette::hashColor("last mark") & 0xFFFFFFu;
    // A one-pixel mark: a column of its lane's strip.
    EXPECT_TRUE(std::any_of(list.boxes.begin(), list.boxes.end(),
                            [&](const DrawBox& box) { return (box.argb & 0xFFFFFFu) == mark; }) ||
                std::any_of(list.stripPixels.begin(), list.stripPixels.end(),
                            [&](uint32_t argb) { return (argb & 0xFFFFFFu) == mark; }));
    // A report that ends with a range keeps its exact end.
    ReportBuilder b2;
    b2.ensureThread(1, 1);
    b2.add(NvtxRangeEvent{1, 1, 0, 1000, 2000, b2.intern("range")});
    EXPECT_EQ(viewEnd(*b2.finish()), 2000);
}

// A tree of many processes (a parallel build) starts with all but the first collapsed, and a
// collapsed group draws its threads' CPU activity in its own line (GroupSummary.h): colored
// where a thread ran, empty where none did; an expanded group draws nothing of its own.
TEST(RowTree, ManyProcessesStartCollapsedWithTheirCpuActivity) {
    auto reportOf = [](int processes) {
        ReportBuilder b;
        for (int i = 0; i < processes; ++i) {
            const int64_t pid = 100 + i;
            b.ensureProcess(pid).name = "cc1";
            b.ensureThread(pid, pid);
            // Each process's thread runs 1 ms, one process after the other.
            b.add(ThreadRunning{pid, pid, kOrigin + i * kMs, kOrigin + (i + 1) * kMs, 0});
            b.add(NvtxRangeEvent{pid, pid, 0, kOrigin + i * kMs, kOrigin + i * kMs + 10,
                                 b.intern("work")});
        }
        return b.finish();
    };
    auto few = buildRowTree(*reportOf(16));
    for (const auto& c : few->children()) EXPECT_TRUE(c->expanded()) << c->title();

    std::shared_ptr<Report> r = reportOf(20);
    auto root = buildRowTree(*r);
    ASSERT_EQ(root->children().size(), 20u);
    EXPECT_TRUE(root->children()[0]->expanded());
    for (size_t i = 1; i < 20; ++i) EXPECT_FALSE(root->children()[i]->expanded()) << i;

    // Process 105 ran in [5, 6) ms: at 10 us per pixel, columns 500-599.
    const Row& collapsed = *root->children()[5];
    ASSERT_EQ(collapsed.title(), "Process 105 (cc1)");
    Palette palette(*r);
    RowContext ctx;
    ctx.t0 = kOrigin;
    ctx.t1 = kOrigin + 20 * kMs;
    ctx.nsPerPixel = 10'000;
    ctx.width = 2000;
    ctx.y = 0;
    ctx.height = collapsed.height();
    ctx.palette = &palette;
    DrawList out;
    collapsed.build(ctx, out);
    out.endStrip();
    const float y = Row::kGroupHeight / 2;
    EXPECT_NE(out.stripColorAt(550, y), 0u);
    EXPECT_NE(out.stripColorAt(500, y), 0u);
    EXPECT_NE(out.stripColorAt(599, y), 0u);
    EXPECT_EQ(out.stripColorAt(499, y), 0u);
    EXPECT_EQ(out.stripColorAt(600, y), 0u);
    // Fully busy columns are drawn stronger than a column the thread ran a tenth of.
    DrawList partial;
    RowContext wide = ctx;
    wide.nsPerPixel = 10 * kMs;  // a column of 10 ms: process 105 ran 1 of them
    wide.width = 2;
    collapsed.build(wide, partial);
    partial.endStrip();
    const uint32_t weak = partial.stripColorAt(0, y), strong = out.stripColorAt(550, y);
    ASSERT_NE(weak, 0u);
    EXPECT_NE(weak, strong);

    // Its tooltip: the group and how busy it is under the mouse; nothing where it is idle.
    const auto hit = collapsed.hitTest(ctx, 550.5f, y);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->name, "Process 105 (cc1)");
    ASSERT_FALSE(hit->fields.empty());
    EXPECT_EQ(hit->fields[0].first, "CPU busy");
    EXPECT_EQ(hit->fields[0].second, "100% of this pixel's time");
    EXPECT_FALSE(collapsed.hitTest(ctx, 450.5f, y));

    DrawList expanded;
    EXPECT_FALSE(root->children()[0]->hitTest(ctx, 0.5f, y));
    root->children()[0]->build(ctx, expanded);
    EXPECT_TRUE(expanded.strips.empty());
    EXPECT_TRUE(expanded.boxes.empty());
}

// Issue #21 item 7: readable labels.
TEST(TimeRuler, LabelsStayShortAtEveryZoom) {
    auto digits = [](const std::string& s) {
        int n = 0;
        bool leading = true;
        for (char c : s) {
            if (c == ' ') break;
            if (c < '0' || c > '9') continue;
            if (leading && c == '0') continue;
            leading = false;
            ++n;
        }
        return n;
    };
    constexpr int64_t kS = 1'000'000'000;
    // Deep zoom: 2 us visible, 73.4 s after the origin (the user's "73414706 us").
    const int64_t t0 = kOrigin + 73 * kS + 414'706'123;
    RulerTicks deep = rulerTicks(t0, t0 + 2'000, kOrigin, 1320);
    ASSERT_TRUE(deep.offsets());
    EXPECT_EQ(deep.baseLabel, "73.4147060 s");  // the 200 ns tick at or before t0
    EXPECT_LE(deep.base, t0);
    int majors = 0;
    for (const RulerTick& t : deep.ticks) {
        if (!t.major) continue;
        ++majors;
        EXPECT_LE(digits(t.label), kMaxTickDigits) << t.label;
        EXPECT_EQ(t.label.front(), '+') << t.label;
        EXPECT_EQ(t.label.find(" us") != std::string::npos || t.label.find(" ns") != std::string::npos,
                  true)
            << t.label;
    }
    EXPECT_GE(majors, 5);
    // The offsets add up: base + offset = the tick's time.
    const RulerTick* second = nullptr;
    for (const RulerTick& t : deep.ticks)
        if (t.major && t.time > deep.base) {
            second = &t;
            break;
        }
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(second->label, formatTickLabel(second->time - deep.base, deep.step).insert(0, "+"));
    // Every zoom from 10 ns to 80 s, anywhere in an 80 s report: at most 4 digits a label.
    for (int64_t span = 10; span <= 80 * kS; span *= 7)
        for (int64_t at : {int64_t{0}, 5 * kMs, 73 * kS + 414'706'123}) {
            RulerTicks r = rulerTicks(kOrigin + at, kOrigin + at + span, kOrigin, 1320);
            for (const RulerTick& t : r.ticks)
                if (t.major) EXPECT_LE(digits(t.label), kMaxTickDigits) << t.label << " span " << span;
        }
    // Wide zoom near the origin: plain labels from 0, no base.
    RulerTicks wide = rulerTicks(kOrigin, kOrigin + 80 * kS, kOrigin, 1320);
    EXPECT_FALSE(wide.offsets());
    EXPECT_EQ(wide.ticks.front().label, "0 s");
    EXPECT_EQ(wide.ticks.back().label, "80 s");
}

TEST(TimeText, AColumnKeepsOneUnit) {
    EXPECT_EQ(columnTimeUnit(850), TimeUnit::Ns);
    EXPECT_EQ(columnTimeUnit(2'500'000), TimeUnit::Us);
    EXPECT_EQ(columnTimeUnit(2'000'000'000), TimeUnit::Ms);
    EXPECT_EQ(columnTimeUnit(73'000'000'000), TimeUnit::S);
    EXPECT_EQ(durationText(850, TimeUnit::Ms), "0.000850 ms");
    EXPECT_EQ(durationText(1'500'000'000, TimeUnit::Ms), "1500.000000 ms");
    EXPECT_EQ(durationText(73'414'706'200, TimeUnit::S), "73.414706200 s");
}

TEST(EventsModel, TimeColumnsUseOneUnitAndDurationsSortLargestFirst) {
    // Kernels of 100 ns to 1 ms between 1 and 7 ms: durationText alone gives "100 ns", "1.000 ms".
    std::shared_ptr<const Report> r = sl::test::makeViewerReport();
    EventsModel m(r);
    m.setTracks(analysis::EventQuery::tracksOfKind(*r, EventKind::Kernel));
    ASSERT_GT(m.rowCount(), 1000);
    for (auto c : {analysis::EventColumn::Start, analysis::EventColumn::Duration,
                   analysis::EventColumn::End}) {
        std::set<std::string> units;
        for (int row = 0; row < m.rowCount(); ++row) {
            const std::string text =
                m.data(m.index(row, static_cast<int>(c))).toString().toStdString();
            units.insert(text.substr(text.rfind(' ') + 1));
        }
        EXPECT_EQ(units.size(), 1u) << analysis::eventColumnTitle(c);
    }
    EXPECT_EQ(m.headerData(static_cast<int>(analysis::EventColumn::Duration), Qt::Horizontal,
                           Qt::InitialSortOrderRole),
              QVariant(Qt::DescendingOrder));
    EXPECT_EQ(m.headerData(static_cast<int>(analysis::EventColumn::Start), Qt::Horizontal,
                           Qt::InitialSortOrderRole),
              QVariant(Qt::AscendingOrder));
}

#ifdef SIGHTLINE_VIEWER_HAVE_IMPORT
namespace {
std::vector<std::string> allTitles(const Row& r) {
    std::vector<std::string> out;
    for (const auto& c : r.children()) {
        out.push_back(c->title());
        for (auto& t : allTitles(*c)) out.push_back(std::move(t));
    }
    return out;
}
}  // namespace

TEST(RowTree, SyncRowsAndTheDefaultStreamAreNamedForWhatTheyAre) {
    auto r = openAnyReport(std::string(SIGHTLINE_VIEWER_TEST_DATA) +
                               "/../gpu/cuda_workload_h200.rep",
                           {});
    ASSERT_TRUE(r.ok()) << r.error();
    auto root = buildRowTree(**r);
    const std::vector<std::string> titles = allTitles(*root);
    std::string joined;
    for (const auto& t : titles) joined += t + "\n";
    EXPECT_EQ(joined.find("4294967295"), std::string::npos) << joined;
    Row* sync = root->find("GPU 0 (NVIDIA H200)/Context 1/Synchronization");
    ASSERT_NE(sync, nullptr) << joined;
    ASSERT_EQ(sync->children().size(), 1u);
    EXPECT_EQ(sync->children()[0]->title(), "Sync");
    EXPECT_GT(sync->children()[0]->count(), 0u);
    EXPECT_NE(root->find("GPU 0 (NVIDIA H200)/Context 1/Default stream 7"), nullptr) << joined;
}

TEST(ReportSummary, ImportedKinetoTraceHasNoEmptyParentheses) {
    auto r = openAnyReport(std::string(SIGHTLINE_VIEWER_TEST_DATA) +
                               "/../import/kineto_resnet50_legacy_2021.json.gz",
                           {});
    ASSERT_TRUE(r.ok()) << r.error();
    const std::string html = reportSummaryHtml(**r, "x").toStdString();
    EXPECT_EQ(html.find("(, )"), std::string::npos) << html;
    EXPECT_EQ(html.find("()"), std::string::npos) << html;
    for (const std::string& t : allTitles(*buildRowTree(**r))) {
        EXPECT_EQ(t.find("(, )"), std::string::npos) << t;
        EXPECT_EQ(t.find("()"), std::string::npos) << t;
    }
}
#endif
