// CPU samples in the GUI, on the hand-built report of tests/analysis-gui/SampleFixture.h: the
// "CPU samples" row under each thread (count, tooltip with the call stack, click -> details),
// and the CPU sampling dock (whole report, time selection, selected rows, sorting, the filter
// box, double-click -> find filter), with a real timeline under Xvfb.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMouseEvent>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>
#include <QTreeView>

#include "tests/analysis-gui/SampleFixture.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/CpuSamplingDock.h"
#include "viewer/analysis/DetailsPanel.h"
#include "viewer/analysis/EventsModel.h"
#include "viewer/analysis/EventsView.h"
#include "viewer/analysis/FindBar.h"
#include "viewer/analysis/SampleTreeModel.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "tests/analysis-gui/gui/TimelineHarness.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/timeline/TrackRow.h"
#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/ImportFile.h"
#endif

namespace sl::viewer {
namespace {

using View = SampleTreeModel::View;

using Harness = TimelineHarness;

// A plain mouse move delivered directly (QTest::mouseMove does not reach an unentered widget
// under Xvfb).
void hover(QWidget& w, QPointF pos) {
    QMouseEvent e(QEvent::MouseMove, pos, w.mapToGlobal(pos), Qt::NoButton, Qt::NoButton,
                  Qt::NoModifier);
    QApplication::sendEvent(&w, &e);
}

// The flat view's rows as "function|module|self|self %|total|total %", in view order.
QStringList rows(QAbstractItemModel* m, const QModelIndex& parent = {}) {
    QStringList out;
    for (int r = 0; r < m->rowCount(parent); ++r) {
        QStringList cells;
        for (int c = 0; c < m->columnCount(parent); ++c)
            cells << m->index(r, c, parent).data().toString();
        out << cells.join(QLatin1Char('|'));
    }
    return out;
}

uint32_t trackIndex(const Report& r, EventKind kind, int64_t tid) {
    for (uint32_t t = 0; t < r.tracks.size(); ++t)
        if (r.tracks[t].key.kind == kind && r.tracks[t].key.tid == tid) return t;
    return UINT32_MAX;
}

TEST(CpuSamplingGui, ThreadsHaveACpuSamplesRowWithTheirCount) {
    const auto report = test::makeSampleTreeReport();
    auto root = buildRowTree(*report);
    Row* main = root->find("Process 1 (app)/Thread 10 (main)/CPU samples");
    Row* worker = root->find("Process 1 (app)/Thread 11 (worker)/CPU samples");
    ASSERT_NE(main, nullptr);
    ASSERT_NE(worker, nullptr);
    EXPECT_EQ(main->count(), 6u);
    EXPECT_EQ(worker->count(), 3u);
    // Under the thread's other rows (NVTX first, as nsys orders them).
    Row* thread = root->find("Process 1 (app)/Thread 10 (main)");
    ASSERT_EQ(thread->children().size(), 2u);
    EXPECT_EQ(thread->children().back().get(), main);
    EXPECT_EQ(thread->count(), 7u);
}

TEST(CpuSamplingGui, TooltipShowsCpuAndTheCallStackLeafFirst) {
    Harness h(test::makeSampleTreeReport());
    h.timeline->view().setRange(0, 1000, false);
    const LayoutRow* lr = h.row("Process 1 (app)/Thread 10 (main)/CPU samples");
    ASSERT_NE(lr, nullptr);
    QString text;
    QObject::connect(h.timeline, &TimelineWidget::hovered, [&text](const QString& t) { text = t; });
    const float x = h.timeline->scene()->xOf(h.timeline->view().range(), 300);  // S2 on CPU 1
    hover(*h.timeline, {x, lr->y + TrackRow::kPad + 4});
    EXPECT_TRUE(text.startsWith("helper\nKind: CPU samples\nTime: 300 ns (300 ns)")) << text.toStdString();
    EXPECT_FALSE(text.contains("Duration")) << text.toStdString();  // an instant has none
    EXPECT_TRUE(text.contains("CPU: 1")) << text.toStdString();
    EXPECT_TRUE(text.contains(
        "Call stack: helper (app)\n  compute (libm.so)\n  run (app)\n  main (app)"))
        << text.toStdString();
    // The unresolved leaf at 600 ns is named by its module and offset.
    hover(*h.timeline,
          {h.timeline->scene()->xOf(h.timeline->view().range(), 600), lr->y + TrackRow::kPad + 4});
    EXPECT_TRUE(text.startsWith("libfoo.so+0x40\n")) << text.toStdString();
}

TEST(CpuSamplingGui, ClickingASampleListsItsWholeStackInTheDetails) {
    Harness h(test::makeSampleTreeReport());
    h.docks()->selectEvent(trackIndex(*h.report, EventKind::CpuSample, 10), 2);  // 300 ns, S2
    const QString details = h.docks()->details()->text();
    EXPECT_TRUE(details.contains("CPU\t1\n")) << details.toStdString();
    EXPECT_TRUE(details.contains(
        "Call stack\thelper (app)\n\tcompute (libm.so)\n\trun (app)\n\tmain (app)\n"))
        << details.toStdString();
}

TEST(CpuSamplingGui, DockShowsTheWholeReportThenTheSelection) {
    Harness h(test::makeSampleTreeReport());
    CpuSamplingDock* dock = h.docks()->sampling();
    ASSERT_NE(dock, nullptr);
    QSignalSpy ready(dock, &CpuSamplingDock::treeReady);
    if (!dock->tree()) {
        ASSERT_TRUE(ready.wait(5000));
    }
    EXPECT_EQ(dock->tree()->sampleCount(), 9);
    QAbstractItemModelTester tester(dock->proxy(View::TopDown)->sourceModel(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    // Flat, sorted by self (descending; ties keep the tree's order: total, then name).
    EXPECT_EQ(
        rows(dock->proxy(View::Flat)),
        QStringList({"compute|libm.so|3|33.33 %|6|66.67 %", "helper|app|3|33.33 %|3|33.33 %",
                     "run|app|2|22.22 %|8|88.89 %", "libfoo.so+0x40|libfoo.so|1|11.11 %|1|11.11 %",
                     "main|app|0|0.00 %|9|100.00 %"}));
    ready.clear();
    h.timeline->view().setSelection(200, 400);  // 4 samples: 2 on each thread
    ASSERT_TRUE(ready.wait(5000));
    EXPECT_EQ(dock->tree()->sampleCount(), 4);
    EXPECT_TRUE(dock->header()->text().startsWith("4 samples, 2 distinct stacks"))
        << dock->header()->text().toStdString();
    QSortFilterProxyModel* flat = dock->proxy(View::Flat);
    flat->sort(SampleTreeModel::TotalCol, Qt::DescendingOrder);
    EXPECT_EQ(rows(flat),
              QStringList({"compute|libm.so|1|25.00 %|4|100.00 %", "main|app|0|0.00 %|4|100.00 %",
                           "run|app|0|0.00 %|4|100.00 %", "helper|app|3|75.00 %|3|75.00 %"}));
    // Top-down: main > run > compute > helper.
    QSortFilterProxyModel* td = dock->proxy(View::TopDown);
    ASSERT_EQ(td->rowCount(), 1);
    const QModelIndex run = td->index(0, 0, td->index(0, 0));
    EXPECT_EQ(run.data().toString(), "run");
    EXPECT_EQ(rows(td, run), QStringList({"compute|libm.so|1|25.00 %|4|100.00 %"}));
}

TEST(CpuSamplingGui, SelectedRowsLimitTheDockToTheirThreads) {
    Harness h(test::makeSampleTreeReport());
    CpuSamplingDock* dock = h.docks()->sampling();
    QSignalSpy ready(dock, &CpuSamplingDock::treeReady);
    // The NVTX row of thread 10 stands for thread 10.
    h.docks()->setTimeSelection(200, 400, {trackIndex(*h.report, EventKind::NvtxRange, 10)});
    ASSERT_TRUE(ready.wait(5000));
    EXPECT_EQ(dock->tree()->sampleCount(), 2);
    QSortFilterProxyModel* flat = dock->proxy(View::Flat);
    flat->sort(SampleTreeModel::FunctionCol, Qt::AscendingOrder);
    EXPECT_EQ(rows(flat),
              QStringList({"compute|libm.so|1|50.00 %|2|100.00 %", "helper|app|1|50.00 %|1|50.00 %",
                           "main|app|0|0.00 %|2|100.00 %", "run|app|0|0.00 %|2|100.00 %"}));
}

TEST(CpuSamplingGui, CtrlClickedRowsWithoutATimeRangeLimitTheThreadsOverTheWholeReport) {
    Harness h(test::makeSampleTreeReport());
    CpuSamplingDock* dock = h.docks()->sampling();
    QSignalSpy ready(dock, &CpuSamplingDock::treeReady);
    if (!dock->tree()) {
        ASSERT_TRUE(ready.wait(5000));
    }
    ready.clear();
    const LayoutRow* worker = h.row("Process 1 (app)/Thread 11 (worker)");
    ASSERT_NE(worker, nullptr);
    QTest::mouseClick(h.timeline, Qt::LeftButton, Qt::ControlModifier,
                      QPoint(20, static_cast<int>(worker->y + worker->h / 2)));
    ASSERT_TRUE(ready.wait(5000));
    EXPECT_EQ(dock->tree()->sampleCount(), 3);  // thread 11: 150 S1, 250 S2, 350 S2
    EXPECT_TRUE(dock->header()->text().endsWith("(whole report, 1 thread(s))"))
        << dock->header()->text().toStdString();
    EXPECT_EQ(dock->tree()->flatNode("helper")->self, 2);
    ready.clear();
    worker = h.row("Process 1 (app)/Thread 11 (worker)");
    QTest::mouseClick(h.timeline, Qt::LeftButton, Qt::ControlModifier,
                      QPoint(20, static_cast<int>(worker->y + worker->h / 2)));
    ASSERT_TRUE(ready.wait(5000));
    EXPECT_EQ(dock->tree()->sampleCount(), 9);
}

TEST(CpuSamplingGui, FilterBoxKeepsMatchingFunctionsAndTheirPaths) {
    Harness h(test::makeSampleTreeReport());
    CpuSamplingDock* dock = h.docks()->sampling();
    QSignalSpy ready(dock, &CpuSamplingDock::treeReady);
    if (!dock->tree()) {
        ASSERT_TRUE(ready.wait(5000));
    }
    QTest::keyClicks(dock->filterEdit(), "HELP");
    EXPECT_EQ(rows(dock->proxy(View::Flat)), QStringList({"helper|app|3|33.33 %|3|33.33 %"}));
    // Top-down keeps the path main > run > compute > helper.
    QSortFilterProxyModel* td = dock->proxy(View::TopDown);
    ASSERT_EQ(td->rowCount(), 1);
    const QModelIndex run = td->index(0, 0, td->index(0, 0));
    ASSERT_EQ(td->rowCount(run), 1);  // the recursive "run" leaf is filtered out
    const QModelIndex compute = td->index(0, 0, run);
    EXPECT_EQ(rows(td, compute), QStringList({"helper|app|3|33.33 %|3|33.33 %"}));
    // Bottom-up: the helper root keeps its callers (rows below a match are accepted).
    QSortFilterProxyModel* bu = dock->proxy(View::BottomUp);
    ASSERT_EQ(bu->rowCount(), 1);
    EXPECT_EQ(bu->index(0, 0).data().toString(), "helper");
    EXPECT_EQ(rows(bu, bu->index(0, 0)), QStringList({"compute|libm.so|3|33.33 %|3|33.33 %"}));
    dock->filterEdit()->clear();
    EXPECT_EQ(dock->proxy(View::Flat)->rowCount(), 5);
}

// Whether the frame has a dimming cover over time `t` in thread 10's CPU samples lane.
bool dimmedAt(Harness& h, int64_t t) {
    const LayoutRow* lr = h.row("Process 1 (app)/Thread 10 (main)/CPU samples");
    if (!lr) return false;
    const float x = h.timeline->scene()->xOf(h.timeline->view().range(), t);
    const float y = lr->y + TrackRow::kPad;
    for (const DrawBox& b : h.timeline->frame().boxes)
        if (b.argb == 0xB4FFFFFF && b.y == y && b.x <= x && x < b.x + b.w) return true;
    return false;
}

TEST(CpuSamplingGui, DoubleClickDimsTheSamplesNotPassingThroughTheFunction) {
    Harness h(test::makeSampleTreeReport());
    CpuSamplingDock* dock = h.docks()->sampling();
    QSignalSpy ready(dock, &CpuSamplingDock::treeReady);
    if (!dock->tree()) {
        ASSERT_TRUE(ready.wait(5000));
    }
    h.timeline->view().setRange(0, 1000, false);
    // Flat, by self: compute, helper, run, libfoo.so+0x40, main.
    const QModelIndex run = dock->proxy(View::Flat)->index(2, 0);
    ASSERT_EQ(run.data().toString(), "run");
    // A real double-click on the row.
    dock->raise();
    dock->tabs()->setCurrentIndex(2);
    QTreeView* flatView = dock->view(View::Flat);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return flatView->isVisible() && flatView->visualRect(run).isValid(); }, 5000))
        << flatView->isVisible() << " " << flatView->visualRect(run).width();
    // The view keeps the pressed row from the first click of the pair.
    const QPoint at = flatView->visualRect(run).center();
    QTest::mouseClick(flatView->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(flatView->viewport(), Qt::LeftButton, {}, at);
    EXPECT_EQ(h.analysis->sampleHighlight(), (std::vector<uint8_t>{1, 1, 1, 0, 1}));
    EXPECT_FALSE(dock->highlightLabel()->isHidden());
    EXPECT_EQ(dock->highlightLabel()->text(), "Timeline: samples through run (app) stay bright");
    // The next rebuilt frame (earlier frames may still be on their way) dims 600 ns:
    // thread 10's 100 S1, 200 S1, 300 S2, 400 S3, 500 S5 pass through run; 600 S4 does not.
    EXPECT_TRUE(QTest::qWaitFor([&] { return dimmedAt(h, 600); }, 5000)) << [&] {
        std::string d = "range " + std::to_string(h.timeline->view().range().start) + ".." +
                        std::to_string(h.timeline->view().range().end) + " covers:";
        for (const DrawBox& b : h.timeline->frame().boxes)
            if (b.argb == 0xB4FFFFFF)
                d += " (" + std::to_string(b.x) + "," + std::to_string(b.y) + ")";
        const LayoutRow* lr = h.row("Process 1 (app)/Thread 10 (main)/CPU samples");
        if (lr) d += " row y " + std::to_string(lr->y);
        return d;
    }();
    for (int64_t t : {100, 200, 300, 400, 500}) EXPECT_FALSE(dimmedAt(h, t)) << t;
    EXPECT_FALSE(dimmedAt(h, 700));  // no sample there: nothing to dim
    // A caller with no self samples highlights every sample below it.
    // Enter on the current row activates it too.
    flatView->setFocus();
    flatView->setCurrentIndex(dock->proxy(View::Flat)->index(4, 0));  // main
    QTest::keyClick(flatView, Qt::Key_Return);
    EXPECT_EQ(h.analysis->sampleHighlight(), (std::vector<uint8_t>{1, 1, 1, 1, 1}));
    QTest::mouseClick(dock->clearHighlightButton(), Qt::LeftButton);
    EXPECT_TRUE(h.analysis->sampleHighlight().empty());
    EXPECT_TRUE(dock->highlightLabel()->isHidden());
    EXPECT_TRUE(QTest::qWaitFor([&] { return !dimmedAt(h, 600); }, 5000));
}

TEST(CpuSamplingGui, EventsViewListsAllSamplesByTime) {
    Harness h(test::makeSampleTreeReport());
    EventsView* events = h.docks()->events();
    const int all = events->sourceBox()->findText("All CPU samples (9)");
    ASSERT_GE(all, 0);
    events->showKind(EventKind::CpuSample);
    ASSERT_EQ(events->model()->rowCount(), 9);
    // Start order: 100 (thread 10), 150 (thread 11), ...; names are the leaf functions.
    EXPECT_EQ(events->model()->data(events->model()->index(1, 3)).toString(), "compute");
    EXPECT_EQ(events->model()->data(events->model()->index(3, 3)).toString(), "helper");
    EXPECT_EQ(events->model()->data(events->model()->index(8, 3)).toString(), "");
}

#ifdef SIGHTLINE_HAVE_IMPORT
// The nsys export of tests/data/import (5,451 samples of MPI rank 0): the row and the dock's
// hottest function, by SQL counts over its sampling tables (see SampleTreeTest).
TEST(CpuSamplingGui, ImportedNsysReportShowsItsSamples) {
    auto imported =
        importFile(std::string(SIGHTLINE_TEST_DATA) + "/import/pipit_saxpy_mpi_cuda.sqlite");
    ASSERT_TRUE(imported.ok()) << imported.error();
    Harness h(*imported);
    const Row* samples = nullptr;
    for (const LayoutRow& lr : h.timeline->scene()->layout())
        if (lr.row->title() == "CPU samples") samples = lr.row;
    ASSERT_NE(samples, nullptr);
    EXPECT_EQ(samples->count(), 5451u);
    EXPECT_EQ(samples->parent()->title(), "Thread 1230493 (MPI Rank 0)");
    CpuSamplingDock* dock = h.docks()->sampling();
    ASSERT_NE(dock, nullptr);
    QSignalSpy ready(dock, &CpuSamplingDock::treeReady);
    if (!dock->tree()) {
        ASSERT_TRUE(ready.wait(5000));
    }
    QSortFilterProxyModel* flat = dock->proxy(View::Flat);
    flat->sort(SampleTreeModel::SelfCol, Qt::DescendingOrder);
    auto cell = [&](int row, int col) {
        return flat->index(row, col).data(SampleTreeModel::SortRole);
    };
    EXPECT_EQ(cell(0, SampleTreeModel::FunctionCol).toString(), "main");
    EXPECT_EQ(cell(0, SampleTreeModel::ModuleCol).toString(), "saxpy-mpi-cuda");
    EXPECT_EQ(cell(0, SampleTreeModel::SelfCol).toLongLong(), 2980);
    EXPECT_EQ(cell(0, SampleTreeModel::TotalCol).toLongLong(), 3568);
    EXPECT_EQ(flat->index(0, SampleTreeModel::SelfPercentCol).data().toString(), "54.67 %");
    EXPECT_EQ(cell(1, SampleTreeModel::FunctionCol).toString(), "std::abs(double)");
    EXPECT_EQ(cell(1, SampleTreeModel::SelfCol).toLongLong(), 492);
}
#endif

TEST(CpuSamplingGui, ReportsWithoutSamplesHaveNoSamplingDock) {
    ReportBuilder b;
    b.add(NvtxMarkEvent{1, 2, 0, 5, b.intern("m")});
    QMainWindow window;
    AnalysisDocks docks(&window, b.finish());
    EXPECT_EQ(docks.sampling(), nullptr);
}

}  // namespace
}  // namespace sl::viewer
