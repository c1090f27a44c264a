// The analysis docks on the hand-built report (tests/analysis-gui/AnalysisFixture.h): values
// shown by the selection statistics dock, events view sort/filter/navigation, details,
// correlation highlights, find, and the Stats dock.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

#include "model/analysis/EventQuery.h"
#include "model/core/ReportBuilder.h"
#include "tests/analysis-gui/AnalysisFixture.h"
#include "viewer/analysis/SelectionModel.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/DetailsPanel.h"
#include "viewer/analysis/EventsModel.h"
#include "viewer/analysis/EventsView.h"
#include "viewer/analysis/FindBar.h"
#include "viewer/analysis/SelectionStatsDock.h"
#include "viewer/analysis/StatsDock.h"

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

// Rows of a QTableWidget as "cell|cell|..." lines, for exact comparisons.
QStringList rows(const QTableWidget* t) {
    QStringList out;
    for (int r = 0; r < t->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < t->columnCount(); ++c)
            cells << (t->item(r, c) ? t->item(r, c)->text() : QString());
        out << cells.join(QLatin1Char('|'));
    }
    return out;
}

class AnalysisGui : public ::testing::Test {
protected:
    std::shared_ptr<const Report> report = test::makeAnalysisReport();
};

TEST_F(AnalysisGui, SelectionStatsDockShowsKnownNumbers) {
    SelectionStatsDock dock(report);
    QSignalSpy ready(&dock, &SelectionStatsDock::statsReady);
    dock.setSelection(250, 650);
    ASSERT_TRUE(ready.wait(5000));
    // 8 groups: kA s7, memcpy DtoH s7, kB s8, memcpy HtoD s8, kA s9, 2 API names, NVTX step2.
    ASSERT_EQ(dock.eventsTable()->rowCount(), 8);
    const QStringList ev = rows(dock.eventsTable());
    EXPECT_TRUE(ev.contains(QStringLiteral(
        "CUDA kernels - GPU 0 context 1 stream 7|kA|2|200 ns|100 ns|50 ns|150 ns|50.00 %")))
        << ev.join(QLatin1Char('\n')).toStdString();
    const QStringList busy = rows(dock.busyTable());
    ASSERT_EQ(busy.size(), 5);  // 2 devices + 3 streams
    EXPECT_EQ(busy[0], QStringLiteral("0|all|all|all|350 ns|87.50 %"));
    EXPECT_EQ(busy[2], QStringLiteral("0|1|1|7|250 ns|62.50 %"));
    const QStringList copies = rows(dock.copiesTable());
    ASSERT_EQ(copies.size(), 2);
    EXPECT_TRUE(copies[0].startsWith(QStringLiteral("Host-to-Device|1|")));
    EXPECT_TRUE(copies[0].endsWith(QStringLiteral("|100 ns|10.000 GB/s")));
    dock.copyTsv();
    EXPECT_EQ(QApplication::clipboard()->text(), dock.tsv());
    EXPECT_TRUE(dock.tsv().contains(QStringLiteral("Host-to-Device\t1\t1000\t100\t10.000\n")));
}

TEST_F(AnalysisGui, SelectionStatsNewestSelectionWins) {
    SelectionStatsDock dock(report);
    QSignalSpy ready(&dock, &SelectionStatsDock::statsReady);
    dock.setSelection(0, 1000);
    dock.setSelection(300, 400);
    ASSERT_TRUE(ready.wait(5000));
    QTest::qWait(100);  // a stale result of the first selection would arrive here
    EXPECT_EQ(dock.stats().t0, 300);
    EXPECT_EQ(dock.stats().t1, 400);
    dock.clearSelection();
    EXPECT_EQ(dock.eventsTable()->rowCount(), 0);
}

TEST_F(AnalysisGui, EventsModelPassesModelTester) {
    EventsModel model(report);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setTracks(analysis::EventQuery::tracksOfKind(*report, EventKind::Kernel));
    EXPECT_EQ(model.rowCount(), 4);
    model.sort(1, Qt::DescendingOrder);
    EXPECT_EQ(model.data(model.index(0, 1), EventsModel::ValueRole).toLongLong(), 1000);
    // One unit per column, from its largest value (TimeText columnTimeUnit): under 10 us, ns.
    EXPECT_EQ(model.data(model.index(0, 1)).toString(), QStringLiteral("1000 ns"));
    EXPECT_EQ(model.data(model.index(0, 3)).toString(), QStringLiteral("kA"));
    EXPECT_EQ(model.data(model.index(0, 5)).toString(), QStringLiteral("6"));
    ASSERT_TRUE(model.setFilter({"kB"}).ok());
    EXPECT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.headerData(3, Qt::Horizontal).toString(), QStringLiteral("Name"));
}

TEST_F(AnalysisGui, EventsViewSortsAndFilters) {
    EventsView view(report);
    view.showKind(EventKind::Kernel);
    ASSERT_EQ(view.model()->rowCount(), 4);
    // Clicking the Duration header twice: ascending, then descending.
    view.table()->sortByColumn(1, Qt::AscendingOrder);
    EXPECT_EQ(view.model()->data(view.model()->index(0, 1), EventsModel::ValueRole).toLongLong(),
              100);
    view.table()->sortByColumn(1, Qt::DescendingOrder);
    EXPECT_EQ(view.model()->data(view.model()->index(0, 1), EventsModel::ValueRole).toLongLong(),
              1000);
    view.filterEdit()->setText(QStringLiteral("^k[B]"));
    view.regexBox()->setChecked(true);
    view.applyFilter();
    EXPECT_EQ(view.model()->rowCount(), 1);
    EXPECT_EQ(view.statusLabel()->text(), QStringLiteral("1 of 4 events"));
    view.filterEdit()->setText(QStringLiteral("(("));
    view.applyFilter();
    EXPECT_TRUE(view.statusLabel()->text().contains(QStringLiteral("invalid regular expression")));
    EXPECT_EQ(view.model()->rowCount(), 1);  // the previous filter stays
    view.regexBox()->setChecked(false);
    view.filterEdit()->setText(QString());
    view.minDurationEdit()->setText(QStringLiteral("0.15us"));
    view.applyFilter();
    EXPECT_EQ(view.model()->rowCount(), 3);  // 1000, 200, 150 ns
    view.maxDurationEdit()->setText(QStringLiteral("abc"));
    view.applyFilter();
    EXPECT_TRUE(view.statusLabel()->text().contains(QStringLiteral("'abc' is not a duration")));
}

TEST_F(AnalysisGui, DoubleClickRequestsTheEventsRange) {
    EventsView view(report);
    view.resize(900, 400);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.showKind(EventKind::Kernel);
    QSignalSpy range(&view, &EventsView::rangeRequested);
    QSignalSpy activated(&view, &EventsView::eventActivated);
    // Row 0 by start is kA on GPU 1 [0, 1000]: padded by max(1000 / 4, 500) on each side.
    const QRect rect = view.table()->visualRect(view.model()->index(0, 3));
    QTest::mouseClick(view.table()->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(view.table()->viewport(), Qt::LeftButton, {}, rect.center());
    ASSERT_EQ(range.count(), 1);
    EXPECT_EQ(range[0][0].toLongLong(), -500);
    EXPECT_EQ(range[0][1].toLongLong(), 1500);
    ASSERT_EQ(activated.count(), 1);
    const EventRef kA9 = find(*report, EventKind::Kernel, 0);
    EXPECT_EQ(activated[0][0].toUInt(), kA9.track);
    EXPECT_EQ(activated[0][1].toUInt(), kA9.index);
    // Short events get at least 500 ns on each side: kB [500, 700] -> [0, 1200]; long ones a
    // quarter of their length: the big track's events are at most 1000 ns, so use a copy of
    // the rule on a 4000 ns event of a hand-built report.
    const auto [t0, t1] = EventsView::zoomRangeFor(*report, find(*report, EventKind::Kernel, 500));
    EXPECT_EQ(t0, 0);
    EXPECT_EQ(t1, 1200);
    ReportBuilder b;
    KernelExec k;
    k.start = 10'000;
    k.end = 14'000;
    b.add(k);
    auto longReport = b.finish();
    const auto [l0, l1] = EventsView::zoomRangeFor(*longReport, {0, 0});
    EXPECT_EQ(l0, 9'000);
    EXPECT_EQ(l1, 15'000);
}

TEST_F(AnalysisGui, SelectionElsewhereSelectsRowAndShowsDetails) {
    QMainWindow window;
    AnalysisDocks docks(&window, report);
    docks.events()->showKind(EventKind::Kernel);
    const EventRef kB = find(*report, EventKind::Kernel, 500);
    docks.selectEvent(kB.track, kB.index);
    const QModelIndex current = docks.events()->table()->currentIndex();
    ASSERT_TRUE(current.isValid());
    EXPECT_EQ(current.row(), 3);  // by start: 0, 200, 300, 500
    EXPECT_EQ(docks.details()->tree()->topLevelItemCount(),
              static_cast<int>(docks.details()->fields().size()));
    EXPECT_EQ(analysis::detailValue(docks.details()->fields(), "Grid"), "8 x 2 x 1");
    EXPECT_EQ(analysis::detailValue(docks.details()->fields(), "Launched by"),
              "cudaLaunchKernel on Thread 2 (main) at 400 ns");
    // Selecting a row in the table selects the event everywhere.
    QSignalSpy selected(docks.selection(), &SelectionModel::eventSelected);
    docks.events()->table()->selectRow(1);
    ASSERT_EQ(selected.count(), 1);
    EXPECT_EQ(docks.selection()->selectedEvent(), find(*report, EventKind::Kernel, 200));
    EXPECT_EQ(analysis::detailValue(docks.details()->fields(), "Correlation ID"), "1");
    // An API call is not among the kernels: the view follows it to its thread's API row.
    const EventRef api = find(*report, EventKind::CudaApi, 400);
    docks.selectEvent(api.track, api.index);
    EXPECT_EQ(docks.events()->model()->query()->tracks(), (std::vector<uint32_t>{api.track}));
    ASSERT_TRUE(docks.events()->table()->currentIndex().isValid());
    EXPECT_EQ(docks.events()->model()->eventAt(docks.events()->table()->currentIndex().row()), api);
    EXPECT_EQ(docks.events()->model()->rowCount(), 6);  // c6 [50], c1 [100] ... c5 [430]
    EXPECT_EQ(docks.events()->table()->currentIndex().row(), 4);
}

TEST_F(AnalysisGui, CorrelationHighlightsApiCallAndKernel) {
    SelectionModel selection(report);
    QSignalSpy highlights(&selection, &SelectionModel::highlightsChanged);
    const EventRef api = find(*report, EventKind::CudaApi, 400),
                   kB = find(*report, EventKind::Kernel, 500);
    selection.selectEvent(api.track, api.index);
    ASSERT_EQ(highlights.count(), 1);
    auto related = highlights[0][0].value<analysis::CorrelatedEvents>();
    ASSERT_EQ(related.gpuOps.size(), 1u);
    EXPECT_EQ(related.gpuOps[0], kB);
    ASSERT_EQ(related.links.size(), 1u);
    selection.selectEvent(kB.track, kB.index);
    related = highlights[1][0].value<analysis::CorrelatedEvents>();
    ASSERT_EQ(related.apiCalls.size(), 1u);
    EXPECT_EQ(related.apiCalls[0], api);
    selection.clearSelectedEvent();
    EXPECT_TRUE(highlights[2][0].value<analysis::CorrelatedEvents>().empty());
}

TEST_F(AnalysisGui, FindWalksMatchesAndMasksNames) {
    FindBar bar(report);
    QSignalSpy found(&bar, &FindBar::eventFound);
    QSignalSpy filter(&bar, &FindBar::nameFilterChanged);
    bar.edit()->setText(QStringLiteral("kA"));
    EXPECT_GE(filter.count(), 1);
    bar.findNext();
    bar.findNext();
    bar.findPrevious();
    bar.findPrevious();  // wraps to the last match
    ASSERT_EQ(found.count(), 4);
    EXPECT_EQ(bar.matchCount(), 3u);  // kA at 0 (GPU 1), 200, 300
    auto startOf = [&](int k) {
        const Track& t = report->tracks[found[k][0].toUInt()];
        return t.start[found[k][1].toUInt()];
    };
    EXPECT_EQ(startOf(0), 0);
    EXPECT_EQ(startOf(1), 200);
    EXPECT_EQ(startOf(2), 0);
    EXPECT_EQ(startOf(3), 300);
    EXPECT_EQ(bar.statusLabel()->text(), QStringLiteral("3 of 3"));
    const uint32_t kA = *report->strings.find("kA"), kB = *report->strings.find("kB");
    EXPECT_TRUE(bar.matches(kB));  // mode Off: everything matches
    bar.modeBox()->setCurrentIndex(1);
    EXPECT_EQ(bar.filterMode(), FindBar::FilterMode::Dim);
    EXPECT_TRUE(bar.matches(kA));
    EXPECT_FALSE(bar.matches(kB));
    bar.regexBox()->setChecked(true);
    bar.edit()->setText(QStringLiteral("k[AB]$"));
    EXPECT_TRUE(bar.matches(kB));
}

TEST_F(AnalysisGui, StatsDockRunsTheCliReports) {
    StatsDock dock(report);
    QSignalSpy ready(&dock, &StatsDock::tableReady);
    dock.setReport(QStringLiteral("cuda_gpu_kern_sum"));
    while (dock.model()->table().name != "cuda_gpu_kern_sum") ASSERT_TRUE(ready.wait(5000));
    ASSERT_EQ(dock.model()->rowCount(), 2);  // kA (3 instances), kB
    const int nameCol = dock.model()->table().findColumn("Name");
    const int countCol = dock.model()->table().findColumn("Instances");
    ASSERT_GE(nameCol, 0);
    ASSERT_GE(countCol, 0);
    EXPECT_EQ(dock.model()->data(dock.model()->index(0, nameCol)).toString(), QStringLiteral("kA"));
    EXPECT_EQ(dock.model()
                  ->data(dock.model()->index(0, countCol), StatsTableModel::SortRole)
                  .toLongLong(),
              3);
    EXPECT_TRUE(dock.tsv().startsWith(QStringLiteral("Time (%)\t")));
    // Selection scope: only kernels inside [490, 710] -> kB alone.
    ready.clear();
    dock.setSelection(490, 710);
    dock.setSelectionScope(true);
    ASSERT_TRUE(ready.wait(5000));
    ASSERT_EQ(dock.model()->rowCount(), 1);
    EXPECT_EQ(dock.model()->data(dock.model()->index(0, nameCol)).toString(), QStringLiteral("kB"));
}

TEST_F(AnalysisGui, LargeTrackOpensAndScrollsToTheEnd) {
    auto big = test::makeBigKernelTrack(1'000'000, 50);
    EventsView view(big);
    view.resize(900, 500);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.showTrack(0);
    ASSERT_EQ(view.model()->rowCount(), 1'000'000);
    view.table()->sortByColumn(1, Qt::DescendingOrder);
    view.table()->scrollToBottom();
    QApplication::processEvents();
    EXPECT_EQ(
        view.model()->data(view.model()->index(999'999, 1), EventsModel::ValueRole).toLongLong(),
        1);
    EXPECT_EQ(view.model()->data(view.model()->index(0, 1), EventsModel::ValueRole).toLongLong(),
              1000);
}

}  // namespace
}  // namespace sl::viewer
