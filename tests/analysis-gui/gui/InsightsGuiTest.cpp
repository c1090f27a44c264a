// The Insights dock on a report whose findings are known by hand
// (tests/analysis-gui/InsightsFixture.h): every rule listed, sorted by time lost; the selected
// finding's advice, instances and table; activation (a real double-click) -> the gap's range or
// the synchronization call's event; the selection scope; wired to a real timeline (zoom and
// selection); and the View menu reopening a closed Insights dock.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include "model/rep/RepWriter.h"
#include "tests/analysis-gui/InsightsFixture.h"
#include "tests/analysis-gui/gui/TimelineHarness.h"
#include "viewer/analysis/SelectionModel.h"
#include "viewer/analysis/FindingsModel.h"
#include "viewer/analysis/InsightsDock.h"
#include "viewer/analysis/StatsDock.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

namespace sl::viewer {
namespace {

using analysis::EventRef;
using test::kMs;

// The event of `kind` named `name` that starts at `start`.
EventRef find(const Report& r, EventKind kind, const char* name, int64_t start) {
    for (uint32_t t = 0; t < r.tracks.size(); ++t) {
        const Track& track = r.tracks[t];
        if (track.key.kind != kind) continue;
        for (uint32_t i = 0; i < track.size(); ++i)
            if (track.start[i] == start && r.str(track.name[i]) == name) return {t, i};
    }
    return {};
}

// The findings list as "rule|severity|count|time" lines, in the dock's order.
QStringList listed(const FindingsModel* m) {
    QStringList out;
    for (int r = 0; r < m->rowCount(); ++r) {
        QStringList cells{QString::fromStdString(m->findingAt(r)->rule)};
        for (int c :
             {FindingsModel::SeverityColumn, FindingsModel::CountColumn, FindingsModel::TimeColumn})
            cells << m->data(m->index(r, c)).toString();
        out << cells.join(QLatin1Char('|'));
    }
    return out;
}

class InsightsGui : public ::testing::Test {
protected:
    void SetUp() override {
        // The rules started in the constructor; their result arrives through the event loop,
        // which showing the dock runs.
        QSignalSpy ready(&dock, &InsightsDock::findingsReady);
        dock.resize(1400, 400);
        dock.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&dock));
        ASSERT_TRUE(ready.count() > 0 || ready.wait(10000));
    }
    // A real double-click on a row of one of the dock's tables.
    static void doubleClick(QAbstractItemView* view, int row) {
        const QRect rect = view->visualRect(view->model()->index(row, 1));
        ASSERT_TRUE(rect.isValid());
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    }
    int rowOf(const char* rule) const { return dock.model()->rowOf(rule); }

    std::shared_ptr<const Report> report = test::makeInsightsReport();
    InsightsDock dock{report};
};

TEST_F(InsightsGui, ListsEveryRuleWithTheMostTimeLostFirst) {
    const FindingsModel* m = dock.model();
    ASSERT_EQ(m->rowCount(), static_cast<int>(analysis::allRules().size()));
    ASSERT_EQ(m->rowCount(), 13);
    const QStringList rows = listed(m);
    // The three problems of the fixture, by time: the 600 ms gap, the 596 ms idle in the low
    // chunks, the 100.98 ms synchronization.
    ASSERT_GE(rows.size(), 3);
    EXPECT_EQ(rows[0], QStringLiteral("gpu_gaps|Warning|1|600.000000 ms"))
        << rows.join('\n').toStdString();
    EXPECT_EQ(rows[1], QStringLiteral("gpu_time_util|Warning|1|596.000000 ms"))
        << rows.join('\n').toStdString();
    EXPECT_EQ(rows[2], QStringLiteral("cuda_api_sync|Warning|1|100.980000 ms"))
        << rows.join('\n').toStdString();
    // Then information, then the rules that found nothing; by time within each.
    for (int r = 1; r < m->rowCount(); ++r) {
        const analysis::Finding &a = *m->findingAt(r - 1), &b = *m->findingAt(r);
        EXPECT_TRUE(a.severity > b.severity || (a.severity == b.severity && a.totalNs >= b.totalNs))
            << rows.join('\n').toStdString();
    }
    EXPECT_EQ(m->findingAt(3)->severity, analysis::Severity::Info);
    EXPECT_EQ(m->findingAt(12)->severity, analysis::Severity::None);
    EXPECT_EQ(m->findingAt(rowOf("cuda_memcpy_async"))->severity, analysis::Severity::None);
    // The marker and what the dock says about the run.
    EXPECT_EQ(
        m->data(m->index(0, FindingsModel::SeverityColumn), Qt::DecorationRole).value<QColor>(),
        severityColor(analysis::Severity::Warning));
    EXPECT_EQ(
        m->data(m->index(12, FindingsModel::SeverityColumn), Qt::DecorationRole).value<QColor>(),
        severityColor(analysis::Severity::None));
    EXPECT_TRUE(dock.statusLabel()->text().startsWith(
        QStringLiteral("13 rules checked (whole report): 3 warnings, ")))
        << dock.statusLabel()->text().toStdString();
    EXPECT_EQ(dock.windowTitle(), QStringLiteral("Insights (3 warnings)"));
}

TEST_F(InsightsGui, SelectedFindingShowsAdviceInstancesAndTable) {
    // The top finding is shown first.
    ASSERT_NE(dock.currentFinding(), nullptr);
    EXPECT_EQ(dock.currentFinding()->rule, "gpu_gaps");
    const QString text = dock.detailsText()->toPlainText();
    EXPECT_TRUE(text.contains(QString::fromStdString(dock.currentFinding()->summary)))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("Advice: ") +
                              QString::fromStdString(dock.currentFinding()->advice)));
    // The gap as an instance: a region of GPU 0 of process 10, without an event.
    QTableWidget* ex = dock.examplesTable();
    ASSERT_EQ(ex->rowCount(), 1);
    EXPECT_EQ(ex->item(0, 0)->text(), QStringLiteral("110.000000 ms"));
    EXPECT_EQ(ex->item(0, 1)->text(), QStringLiteral("600.000000 ms"));
    EXPECT_EQ(ex->item(0, 2)->text(), QStringLiteral("GPU 0 (process 10)"));
    EXPECT_EQ(dock.detailTabs()->tabText(0), QStringLiteral("Worst instances (1)"));
    EXPECT_EQ(dock.detailTabs()->tabText(1), QStringLiteral("Table (1 row)"));
    // nsys's columns, through the Stats dock's model.
    const analysis::Table& t = dock.tableModel()->table();
    ASSERT_EQ(t.rowCount(), 1u);
    EXPECT_EQ(t.columns[static_cast<size_t>(t.findColumn("Duration (ns)"))].ints[0], 600 * kMs);

    // Another finding: its event, shown where it is.
    dock.selectFinding(QStringLiteral("cuda_api_sync"));
    EXPECT_EQ(dock.currentFinding()->rule, "cuda_api_sync");
    ASSERT_EQ(ex->rowCount(), 1);
    EXPECT_EQ(ex->item(0, 0)->text(), QStringLiteral("9.020000 ms"));
    EXPECT_EQ(ex->item(0, 1)->text(), QStringLiteral("100.980000 ms"));
    EXPECT_EQ(ex->item(0, 2)->text(),
              QString::fromStdString(
                  report->trackTitle(report->tracks[find(*report, EventKind::CudaApi,
                                                         "cudaDeviceSynchronize", 9 * kMs + 20'000)
                                                        .track])));
    EXPECT_EQ(ex->item(0, 3)->text(), QStringLiteral("cudaDeviceSynchronize"));
    EXPECT_EQ(dock.tableModel()->table().rowCount(), 1u);
}

TEST_F(InsightsGui, ActivatingTheGapRequestsItsRange) {
    QSignalSpy range(&dock, &InsightsDock::instanceRequested);
    QSignalSpy event(&dock, &InsightsDock::eventRequested);
    doubleClick(dock.findingsView(), rowOf("gpu_gaps"));
    // [110, 710] ms padded by a quarter of its length on each side; a gap has no event.
    ASSERT_EQ(range.count(), 1);
    EXPECT_EQ(range[0][0].toLongLong(), 110 * kMs - 150 * kMs);
    EXPECT_EQ(range[0][1].toLongLong(), 710 * kMs + 150 * kMs);
    EXPECT_EQ(event.count(), 0);
}

TEST_F(InsightsGui, ClickingSelectsAndActivatingZoomsToTheSynchronizationCall) {
    const EventRef sync =
        find(*report, EventKind::CudaApi, "cudaDeviceSynchronize", 9 * kMs + 20'000);
    ASSERT_TRUE(sync.valid());
    QSignalSpy range(&dock, &InsightsDock::instanceRequested);
    QSignalSpy event(&dock, &InsightsDock::eventRequested);
    // A click selects the worst instance's event and leaves the zoom alone.
    const QRect rect =
        dock.findingsView()->visualRect(dock.model()->index(rowOf("cuda_api_sync"), 1));
    QTest::mouseClick(dock.findingsView()->viewport(), Qt::LeftButton, {}, rect.center());
    ASSERT_EQ(event.count(), 1);
    EXPECT_EQ(event[0][0].toUInt(), sync.track);
    EXPECT_EQ(event[0][1].toUInt(), sync.index);
    EXPECT_EQ(range.count(), 0);
    EXPECT_EQ(dock.currentFinding()->rule, "cuda_api_sync");
    // Activation selects it and zooms: [9.02, 110] ms padded by 25.245 ms.
    event.clear();
    doubleClick(dock.findingsView(), rowOf("cuda_api_sync"));
    ASSERT_GE(event.count(), 1);
    EXPECT_EQ(event.last()[0].toUInt(), sync.track);
    EXPECT_EQ(event.last()[1].toUInt(), sync.index);
    ASSERT_EQ(range.count(), 1);
    EXPECT_EQ(range[0][0].toLongLong(), 9'020'000 - 25'245'000);
    EXPECT_EQ(range[0][1].toLongLong(), 110'000'000 + 25'245'000);
}

TEST_F(InsightsGui, ActivatingAnInstanceCoversItsEvent) {
    // A launch latency instance runs from the launch call to the kernel's start; the range
    // also covers the kernel it selects: k2 [710, 790] ms launched at 105 ms.
    dock.selectFinding(QStringLiteral("launch_latency"));
    const analysis::Finding* f = dock.currentFinding();
    ASSERT_NE(f, nullptr);
    const EventRef k2 = find(*report, EventKind::Kernel, "k2", 710 * kMs);
    int row = -1;
    for (size_t i = 0; i < f->examples.size(); ++i)
        if (f->examples[i].track == k2.track && f->examples[i].index == k2.index)
            row = static_cast<int>(i);
    ASSERT_GE(row, 0);
    EXPECT_EQ(f->examples[static_cast<size_t>(row)].start, 105 * kMs);
    EXPECT_EQ(f->examples[static_cast<size_t>(row)].end, 710 * kMs);
    dock.detailTabs()->setCurrentIndex(0);
    QSignalSpy range(&dock, &InsightsDock::instanceRequested);
    QSignalSpy event(&dock, &InsightsDock::eventRequested);
    doubleClick(dock.examplesTable(), row);
    ASSERT_GE(event.count(), 1);
    EXPECT_EQ(event.last()[0].toUInt(), k2.track);
    EXPECT_EQ(event.last()[1].toUInt(), k2.index);
    ASSERT_EQ(range.count(), 1);
    // [105, 790] ms padded by 171.25 ms.
    EXPECT_EQ(range[0][0].toLongLong(), 105 * kMs - 171'250'000);
    EXPECT_EQ(range[0][1].toLongLong(), 790 * kMs + 171'250'000);
}

TEST_F(InsightsGui, SelectionScopeChecksTheSelectedRangeNewestFirst) {
    QSignalSpy ready(&dock, &InsightsDock::findingsReady);
    dock.setSelectionScope(true);
    // Nothing selected: nothing checked, and the dock says why.
    EXPECT_EQ(dock.model()->rowCount(), 0);
    EXPECT_EQ(dock.statusLabel()->text(), QStringLiteral("Select a time range on the timeline."));
    // [0, 200] ms holds the synchronization but not k2, so no gap.
    ready.clear();
    dock.setSelection(0, 200 * kMs);
    ASSERT_TRUE(ready.wait(10000));
    ASSERT_EQ(dock.model()->rowCount(), 13);
    EXPECT_EQ(dock.model()->findingAt(rowOf("cuda_api_sync"))->count, 1);
    EXPECT_EQ(dock.model()->findingAt(rowOf("gpu_gaps"))->count, 0);
    EXPECT_TRUE(dock.statusLabel()->text().contains(QStringLiteral("selection of 200.000000 ms")))
        << dock.statusLabel()->text().toStdString();
    // Two requests while one runs: only the newest is shown.
    ready.clear();
    dock.setSelection(0, 150 * kMs);
    dock.refresh();
    dock.setSelection(0, 800 * kMs);
    dock.refresh();
    ASSERT_TRUE(ready.wait(10000));
    EXPECT_EQ(dock.model()->findingAt(rowOf("gpu_gaps"))->count, 1);
    QTest::qWait(300);  // the stale run's result, had it been shown, would have arrived by now
    EXPECT_EQ(ready.count(), 1);
    EXPECT_EQ(dock.model()->findingAt(rowOf("gpu_gaps"))->count, 1);
}

TEST(InsightsTimeline, ActivationZoomsTheTimelineAndSelectsTheEvent) {
    TimelineHarness h(test::makeInsightsReport());
    InsightsDock* dock = h.docks()->insights();
    ASSERT_NE(dock, nullptr);
    if (dock->model()->rowCount() == 0) {
        QSignalSpy ready(dock, &InsightsDock::findingsReady);
        ASSERT_TRUE(ready.wait(10000));
    }
    const EventRef sync =
        find(*h.report, EventKind::CudaApi, "cudaDeviceSynchronize", 9 * kMs + 20'000);
    dock->activateFinding(dock->model()->rowOf("cuda_api_sync"));
    EXPECT_EQ(h.docks()->selection()->selectedEvent(), sync);
    EXPECT_EQ(h.timeline->view().range(),
              (TimeRange{9'020'000 - 25'245'000, 110'000'000 + 25'245'000}));
    // The gap: zoomed to it (the view keeps inside the report's padded bounds), recorded in the
    // history so Backspace returns; the selected event stays.
    dock->activateFinding(dock->model()->rowOf("gpu_gaps"));
    const TimeRange r = h.timeline->view().range();
    EXPECT_LE(r.start, 110 * kMs);
    EXPECT_GE(r.end, 710 * kMs);
    EXPECT_EQ(h.docks()->selection()->selectedEvent(), sync);
    ASSERT_TRUE(h.timeline->view().back());
    EXPECT_EQ(h.timeline->view().range(),
              (TimeRange{9'020'000 - 25'245'000, 110'000'000 + 25'245'000}));
}

TEST(InsightsTimeline, ViewMenuReopensAClosedInsightsDock) {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("insights.rep"));
    ASSERT_TRUE(writeReport(*test::makeInsightsReport(), path.toStdString()).ok());
    MainWindow window;
    window.show();
    ReportTab* tab = window.openReport(path);
    QSignalSpy loaded(tab, &ReportTab::loaded);
    ASSERT_TRUE(loaded.wait(10000));
    InsightsDock* dock = tab->analysis()->docks()->insights();
    dock->raise();
    QTest::qWait(50);
    ASSERT_TRUE(dock->isVisible());
    dock->close();
    EXPECT_FALSE(dock->isVisible());

    QMenu* panels = nullptr;
    for (QAction* a : window.menuBar()->actions())
        if (a->menu() && a->text() == QStringLiteral("&View"))
            for (QAction* b : a->menu()->actions())
                if (b->menu() && b->text() == QStringLiteral("Report &Panels")) panels = b->menu();
    ASSERT_NE(panels, nullptr);
    emit panels->aboutToShow();
    QStringList names;
    QAction* insights = nullptr;
    for (QAction* a : panels->actions()) {
        names << a->text();
        if (a->text().startsWith(QStringLiteral("Insights"))) insights = a;
    }
    // Find, Events, Selection statistics, Stats, Insights, Details (no CPU samples here).
    EXPECT_EQ(names.size(), 6) << names.join(',').toStdString();
    ASSERT_NE(insights, nullptr) << names.join(',').toStdString();
    EXPECT_FALSE(insights->isChecked());
    insights->trigger();
    EXPECT_TRUE(dock->isVisible());
}

}  // namespace
}  // namespace sl::viewer
