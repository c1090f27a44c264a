// The compare tab under Xvfb: synchronized zoom and pan, alignment, the diff table and the
// double-click that selects a diff item's instances in both timelines.
#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "model/rep/RepWriter.h"
#if SIGHTLINE_HAVE_IMPORT
#include "model/import/OpenAny.h"
#endif
#include "tests/compare/CompareFixture.h"
#include "viewer/analysis/StatsDock.h"
#include "viewer/compare/CompareAlignment.h"
#include "viewer/compare/CompareTab.h"
#include "viewer/compare/InstanceOutlines.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/MainWindow.h"

namespace sl::viewer {
namespace {

struct Harness {
    Harness() : tab({test::makeBaselineReport(), test::makeComparisonReport()}) {
        tab.resize(1400, 1000);
        tab.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&tab));
    }
    ViewState& base() { return tab.baselineTimeline()->view(); }
    ViewState& comp() { return tab.comparisonTimeline()->view(); }
    // The diff row whose Name column is `name`.
    int rowOf(const std::string& name) const {
        const analysis::Table& t = tab.diffModel()->table();
        const auto& names = t.columns[static_cast<size_t>(t.findColumn("Name"))].texts;
        for (size_t r = 0; r < names.size(); ++r)
            if (names[r] == name) return static_cast<int>(r);
        return -1;
    }
    CompareTab tab;
};

TEST(CompareTab, SessionStartAlignmentSharesOneAxis) {
    Harness h;
    EXPECT_EQ(h.tab.anchors().baseline, 1000);
    EXPECT_EQ(h.tab.anchors().comparison, 5000);
    EXPECT_EQ(h.base().origin(), 1000);
    EXPECT_EQ(h.comp().origin(), 5000);
    // Both show the union of the two reports on the shared axis: [10, 900] after the origins.
    EXPECT_EQ(h.base().bounds(), (TimeRange{1010, 1900}));
    EXPECT_EQ(h.comp().bounds(), (TimeRange{5010, 5900}));
}

TEST(CompareTab, ZoomAndPanFollowEachOther) {
    Harness h;
    h.base().setRange(1200, 1500);
    EXPECT_EQ(h.comp().range(), (TimeRange{5200, 5500}));
    h.comp().setRange(5300, 5400);
    EXPECT_EQ(h.base().range(), (TimeRange{1300, 1400}));
    h.base().pan(50);
    EXPECT_EQ(h.base().range(), (TimeRange{1350, 1450}));
    EXPECT_EQ(h.comp().range(), (TimeRange{5350, 5450}));
    // Backspace in one view goes back in both; the follower records no history of its own.
    ASSERT_TRUE(h.base().back());
    EXPECT_EQ(h.comp().range().start - 5000, h.base().range().start - 1000);
    EXPECT_EQ(h.comp().range().end - 5000, h.base().range().end - 1000);
}

TEST(CompareTab, AlignAtNthNvtxInstanceFromTheControls) {
    Harness h;
    ASSERT_EQ(h.tab.alignBox()->count(), 2);  // "Session start" and the one common range, "step"
    EXPECT_EQ(h.tab.alignBox()->itemText(1), "step");
    EXPECT_FALSE(h.tab.instanceBox()->isEnabled());
    h.tab.alignBox()->setCurrentIndex(1);
    EXPECT_TRUE(h.tab.instanceBox()->isEnabled());
    EXPECT_EQ(h.tab.anchors().baseline, 1100);
    EXPECT_EQ(h.tab.anchors().comparison, 5200);
    h.tab.instanceBox()->setValue(2);
    EXPECT_EQ(h.tab.anchors().baseline, 1400);
    EXPECT_EQ(h.tab.anchors().comparison, 5600);
    EXPECT_EQ(h.base().origin(), 1400);
    EXPECT_EQ(h.comp().origin(), 5600);
    EXPECT_EQ(h.tab.baselineTimeline()->scene()->originLabel(), "0 = step #2");
    EXPECT_EQ(h.tab.comparisonTimeline()->scene()->originLabel(), "0 = step #2");
    h.base().setRange(1400, 1600);
    EXPECT_EQ(h.comp().range(), (TimeRange{5600, 5800}));

    // The comparison has only two "step" ranges: instance 3 is refused and nothing moves.
    h.tab.instanceBox()->setValue(3);
    EXPECT_EQ(h.tab.anchors().baseline, 1400);
    EXPECT_EQ(h.tab.anchors().comparison, 5600);
    EXPECT_EQ(h.tab.alignError(),
              "Comparison: NVTX range 'step' has 2 instance(s) in this report, no instance 3");
    EXPECT_FALSE(h.tab.align("nope", 1));
    EXPECT_EQ(h.tab.alignError(),
              "Baseline: NVTX range 'nope' has 0 instance(s) in this report, no instance 1");
    ASSERT_TRUE(h.tab.align(QString(), 1));
    EXPECT_EQ(h.tab.comparisonTimeline()->scene()->originLabel(), "0 = session start");
    EXPECT_EQ(h.tab.anchors().baseline, 1000);
    EXPECT_EQ(h.tab.anchors().comparison, 5000);
}

TEST(CompareTab, DiffTableHasTheKnownDeltas) {
    Harness h;
    const analysis::Table& t = h.tab.diffModel()->table();
    ASSERT_EQ(h.tab.diffModel()->rowCount(), 6);
    const auto& names = t.columns[static_cast<size_t>(t.findColumn("Name"))].texts;
    const auto& deltas = t.columns[static_cast<size_t>(t.findColumn("Delta"))].ints;
    const auto& cats = t.columns[static_cast<size_t>(t.findColumn("Category"))].texts;
    EXPECT_EQ(names,
              (std::vector<std::string>{"init", "warmup", "kA", "kB", "cudaLaunchKernel", "step"}));
    EXPECT_EQ(deltas, (std::vector<int64_t>{90, -80, -50, 50, -10, 0}));
    EXPECT_EQ(cats, (std::vector<std::string>{"nvtx", "nvtx", "kernel", "kernel", "api", "nvtx"}));
    const auto& countA = t.columns[static_cast<size_t>(t.findColumn("Count A"))].ints;
    const auto& countB = t.columns[static_cast<size_t>(t.findColumn("Count B"))].ints;
    EXPECT_EQ(countA, (std::vector<int64_t>{0, 1, 2, 0, 2, 3}));
    EXPECT_EQ(countB, (std::vector<int64_t>{1, 0, 1, 1, 1, 2}));
    // The view shows the model's text: row 2's name column.
    EXPECT_EQ(h.tab.diffModel()->data(h.tab.diffModel()->index(2, t.findColumn("Name"))).toString(),
              "kA");
    const QString summary = h.tab.summaryLabel()->text();
    EXPECT_TRUE(summary.startsWith("Duration (ns): ")) << summary.toStdString();
    EXPECT_TRUE(summary.contains("(+20.0%)")) << summary.toStdString();  // 1000 -> 1200 ns
    EXPECT_TRUE(summary.contains("Kernels: 2 → 2 (+0.0%)")) << summary.toStdString();
}

TEST(CompareTab, DoubleClickSelectsInstancesInBothTimelines) {
    Harness h;
    const int kA = h.rowOf("kA");
    ASSERT_EQ(kA, 2);
    QTableView* v = h.tab.diffView();
    const QRect cell = v->visualRect(h.tab.diffModel()->index(kA, 0));
    ASSERT_TRUE(cell.isValid());
    // Item views emit doubleClicked only for the index pressed just before, as with a real mouse.
    QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseDClick(v->viewport(), Qt::LeftButton, {}, cell.center());
    EXPECT_EQ(h.base().selection(), (TimeRange{1150, 1550}));
    EXPECT_EQ(h.comp().selection(), (TimeRange{5250, 5400}));
    // Zoomed to the union on the shared axis, [150, 550] padded by 20 ns on each side.
    EXPECT_EQ(h.base().range(), (TimeRange{1130, 1570}));
    EXPECT_EQ(h.comp().range(), (TimeRange{5130, 5570}));
    // The instances are outlined: two kA kernels on screen in the baseline, one in the comparison.
    ASSERT_EQ(h.tab.baselineInstances().size(), 2u);
    ASSERT_EQ(h.tab.comparisonInstances().size(), 1u);
    QSignalSpy frame(h.tab.baselineTimeline(), &TimelineWidget::frameRendered);
    h.tab.baselineTimeline()->update();
    frame.wait(2000);
    DrawList outlines;
    EXPECT_EQ(outlineInstances(*h.tab.baselineTimeline()->scene(), h.base().range(),
                               h.tab.baselineInstances(), outlines),
              2u);
    EXPECT_EQ(outlines.boxes.size(), 8u);
    DrawList other;
    EXPECT_EQ(outlineInstances(*h.tab.comparisonTimeline()->scene(), h.comp().range(),
                               h.tab.comparisonInstances(), other),
              1u);

    // kB runs only in the comparison: the baseline's selection is cleared.
    h.tab.showItem(h.rowOf("kB"));
    EXPECT_FALSE(h.base().hasSelection());
    EXPECT_EQ(h.comp().selection(), (TimeRange{5650, 5700}));
    EXPECT_EQ(h.comp().range(), (TimeRange{5630, 5720}));
    EXPECT_EQ(h.base().range(), (TimeRange{1630, 1720}));

    h.tab.showItem(h.rowOf("step"));
    EXPECT_EQ(h.base().selection(), (TimeRange{1100, 1900}));
    EXPECT_EQ(h.comp().selection(), (TimeRange{5200, 5900}));
}

TEST(CompareTab, MainWindowOpensACompareTabFromFiles) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString a = dir.filePath("base.rep"), b = dir.filePath("comp.rep");
    ASSERT_TRUE(writeReport(*test::makeBaselineReport(), a.toStdString()).ok());
    ASSERT_TRUE(writeReport(*test::makeComparisonReport(), b.toStdString()).ok());
    MainWindow w;
    w.show();
    CompareTab* tab = w.openCompare(a, b);
    QSignalSpy loaded(tab, &CompareTab::loaded);
    ASSERT_TRUE(loaded.wait(10000));
    EXPECT_EQ(tab->title(), "base.rep ↔ comp.rep");
    EXPECT_EQ(tab->diff().items.size(), 6u);
    EXPECT_EQ(tab->anchors().comparison, 5000);
    EXPECT_EQ(w.findChild<QTabWidget*>()->currentWidget(), tab);
    // View > Show Everything acts on the compare tab's timelines too.
    ViewState& base = tab->baselineTimeline()->view();
    base.setRange(1200, 1300);
    EXPECT_EQ(tab->comparisonTimeline()->view().range(), (TimeRange{5200, 5300}));
    QAction* all = nullptr;
    for (QAction* act : w.findChildren<QAction*>())
        if (act->text() == "Show &Everything") all = act;
    ASSERT_NE(all, nullptr);
    all->trigger();
    EXPECT_EQ(base.range(), base.bounds());
    EXPECT_EQ(tab->comparisonTimeline()->view().range(), (TimeRange{5010, 5900}));

    CompareTab* bad = w.openCompare(a, dir.filePath("missing.rep"));
    QSignalSpy failed(bad, &CompareTab::failed);
    ASSERT_TRUE(failed.wait(10000));
    EXPECT_TRUE(failed.at(0).at(0).toString().contains("missing.rep"))
        << failed.at(0).at(0).toString().toStdString();
}

#if SIGHTLINE_HAVE_IMPORT
// Two real Kineto traces (HTA's trace_compare base and test): the tab's diff is exactly what
// the CLI's diff code gives for the same files, and double-clicking the top row selects a span
// in each timeline that holds the item's instances.
TEST(CompareTab, RealKinetoTracesGiveTheCliDiff) {
    const std::string dir = std::string(SIGHTLINE_TEST_DATA) + "/compare/";
    const std::string a = dir + "hta_compare_base.json.gz", b = dir + "hta_compare_test.json.gz";
    auto ra = openAnyReport(a, {});
    auto rb = openAnyReport(b, {});
    ASSERT_TRUE(ra.ok()) << ra.error();
    ASSERT_TRUE(rb.ok()) << rb.error();
    const analysis::DiffResult cli = analysis::diffReports(**ra, **rb);
    ASSERT_FALSE(cli.items.empty());

    MainWindow w;
    w.show();
    CompareTab* tab = w.openCompare(QString::fromStdString(a), QString::fromStdString(b));
    QSignalSpy loaded(tab, &CompareTab::loaded);
    ASSERT_TRUE(loaded.wait(20000));
    ASSERT_EQ(tab->diff().items.size(), cli.items.size());
    for (size_t i = 0; i < cli.items.size(); ++i) {
        EXPECT_EQ(tab->diff().items[i].name, cli.items[i].name);
        EXPECT_EQ(tab->diff().items[i].delta(), cli.items[i].delta());
        EXPECT_EQ(tab->diff().items[i].baseline.count, cli.items[i].baseline.count);
        EXPECT_EQ(tab->diff().items[i].comparison.count, cli.items[i].comparison.count);
    }
    EXPECT_EQ(static_cast<size_t>(tab->diffModel()->rowCount()), cli.items.size());

    tab->showItem(0);
    const analysis::DiffItem& top = cli.items[0];
    const InstanceSpan sa = itemInstances(**ra, top.category, top.name);
    const InstanceSpan sb = itemInstances(**rb, top.category, top.name);
    EXPECT_EQ(sa.count, top.baseline.count);
    EXPECT_EQ(sb.count, top.comparison.count);
    ViewState& va = tab->baselineTimeline()->view();
    ViewState& vb = tab->comparisonTimeline()->view();
    if (sa.count > 0)
        EXPECT_EQ(va.selection(), (TimeRange{sa.start, sa.end}));
    else
        EXPECT_FALSE(va.hasSelection());
    if (sb.count > 0)
        EXPECT_EQ(vb.selection(), (TimeRange{sb.start, sb.end}));
    else
        EXPECT_FALSE(vb.hasSelection());
    // Still synchronized on the shared axis after the zoom.
    EXPECT_EQ(va.range().start - tab->anchors().baseline,
              vb.range().start - tab->anchors().comparison);
    EXPECT_EQ(va.range().end - tab->anchors().baseline, vb.range().end - tab->anchors().comparison);
}
#endif

}  // namespace
}  // namespace sl::viewer
