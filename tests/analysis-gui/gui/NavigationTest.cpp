// Navigation brings its target into view (issue #21 item 4), with real widgets under Xvfb:
// an events-view double-click shows the event's time and row; a click on a kernel scrolls so
// that its launching API call's row shows too (or, too far apart, keeps the kernel at the edge
// nearest the call); Backspace, Shift+Z and Ctrl+M work while the events table has focus; Left
// and Right step through the selected event's row with the view following.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "model/core/ReportBuilder.h"
#include "model/rep/RepWriter.h"
#include "tests/analysis-gui/AnalysisFixture.h"
#include "tests/analysis-gui/gui/TimelineHarness.h"
#include "viewer/analysis/SelectionModel.h"
#include "viewer/analysis/EventsModel.h"
#include "viewer/analysis/EventsView.h"
#include "viewer/analysis/TimelineOverlay.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

namespace sl::viewer {
namespace {

using analysis::EventRef;

// Process 1 with `threads` threads that each make a CUDA call (so none folds away); thread
// `launcher` launches the only kernel (GPU 0, [200, 300]) with cudaLaunchKernel [100, 120].
// The GPU rows come after all of process 1's threads: the launch is far above the kernel in
// rows. Process 2's ten threads come after the GPU, so the kernel can scroll to any height.
std::shared_ptr<Report> makeManyThreads(int threads, int launcher) {
    ReportBuilder b;
    b.report().session.durationNs = 1000;
    b.ensureProcess(1).name = "app";
    Gpu g;
    g.deviceId = 0;
    g.name = "Test GPU";
    b.report().gpus = {g};
    const uint32_t launch = b.intern("cudaLaunchKernel"), malloc = b.intern("cudaMalloc"),
                   kernel = b.intern("kernel");
    b.ensureProcess(2).name = "other";
    for (int i = 0; i < threads + 10; ++i) {
        const auto tid = static_cast<uint32_t>(10 + i);
        const uint32_t pid = i < threads ? 1 : 2;
        b.ensureThread(pid, tid).name = "worker";
        CudaApiCall c;
        c.pid = pid;
        c.tid = tid;
        c.start = i == launcher ? 100 : 20;
        c.end = i == launcher ? 120 : 40;
        c.name = i == launcher ? launch : malloc;
        c.correlation = i == launcher ? 1 : 100 + static_cast<uint32_t>(i);
        c.cbid = i == launcher ? 211 : 20;
        b.add(c);
    }
    // Other kernels around it (stream 8, no launch): the events table has rows to scroll.
    for (int i = 0; i < 40; ++i) {
        KernelExec f;
        f.place = {1, 0, 1, 8};
        f.start = i < 20 ? 5 * i : 310 + 5 * i;
        f.end = f.start + 3;
        f.name = b.intern("filler");
        f.launch.shortName = f.name;
        b.add(f);
    }
    KernelExec k;
    k.place = {1, 0, 1, 7};
    k.start = 200;
    k.end = 300;
    k.name = kernel;
    k.correlation = 1;
    k.launch.shortName = kernel;
    k.launch.grid[0] = k.launch.grid[1] = k.launch.grid[2] = 1;
    k.launch.block[0] = k.launch.block[1] = k.launch.block[2] = 1;
    b.add(k);
    return b.finish();
}

EventRef first(const Report& r, EventKind kind, const char* name) {
    for (uint32_t t = 0; t < r.tracks.size(); ++t) {
        const Track& track = r.tracks[t];
        if (track.key.kind != kind) continue;
        for (uint32_t i = 0; i < track.size(); ++i)
            if (r.str(track.name[i]) == name) return {t, i};
    }
    return {};
}

EventPlace placeOf(TimelineHarness& h, EventRef e) {
    return placeEvent(*h.timeline->scene(), h.timeline->view().range(), e);
}

// A real double-click (press, release, press within the interval) through the window system.
void doubleClick(QWidget* w, QPoint pos) {
    QWidget* top = w->window();
    QTest::mouseDClick(top->windowHandle(), Qt::LeftButton, {}, w->mapTo(top, pos));
}

// Scrolls the rows so that the lane of `e` starts at y (in the widget).
void scrollTo(TimelineHarness& h, EventRef e, float y) {
    TimelineScene& scene = *h.timeline->scene();
    scene.setScroll(scene.scroll() + placeOf(h, e).y0 - y);
    h.timeline->refreshFrame();
    h.render();
}

QPoint centerOf(const EventPlace& p) {
    return {static_cast<int>((p.x0 + p.x1) / 2), static_cast<int>((p.y0 + p.y1) / 2)};
}

TEST(Navigation, EventsViewDoubleClickShowsTheEventsTimeAndRow) {
    auto report = makeManyThreads(40, 0);
    TimelineHarness h(report);
    const EventRef kernel = first(*report, EventKind::Kernel, "kernel");
    ASSERT_TRUE(kernel.valid());
    // Zoomed before the kernel and scrolled to the top: it is off screen both ways.
    h.timeline->view().setRange(0, 50, false);
    h.timeline->scene()->setScroll(0);
    h.timeline->refreshFrame();
    h.render();
    ASSERT_EQ(placeOf(h, kernel).side, EventPlace::Side::Right);
    ASSERT_GT(placeOf(h, kernel).y0, h.timeline->height());  // its row is below the view
    EventsView* ev = h.docks()->events();
    ev->showKind(EventKind::Kernel);  // in start order: 20 fillers, then the kernel
    ASSERT_EQ(ev->model()->eventAt(20), kernel);
    QTableView* table = ev->table();
    // The kernel's table row at the bottom of the table's viewport, not in its middle: a
    // selection that re-centred the table would move another row under the second click.
    table->scrollTo(ev->model()->index(20, 3), QAbstractItemView::PositionAtBottom);
    const QRect cell = table->visualRect(ev->model()->index(20, 3));
    ASSERT_TRUE(table->viewport()->rect().contains(cell.center()));
    doubleClick(table->viewport(), cell.center());
    EXPECT_EQ(h.docks()->selection()->selectedEvent(), kernel);
    h.render();
    EXPECT_EQ(placeOf(h, kernel).side, EventPlace::Side::OnScreen);
    // Selected already, its row scrolled away since: a double-click brings it back.
    h.timeline->scene()->setScroll(0);
    h.timeline->refreshFrame();
    h.render();
    ASSERT_EQ(placeOf(h, kernel).side, EventPlace::Side::Below);
    doubleClick(table->viewport(), cell.center());
    h.render();
    EXPECT_EQ(placeOf(h, kernel).side, EventPlace::Side::OnScreen);
}

TEST(Navigation, ClickOnKernelShowsItsLaunchRowAndTheFlowLine) {
    // The launcher is thread 37 of 40: a few rows above the GPU, within one screen.
    auto report = makeManyThreads(40, 37);
    TimelineHarness h(report);
    h.timeline->view().setRange(0, 1000, false);
    const EventRef kernel = first(*report, EventKind::Kernel, "kernel"),
                   api = first(*report, EventKind::CudaApi, "cudaLaunchKernel");
    // The kernel near the top of the rows: its launch is above the view, only an arrow.
    scrollTo(h, kernel, TimelineScene::kRulerHeight + 30);
    ASSERT_EQ(placeOf(h, api).side, EventPlace::Side::Above);
    const float distance = placeOf(h, kernel).y0 - placeOf(h, api).y0;
    ASSERT_LT(distance, h.timeline->height() - TimelineScene::kRulerHeight - 40);
    QTest::mouseClick(h.timeline, Qt::LeftButton, {}, centerOf(placeOf(h, kernel)));
    ASSERT_EQ(h.docks()->selection()->selectedEvent(), kernel);
    h.render();
    EXPECT_EQ(placeOf(h, kernel).side, EventPlace::Side::OnScreen);
    EXPECT_EQ(placeOf(h, api).side, EventPlace::Side::OnScreen);
    // Both ends on screen: the flow line from the call to the kernel, and no edge arrow.
    EXPECT_TRUE(h.analysis->arrows().empty());
    DrawList overlay;
    drawCorrelation(*h.timeline->scene(), h.timeline->view().range(), kernel,
                    h.docks()->selection()->correlated(kernel), overlay);
    ASSERT_EQ(overlay.lines.size(), 1u);
    EXPECT_FLOAT_EQ(overlay.lines[0].x0, placeOf(h, api).x0);
    EXPECT_FLOAT_EQ(overlay.lines[0].x1, placeOf(h, kernel).x0);
}

TEST(Navigation, KernelTooFarFromItsLaunchStaysAtTheEdgeNearestIt) {
    // The launcher is the first of 40 threads: the call and the kernel cannot share a screen.
    auto report = makeManyThreads(40, 0);
    TimelineHarness h(report);
    h.timeline->view().setRange(0, 1000, false);
    const EventRef kernel = first(*report, EventKind::Kernel, "kernel"),
                   api = first(*report, EventKind::CudaApi, "cudaLaunchKernel");
    scrollTo(h, kernel, h.timeline->height() / 2.0f);
    ASSERT_GT(placeOf(h, kernel).y0, h.timeline->height() / 2.0f - 1);
    ASSERT_GT(placeOf(h, kernel).y0 - placeOf(h, api).y0, h.timeline->height());
    QTest::mouseClick(h.timeline, Qt::LeftButton, {}, centerOf(placeOf(h, kernel)));
    ASSERT_EQ(h.docks()->selection()->selectedEvent(), kernel);
    h.render();
    // The rule: the kernel stays on screen, moved to the top (its call is above), and the
    // call's arrow at the top edge points on.
    const EventPlace k = placeOf(h, kernel);
    EXPECT_EQ(k.side, EventPlace::Side::OnScreen);
    EXPECT_LT(k.y0, TimelineScene::kRulerHeight + 20);
    EXPECT_EQ(placeOf(h, api).side, EventPlace::Side::Above);
    ASSERT_EQ(h.analysis->arrows().size(), 1u);
    EXPECT_EQ(h.analysis->arrows()[0].target, api);
}

TEST(Navigation, ArrowKeysStepThroughTheSelectedRowAndTheViewFollows) {
    auto report = test::makeBigKernelTrack(1000, 5);  // kernels at 10 * i on track 0
    TimelineHarness h(report);
    h.timeline->view().setRange(4900, 5600, false);
    h.render();
    h.docks()->selectEvent(0, 500);
    h.timeline->setFocus();
    const Track& t = report->tracks[0];
    for (uint32_t i = 501; i <= 560; ++i) {
        QTest::keyClick(h.timeline, Qt::Key_Right);
        ASSERT_EQ(h.docks()->selection()->selectedEvent(), (EventRef{0, i}));
        const TimeRange r = h.timeline->view().range();
        EXPECT_LE(r.start, t.start[i]) << i;
        EXPECT_GE(r.end, t.endAt(i)) << i;
    }
    EXPECT_GT(h.timeline->view().range().start, 4900);  // the view moved along
    QTest::keyClick(h.timeline, Qt::Key_Left);
    EXPECT_EQ(h.docks()->selection()->selectedEvent(), (EventRef{0, 559}));
    // At the row's first event Left stays there.
    h.docks()->selectEvent(0, 0);
    QTest::keyClick(h.timeline, Qt::Key_Left);
    EXPECT_EQ(h.docks()->selection()->selectedEvent(), (EventRef{0, 0}));
    // Without a selected event the keys are the timeline's (nothing is selected by them).
    h.docks()->selection()->clearSelectedEvent();
    QTest::keyClick(h.timeline, Qt::Key_Right);
    EXPECT_FALSE(h.docks()->selection()->selectedEvent().valid());
}

TEST(Navigation, BackspaceShiftZAndMarkersWorkWhileTheEventsTableHasFocus) {
    QTemporaryDir dir;
    const QString path = dir.filePath("nav.rep");
    ASSERT_TRUE(writeReport(*test::makeAnalysisReport(), path.toStdString()).ok());
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    ReportTab* tab = w.openReport(path);
    ASSERT_TRUE(QTest::qWaitFor([&] { return tab->state() != ReportTab::State::Loading; }, 20000));
    ASSERT_NE(tab->analysis(), nullptr);
    w.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
    ViewState& view = tab->timeline()->view();
    const TimeRange all = view.range();
    view.setRange(200, 400, true);
    QTableView* table = tab->analysis()->docks()->events()->table();
    table->setFocus();
    ASSERT_TRUE(QTest::qWaitFor([&] { return table->hasFocus(); }, 2000));
    QTest::keyClick(table, Qt::Key_Backspace);
    EXPECT_EQ(view.range(), all);
    view.setSelection(300, 500);
    QTest::keyClick(table, Qt::Key_Z, Qt::ShiftModifier);
    EXPECT_EQ(view.range(), (TimeRange{300, 500}));
    const size_t markers = view.markers().size();
    QTest::keyClick(table, Qt::Key_M, Qt::ControlModifier);
    EXPECT_EQ(view.markers().size(), markers + 1);
    // A text field keeps Backspace for editing.
    QLineEdit* filter = tab->analysis()->docks()->events()->findChild<QLineEdit*>("eventsFilter");
    ASSERT_NE(filter, nullptr);
    filter->setFocus();
    ASSERT_TRUE(QTest::qWaitFor([&] { return filter->hasFocus(); }, 2000));
    filter->setText("kA");
    QTest::keyClick(filter, Qt::Key_Backspace);
    EXPECT_EQ(filter->text(), "k");
    EXPECT_EQ(view.range(), (TimeRange{300, 500}));
}

}  // namespace
}  // namespace sl::viewer
