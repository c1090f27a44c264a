// The analysis docks wired to a real timeline (TimelineWidget under Xvfb): time selection ->
// selection statistics, events-view double-click -> ViewState range, a click on an event ->
// details and correlation highlights, edge arrows that jump, find dimming; and the
// correlation of a known API call / kernel pair of an imported nsys export.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QMainWindow>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include "model/analysis/EventQueryDetails.h"
#include "tests/analysis-gui/AnalysisFixture.h"
#include "viewer/analysis/SelectionModel.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/DetailsPanel.h"
#include "viewer/analysis/EventsModel.h"
#include "viewer/analysis/EventsView.h"
#include "viewer/analysis/FindBar.h"
#include "viewer/analysis/SelectionStatsDock.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "viewer/analysis/TimelineOverlay.h"
#include "tests/analysis-gui/gui/TimelineHarness.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/timeline/TrackRow.h"
#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#endif

namespace sl::viewer {
namespace {

using analysis::EventRef;

EventRef find(const Report& r, EventKind kind, int64_t start) {
    for (uint32_t t = 0; t < r.tracks.size(); ++t) {
        if (r.tracks[t].key.kind != kind) continue;
        for (uint32_t i = 0; i < r.tracks[t].size(); ++i)
            if (r.tracks[t].start[i] == start) return {t, i};
    }
    return {};
}

using Harness = TimelineHarness;

TEST(TimelineIntegration, TimeSelectionFeedsSelectionStats) {
    Harness h(test::makeAnalysisReport());
    QSignalSpy ready(h.docks()->selectionStats(), &SelectionStatsDock::statsReady);
    h.timeline->view().setSelection(250, 650);
    ASSERT_TRUE(ready.wait(5000));
    EXPECT_EQ(h.docks()->selectionStats()->stats().t0, 250);
    EXPECT_EQ(h.docks()->selectionStats()->stats().eventCount(), 9u);
    ASSERT_EQ(h.docks()->selectionStats()->stats().devices.size(), 2u);
    EXPECT_EQ(h.docks()->selectionStats()->stats().devices[0].busy, 350);
    h.timeline->view().clearSelection();
    EXPECT_EQ(h.docks()->selectionStats()->stats().groups.size(), 0u);
}

TEST(TimelineIntegration, CtrlClickOnRowHeadersLimitsSelectionStatsToThoseRows) {
    Harness h(test::makeAnalysisReport());
    // A track row (not a group) with events in the selection, and its expected count.
    const LayoutRow* target = nullptr;
    uint64_t expected = 0;
    for (const LayoutRow& lr : h.timeline->scene()->layout()) {
        const auto* tr = dynamic_cast<const TrackRow*>(lr.row);
        if (!tr) continue;
        uint64_t n = 0;
        for (const Track* t : tr->tracks())
            for (uint32_t l = 0; l < t->laneCount(); ++l) n += t->overlapping(l, 250, 650).size();
        if (n > 0) {
            target = &lr;
            expected = n;
            break;
        }
    }
    ASSERT_NE(target, nullptr);
    ASSERT_LT(expected, 9u);  // fewer than the 9 events of all rows
    const QPoint header(20, static_cast<int>(target->y + target->h / 2));
    QSignalSpy rowsChanged(h.timeline, &TimelineWidget::rowSelectionChanged);
    QTest::mouseClick(h.timeline, Qt::LeftButton, Qt::ControlModifier, header);
    ASSERT_EQ(rowsChanged.count(), 1);
    ASSERT_EQ(h.timeline->selectedRows().size(), 1u);
    EXPECT_FALSE(h.timeline->selectedTracks().empty());
    QSignalSpy ready(h.docks()->selectionStats(), &SelectionStatsDock::statsReady);
    h.timeline->view().setSelection(250, 650);
    ASSERT_TRUE(ready.wait(5000));
    EXPECT_EQ(h.docks()->selectionStats()->stats().eventCount(), expected);
    // A second Ctrl+click deselects the row: the statistics cover every row again.
    QSignalSpy again(h.docks()->selectionStats(), &SelectionStatsDock::statsReady);
    QTest::mouseClick(h.timeline, Qt::LeftButton, Qt::ControlModifier, header);
    EXPECT_TRUE(h.timeline->selectedRows().empty());
    ASSERT_TRUE(again.wait(5000));
    EXPECT_EQ(h.docks()->selectionStats()->stats().eventCount(), 9u);
}

TEST(TimelineIntegration, DoubleClickInEventsViewZoomsTheTimeline) {
    Harness h(test::makeBigKernelTrack(1000, 5));  // kernels at 10 * i, bounds [0, ~10000]
    EventsView* ev = h.docks()->events();
    ev->showTrack(0);
    // Row 500 by start: start 5000, duration (500 * 7919) % 1000 + 1 = 501 -> padded by 500.
    const QModelIndex idx = ev->model()->index(500, 3);
    ASSERT_EQ(ev->model()->data(ev->model()->index(500, 0), EventsModel::ValueRole).toLongLong(),
              5000);
    ev->table()->selectRow(500);
    const size_t historyBefore = h.timeline->view().historySize();
    // The view's own double-click handling is tested on a bare EventsView; here the wiring.
    emit ev->table()->doubleClicked(idx);
    EXPECT_EQ(h.timeline->view().range(), (TimeRange{4500, 6001}));
    EXPECT_EQ(h.timeline->view().historySize(), historyBefore + 1);  // Backspace returns
    EXPECT_EQ(h.docks()->selection()->selectedEvent(), ev->model()->eventAt(500));
}

TEST(TimelineIntegration, ClickOnKernelSelectsItAndHighlightsItsLaunch) {
    auto report = test::makeAnalysisReport();
    Harness h(report);
    h.timeline->view().setRange(0, 1000, false);
    h.render();
    const EventRef kB = find(*report, EventKind::Kernel, 500),
                   api = find(*report, EventKind::CudaApi, 400);
    TimelineScene& scene = *h.timeline->scene();
    const EventPlace p = placeEvent(scene, h.timeline->view().range(), kB);
    ASSERT_EQ(p.side, EventPlace::Side::OnScreen);
    QTest::mouseClick(
        h.timeline, Qt::LeftButton, {},
        QPoint(static_cast<int>((p.x0 + p.x1) / 2), static_cast<int>((p.y0 + p.y1) / 2)));
    EXPECT_EQ(h.docks()->selection()->selectedEvent(), kB);
    EXPECT_EQ(analysis::detailValue(h.docks()->details()->fields(), "Grid"), "8 x 2 x 1");
    // The overlay: an orange outline on the kernel, magenta on its API call, and one line.
    DrawList overlay;
    const auto related = h.docks()->selection()->correlated(kB);
    ASSERT_EQ(related.apiCalls.size(), 1u);
    EXPECT_EQ(related.apiCalls[0], api);
    const auto arrows = drawCorrelation(scene, h.timeline->view().range(), kB, related, overlay);
    EXPECT_TRUE(arrows.empty());
    ASSERT_EQ(overlay.lines.size(), 1u);
    const EventPlace a = placeEvent(scene, h.timeline->view().range(), api);
    EXPECT_FLOAT_EQ(overlay.lines[0].x0, a.x0);
    EXPECT_FLOAT_EQ(overlay.lines[0].x1, p.x0);
    size_t orange = 0, magenta = 0;
    for (const auto& b : overlay.boxes) {
        orange += b.argb == kSelectedColor;
        magenta += b.argb == kRelatedColor;
    }
    EXPECT_EQ(orange, 4u);
    EXPECT_EQ(magenta, 4u);
    // A click on empty space clears the event selection.
    QTest::mouseClick(h.timeline, Qt::LeftButton, {},
                      QPoint(static_cast<int>(scene.eventX()) + 5, h.timeline->height() - 5));
    EXPECT_FALSE(h.docks()->selection()->selectedEvent().valid());
}

TEST(TimelineIntegration, EdgeArrowJumpsToOffscreenKernel) {
    auto report = test::makeAnalysisReport();
    Harness h(report);
    h.timeline->view().setRange(50, 160,
                                false);  // c1 [100,120] visible, its kernel [200,300] is not
    const EventRef c1 = find(*report, EventKind::CudaApi, 100),
                   kA = find(*report, EventKind::Kernel, 200);
    h.docks()->selectEvent(c1.track, c1.index);
    h.render();
    ASSERT_EQ(h.analysis->arrows().size(), 1u);
    const EdgeArrow arrow = h.analysis->arrows()[0];
    EXPECT_EQ(arrow.target, kA);
    EXPECT_GT(arrow.x0, h.timeline->width() - 20.0f);  // on the right edge
    QTest::mouseClick(h.timeline, Qt::LeftButton, {},
                      QPoint(static_cast<int>((arrow.x0 + arrow.x1) / 2),
                             static_cast<int>((arrow.y0 + arrow.y1) / 2)));
    const TimeRange r = h.timeline->view().range();
    EXPECT_LE(r.start, 200);
    EXPECT_GE(r.end, 300);
    EXPECT_EQ(h.docks()->selection()->selectedEvent(), kA);
}

TEST(TimelineIntegration, FindDimsNonMatchingEvents) {
    Harness h(test::makeAnalysisReport());
    h.timeline->view().setRange(0, 1000, false);
    h.render();
    auto covers = [&] {
        size_t n = 0;
        for (const auto& b : h.timeline->frame().boxes) n += b.argb == 0xB4FFFFFFu;
        return n;
    };
    EXPECT_EQ(covers(), 0u);
    FindBar* bar = h.docks()->findBar();
    bar->edit()->setText(QStringLiteral("kB"));
    bar->modeBox()->setCurrentIndex(1);  // dim
    h.render();
    // Every named event but kB is covered: API calls (5 + 1 GPU-1 launch = 6), NVTX (2),
    // kernels kA (3): each in its thread/stream row, and kernels again in the GPU summary rows.
    EXPECT_GE(covers(), 11u);
    bar->modeBox()->setCurrentIndex(0);
    h.render();
    EXPECT_EQ(covers(), 0u);
}

#ifdef SIGHTLINE_HAVE_IMPORT
TEST(TimelineIntegration, NsysExportApiCallHighlightsItsKernel) {
    auto imported =
        importFile(std::string(SIGHTLINE_TEST_DATA) + "/analysis-gui/extrap_con_kernel.sqlite");
    ASSERT_TRUE(imported.ok()) << imported.error();
    std::shared_ptr<const Report> report = *imported;
    SelectionModel selection(report);
    // cudaLaunchKernel [529153951, 529232508] on thread 33680 launched test0 (correlation 122).
    EventRef api, kernel;
    for (uint32_t t = 0; t < report->tracks.size(); ++t) {
        const Track& tr = report->tracks[t];
        for (uint32_t i = 0; i < tr.size(); ++i) {
            if (tr.key.kind == EventKind::CudaApi && tr.intAt(cols::CudaApi::Correlation, i) == 122)
                api = {t, i};
            if (tr.key.kind == EventKind::Kernel && tr.intAt(cols::Kernel::Correlation, i) == 122)
                kernel = {t, i};
        }
    }
    ASSERT_TRUE(api.valid());
    ASSERT_TRUE(kernel.valid());
    EXPECT_EQ(report->tracks[api.track].durationAt(api.index), 529232508 - 529153951);
    EXPECT_EQ(report->tracks[api.track].key.tid, 33680);
    EXPECT_EQ(report->tracks[kernel.track].durationAt(kernel.index), 529933537 - 529596644);
    QSignalSpy highlights(&selection, &SelectionModel::highlightsChanged);
    selection.selectEvent(api.track, api.index);
    ASSERT_EQ(highlights.count(), 1);
    const auto down = highlights[0][0].value<analysis::CorrelatedEvents>();
    ASSERT_EQ(down.gpuOps.size(), 1u);
    EXPECT_EQ(down.gpuOps[0], kernel);
    selection.selectEvent(kernel.track, kernel.index);
    const auto up = highlights[1][0].value<analysis::CorrelatedEvents>();
    ASSERT_EQ(up.apiCalls.size(), 1u);
    EXPECT_EQ(up.apiCalls[0], api);
    const auto f = analysis::eventDetails(*report, kernel, &selection.correlation());
    EXPECT_EQ(analysis::detailValue(f, "Name"),
              "test0(double *, unsigned long long, unsigned long long)");
    EXPECT_EQ(analysis::detailValue(f, "Short name"), "test0");
    EXPECT_EQ(analysis::detailValue(f, "Grid"), "1 x 1 x 1");
    EXPECT_EQ(analysis::detailValue(f, "Block"), "1024 x 1 x 1");
    EXPECT_EQ(analysis::detailValue(f, "Registers per thread"), "17");
    EXPECT_EQ(analysis::detailValue(f, "Stream"), "14");
    EXPECT_EQ(analysis::detailValue(f, "Correlation ID"), "122");
    EXPECT_EQ(analysis::detailValue(f, "Launched by").rfind("cudaLaunchKernel on ", 0), 0u)
        << analysis::detailValue(f, "Launched by");
}
#endif

}  // namespace
}  // namespace sl::viewer
