// The compare tab's Insights page under Xvfb: the rules of `analyze` on both reports of a
// crafted pair (tests/analysis-gui/InsightsFixture.h) side by side with their verdicts, and the
// double-click that shows a rule's worst instance in both timelines.
#include <gtest/gtest.h>

#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include "tests/analysis-gui/InsightsFixture.h"
#include "viewer/analysis/StatsDock.h"
#include "viewer/compare/CompareFindings.h"
#include "viewer/compare/CompareTab.h"
#include "viewer/timeline/TimelineWidget.h"

namespace sl::viewer {
namespace {

using test::kMs;

// The baseline synchronizes for 100.98 ms and runs one kernel; the comparison synchronizes for
// 140.98 ms and its second kernel leaves the GPU idle for 560 ms.
struct InsightsHarness {
    InsightsHarness()
        : tab({test::makeInsightsReport(110 * kMs, false),
               test::makeInsightsReport(150 * kMs, true)}) {
        // The rules started in the constructor; their result arrives through the event loop.
        QSignalSpy ready(tab.findings(), &CompareFindings::ready);
        tab.resize(1400, 1000);
        tab.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&tab));
        EXPECT_TRUE(ready.count() > 0 || ready.wait(10000));
    }
    // The cells of the row of `rule`, "|"-joined, as the table shows them.
    QString row(const char* rule) const {
        const StatsTableModel* m = tab.findings()->model();
        for (int r = 0; r < m->rowCount(); ++r) {
            if (m->data(m->index(r, 0)).toString() != QLatin1String(rule)) continue;
            QStringList cells;
            for (int c = 0; c < m->columnCount(); ++c) cells << m->data(m->index(r, c)).toString();
            return cells.join(QLatin1Char('|'));
        }
        return {};
    }
    CompareTab tab;
};

TEST(CompareInsights, FindingsOfBothReportsWithVerdicts) {
    InsightsHarness h;
    const analysis::Table& t = h.tab.findings()->model()->table();
    ASSERT_EQ(t.header(t.columns.size() - 1), "Verdict");
    const auto col = [&](const char* column) -> const analysis::TableColumn& {
        return t.columns[static_cast<size_t>(t.findColumn(column))];
    };
    int sync = -1, gaps = -1;
    for (size_t r = 0; r < t.rowCount(); ++r) {
        if (t.columns[0].texts[r] == "cuda_api_sync") sync = static_cast<int>(r);
        if (t.columns[0].texts[r] == "gpu_gaps") gaps = static_cast<int>(r);
    }
    ASSERT_GE(sync, 0) << h.row("cuda_api_sync").toStdString();
    ASSERT_GE(gaps, 0);
    const auto s = static_cast<size_t>(sync), g = static_cast<size_t>(gaps);
    // More synchronization time in the comparison: worse.
    EXPECT_EQ(col("Baseline Time").ints[s], 100'980'000);
    EXPECT_EQ(col("Comparison Time").ints[s], 140'980'000);
    EXPECT_EQ(col("Delta").ints[s], 40'000'000);
    EXPECT_EQ(col("Verdict").texts[s], "worse");
    // A gap only the comparison has: new.
    EXPECT_EQ(col("Baseline Count").ints[g], 0);
    EXPECT_EQ(col("Comparison Count").ints[g], 1);
    EXPECT_EQ(col("Comparison Time").ints[g], 560 * kMs);
    EXPECT_EQ(col("Verdict").texts[g], "new");
    // Rules that found nothing on either side have no row; each row knows its pair.
    ASSERT_EQ(h.tab.findings()->rows().size(), t.rowCount());
    EXPECT_EQ(h.tab.findings()->rows()[s].rule, "cuda_api_sync");
    for (size_t r = 0; r < t.rowCount(); ++r) EXPECT_NE(t.columns[0].texts[r], "cuda_memcpy_async");
    // What the user sees: the verdict in red, the tab saying how many got worse.
    const QAbstractItemModel* shown = h.tab.findings()->view()->model();
    const QModelIndex verdict = shown->index(sync, shown->columnCount() - 1);
    EXPECT_EQ(shown->data(verdict).toString(), QStringLiteral("worse"));
    EXPECT_EQ(shown->data(verdict, Qt::ForegroundRole).value<QColor>(), QColor(0xc6, 0x28, 0x28));
    int worse = 0;
    for (const auto& p : h.tab.findings()->rows())
        worse +=
            p.change == analysis::FindingChange::Worse || p.change == analysis::FindingChange::New;
    EXPECT_GE(worse, 2);
    EXPECT_EQ(h.tab.bottomTabs()->tabText(1), QStringLiteral("Insights (%1 worse)").arg(worse));
    EXPECT_TRUE(h.tab.findings()->statusLabel()->text().startsWith(
        QStringLiteral("13 rules checked on both reports")))
        << h.tab.findings()->statusLabel()->text().toStdString();
}

TEST(CompareInsights, DoubleClickShowsTheWorstInstanceOfEachSide) {
    InsightsHarness h;
    int sync = -1;
    for (size_t r = 0; r < h.tab.findings()->rows().size(); ++r)
        if (h.tab.findings()->rows()[r].rule == "cuda_api_sync") sync = static_cast<int>(r);
    ASSERT_GE(sync, 0);
    h.tab.bottomTabs()->setCurrentIndex(1);
    QTableView* view = h.tab.findings()->view();
    const QRect rect = view->visualRect(view->model()->index(sync, 0));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    // Each side's synchronization call selected and outlined; both report clocks start at 0.
    EXPECT_EQ(h.tab.baselineTimeline()->view().selection(), (TimeRange{9'020'000, 110 * kMs}));
    EXPECT_EQ(h.tab.comparisonTimeline()->view().selection(), (TimeRange{9'020'000, 150 * kMs}));
    ASSERT_EQ(h.tab.baselineInstances().size(), 1u);
    ASSERT_EQ(h.tab.comparisonInstances().size(), 1u);
    const Report& c = *h.tab.reports().comparison;
    const auto ref = h.tab.comparisonInstances()[0];
    EXPECT_EQ(c.str(c.tracks[ref.track].name[ref.index]), "cudaDeviceSynchronize");
    // Zoomed to both, padded by a quarter: [9.02, 150] ms +- 35.245 ms.
    EXPECT_EQ(h.tab.baselineTimeline()->view().range(),
              (TimeRange{9'020'000 - 35'245'000, 150 * kMs + 35'245'000}));
    EXPECT_EQ(h.tab.comparisonTimeline()->view().range(), h.tab.baselineTimeline()->view().range());
}

}  // namespace
}  // namespace sl::viewer
