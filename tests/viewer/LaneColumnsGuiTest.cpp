// Lanes drawn as pixel columns (TrackRow::setLaneColumns, the default) must look exactly like
// the same lanes drawn one box per event and a strip per fold, at every zoom, while costing the
// rasterizer far fewer instances; and what the frame hook adds after the scene (find's opaque
// "hide" covers) must still cover the lanes' columns. Rendered with real GL (llvmpipe under
// Xvfb) through TimelineWidget::renderImage.
#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "model/gen/SyntheticGenerator.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/timeline/TrackRow.h"

using namespace sl;
using namespace sl::viewer;

namespace {

class LaneColumns : public ::testing::Test {
protected:
    void SetUp() override {
        GeneratorOptions o;
        o.events = 300'000;
        report = generateReport(o);
        w = std::make_unique<TimelineWidget>();
        w->setScene(std::make_unique<TimelineScene>(report, buildRowTree(*report)));
        w->resize(1600, 900);
    }
    void TearDown() override { TrackRow::setLaneColumns(true); }

    // The frame of `range` with lanes drawn as columns or as boxes; `instances` gets the
    // boxes + strips of its draw list.
    QImage render(const TimeRange& range, bool columns, size_t* instances = nullptr) {
        TrackRow::setLaneColumns(columns);
        w->view().setRange(range.start, range.end, false);
        w->refreshFrame();
        QImage img = w->renderImage();
        if (instances) *instances = w->frame().boxes.size() + w->frame().strips.size();
        return img;
    }
    // Pixels that differ between two images of the same size, except those where an edge of
    // one of `boxes` lies within 1/100 px of the pixel's centre: the GL rasterizer snaps
    // vertices to 1/256 px after its own float arithmetic, so such a pixel can go either way
    // (the columns decide it by exact arithmetic); and the last column, where an item that
    // starts past its centre was a box drawn off-screen and is now that column. `edges`
    // counts those.
    static int differences(const QImage& a, const QImage& b, const std::vector<DrawBox>& boxes,
                           int* edges, std::string* first) {
        int n = 0;
        for (int y = 0; y < a.height(); ++y)
            for (int x = 0; x < a.width(); ++x) {
                if (a.pixel(x, y) == b.pixel(x, y)) continue;
                const float cx = static_cast<float>(x) + 0.5f, cy = static_cast<float>(y) + 0.5f;
                const float right = static_cast<float>(a.width());
                const bool onEdge = std::any_of(boxes.begin(), boxes.end(), [&](const DrawBox& d) {
                    return d.y <= cy && cy < d.y + d.h &&
                           (std::fabs(d.x - cx) < 0.01f || std::fabs(d.x + d.w - cx) < 0.01f ||
                            (x == a.width() - 1 && d.x >= cx && d.x < right));  // drawn off-screen
                });
                if (onEdge) {
                    ++*edges;
                } else if (n++ == 0 && first) {
                    *first = std::to_string(x) + "," + std::to_string(y);
                }
            }
        return n;
    }

    std::shared_ptr<Report> report;
    std::unique_ptr<TimelineWidget> w;
};

TEST_F(LaneColumns, LookTheSameAsBoxesAtEveryZoom) {
    const TimeRange all = w->view().bounds();
    ASSERT_FALSE(w->renderImage().isNull());
    size_t denseBoxes = 0, denseColumns = 0;
    // From the whole report down to single events a few pixels wide, around two anchors.
    for (const double anchor : {0.37, 0.61}) {
        const int64_t at =
            all.start + static_cast<int64_t>(anchor * static_cast<double>(all.span()));
        for (int64_t span = all.span(); span > 20'000; span /= 7) {
            const TimeRange r{std::max(all.start, at - span / 2),
                              std::max(all.start, at - span / 2) + span};
            size_t boxes = 0, columns = 0;
            const QImage a = render(r, false, &boxes);
            const std::vector<DrawBox> itemBoxes = w->frame().boxes;
            const QImage b = render(r, true, &columns);
            ASSERT_EQ(a.size(), b.size());
            std::string first;
            int edges = 0;
            EXPECT_EQ(differences(a, b, itemBoxes, &edges, &first), 0)
                << "span " << span << " at " << anchor << ", first at " << first;
            // Edge pixels decided the other way: about a column per 100 boxes at most.
            EXPECT_LE(edges, static_cast<int>(TrackRow::kLaneHeight * (1 + boxes / 100))) << span;
            std::printf("span %lld: %zu instances as boxes, %zu as columns; %d edge pixels\n",
                        static_cast<long long>(span), boxes, columns, edges);
            EXPECT_LE(columns, boxes) << span;
            if (boxes > denseBoxes) {
                denseBoxes = boxes;
                denseColumns = columns;
            }
        }
    }
    // The densest frame: events a few pixels wide were each an instance.
    EXPECT_LT(denseColumns * 2, denseBoxes) << denseColumns << " vs " << denseBoxes;
    // To look at: SIGHTLINE_SHOT_DIR=dir writes both ways at three zooms.
    if (const char* dir = std::getenv("SIGHTLINE_SHOT_DIR"))
        for (const int64_t part : {1, 40, 2000}) {
            const TimeRange r{all.start + all.span() / 3,
                              all.start + all.span() / 3 + all.span() / part};
            render(r, false).save(QString("%1/lanes-1-%2-boxes.png").arg(dir).arg(part));
            render(r, true).save(QString("%1/lanes-1-%2-columns.png").arg(dir).arg(part));
        }
}

// Find's "hide" mode paints opaque background boxes over the events it hides, through the
// frame hook, after the scene: they must cover lanes drawn as columns too (the renderer draws
// a layer's strips after its opaque boxes).
TEST_F(LaneColumns, OpaqueBoxesAddedAfterTheSceneCoverTheColumns) {
    const TimeRange all = w->view().bounds();
    const TimeRange r{all.start + all.span() / 3, all.start + all.span() / 3 + all.span() / 40};
    render(r, true);
    // An opaque strip of lane columns at least 20 columns long, on screen.
    const DrawList& frame = w->frame();
    auto strip = std::find_if(frame.strips.begin(), frame.strips.end(), [](const DrawStrip& s) {
        return s.opaque && s.count >= 20 && s.y > TimelineScene::kRulerHeight && s.y + s.h < 900;
    });
    ASSERT_NE(strip, frame.strips.end()) << "no strip in the view";
    const DrawStrip s = *strip;
    constexpr uint32_t kCover = 0xFF123456;
    // Its top pixel row: labels are centred in the lane, and drawn over everything.
    w->setFrameHook([&](const TimeRange&, DrawList& out) {
        out.boxes.push_back({s.x, s.y, static_cast<float>(s.count), 1, kCover});
    });
    const QImage covered = render(r, true);
    w->setFrameHook({});
    for (uint32_t i = 0; i < s.count; ++i)
        ASSERT_EQ(
            covered.pixel(static_cast<int>(s.x) + static_cast<int>(i), static_cast<int>(s.y)) &
                0xFFFFFFu,
            kCover & 0xFFFFFFu)
            << i;
}

}  // namespace
