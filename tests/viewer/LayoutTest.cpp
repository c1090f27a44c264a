// The main window's layout puts the timeline first (issue #21, item 1): with a report open the
// timeline widget takes at least 70% of the window at the usual sizes, every panel has an entry
// in the View menu (a closed one comes back there), View > Reset Layout restores the default,
// and the layout is saved per user with QSettings and restored at start. Real widgets under
// Xvfb, with the H200 report of tests/data/gpu open.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QTest>

#include "tests/viewer/WaitUntil.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

using namespace sl::viewer;

namespace {

QString fixture() {
    return QStringLiteral(SIGHTLINE_TEST_DATA "/gpu/cuda_workload_h200.rep");
}

// Loading a real report under Xvfb's software GL can take a while.
template <class Pred>
bool waitUntil(Pred pred, int timeoutMs = 20000) {
    return sl::test::waitUntil(pred, timeoutMs);
}

// Each test has a settings organization of its own, empty at the start and removed at the end:
// the user's settings (and the other tests' window state) are never read or written.
class Layout : public ::testing::Test {
protected:
    void SetUp() override {
        m_org = QCoreApplication::organizationName();
        QCoreApplication::setOrganizationName(QStringLiteral("SightlineLayoutTest"));
        QSettings().clear();
    }
    void TearDown() override {
        QSettings().clear();
        QCoreApplication::setOrganizationName(m_org);
    }

    // Shows `w` at `size` and opens the H200 report in it; null when it does not load.
    static ReportTab* openAt(MainWindow& w, QSize size = {1400, 900}) {
        w.resize(size);
        w.show();
        if (!QTest::qWaitForWindowExposed(&w)) return nullptr;
        ReportTab* tab = w.openReport(fixture());
        if (!waitUntil([tab] { return tab->state() != ReportTab::State::Loading; })) return nullptr;
        if (tab->state() != ReportTab::State::Ready) return nullptr;
        QTest::qWait(100);  // the docks' sizes settle after the first layout pass
        return tab;
    }

    static double timelineShare(const MainWindow& w, const ReportTab* tab) {
        const QWidget* t = tab->timeline();
        return double(t->width()) * t->height() / (double(w.width()) * w.height());
    }

    static QMenu* viewMenu(MainWindow& w) {
        for (QAction* a : w.menuBar()->actions())
            if (a->menu() && a->text() == QStringLiteral("&View")) return a->menu();
        return nullptr;
    }

    // The View menu's actions as the user sees them (its dynamic part is filled when it opens).
    static QList<QAction*> viewActions(MainWindow& w) {
        QMenu* view = viewMenu(w);
        if (!view) return {};
        emit view->aboutToShow();
        return view->actions();
    }

    static QAction* viewAction(MainWindow& w, const QString& text) {
        for (QAction* a : viewActions(w))
            if (QString(a->text()).remove('&') == text) return a;
        return nullptr;
    }

    static QMainWindow* panels(const ReportTab* tab) {
        return qobject_cast<QMainWindow*>(tab->analysis()->docks()->eventsDock()->parentWidget());
    }

    QString m_org;
};

// Where each dock of the report is (area, floating, shown) and which tab of the bottom pane is
// on top, to compare a layout with the default.
QStringList describe(QMainWindow* panels) {
    QStringList out;
    for (QDockWidget* d : panels->findChildren<QDockWidget*>()) {
        QStringList tabbed;
        for (QDockWidget* o : panels->tabifiedDockWidgets(d)) tabbed << o->objectName();
        tabbed.sort();
        out << QStringLiteral("%1 area=%2 floating=%3 hidden=%4 with=%5")
                   .arg(d->objectName())
                   .arg(int(panels->dockWidgetArea(d)))
                   .arg(d->isFloating())
                   .arg(d->isHidden())
                   .arg(tabbed.join('+'));
    }
    out.sort();
    return out;
}

TEST_F(Layout, TimelineTakesSeventyPercentOfTheWindowAtTheUsualSizes) {
    for (const QSize size : {QSize(1400, 900), QSize(1600, 900), QSize(1920, 1080)}) {
        SCOPED_TRACE(QStringLiteral("%1x%2").arg(size.width()).arg(size.height()).toStdString());
        MainWindow w;
        ReportTab* tab = openAt(w, size);
        ASSERT_NE(tab, nullptr);
        ASSERT_EQ(w.size(), size);
        EXPECT_GE(timelineShare(w, tab), 0.70)
            << "timeline " << tab->timeline()->width() << "x" << tab->timeline()->height();
        // The bottom docks are tabbed together in one pane, with Events on top.
        AnalysisDocks* docks = tab->analysis()->docks();
        QMainWindow* p = panels(tab);
        EXPECT_TRUE(docks->eventsDock()->isVisible());
        EXPECT_EQ(p->dockWidgetArea(docks->eventsDock()), Qt::BottomDockWidgetArea);
        EXPECT_EQ(p->tabifiedDockWidgets(docks->eventsDock()).size(), 4)  // + CPU sampling
            << describe(p).join('\n').toStdString();
    }
}

TEST_F(Layout, EveryDockHasAViewMenuEntryAndAClosedOneComesBack) {
    MainWindow w;
    ReportTab* tab = openAt(w);
    ASSERT_NE(tab, nullptr);
    const QList<QAction*> actions = viewActions(w);
    const QList<QDockWidget*> docks = w.findChildren<QDockWidget*>();
    EXPECT_GE(docks.size(), 8);  // Find, 5 bottom tabs, Details, Summary
    for (QDockWidget* d : docks)
        EXPECT_TRUE(actions.contains(d->toggleViewAction())) << d->windowTitle().toStdString();

    AnalysisDocks* a = tab->analysis()->docks();
    for (QDockWidget* d : {a->eventsDock(), a->detailsDock(), a->findDock()}) {
        SCOPED_TRACE(d->windowTitle().toStdString());
        if (!d->isVisible()) {  // hidden by default: the menu shows it
            QAction* show = viewAction(w, d->windowTitle());
            ASSERT_NE(show, nullptr);
            show->trigger();
            ASSERT_TRUE(d->isVisible());
        }
        d->close();
        ASSERT_FALSE(d->isVisible());
        QAction* reopen = viewAction(w, d->windowTitle());
        ASSERT_NE(reopen, nullptr);
        EXPECT_FALSE(reopen->isChecked());
        reopen->trigger();
        EXPECT_TRUE(d->isVisible());
    }
}

TEST_F(Layout, ResetLayoutRestoresTheDefaultAfterDocksWereMovedAndClosed) {
    MainWindow w;
    ReportTab* tab = openAt(w);
    ASSERT_NE(tab, nullptr);
    QMainWindow* p = panels(tab);
    const QStringList byDefault = describe(p);
    const double share = timelineShare(w, tab);

    AnalysisDocks* a = tab->analysis()->docks();
    p->addDockWidget(Qt::LeftDockWidgetArea, a->eventsDock());
    a->detailsDock()->show();
    p->addDockWidget(Qt::TopDockWidgetArea, a->detailsDock());
    a->findDock()->close();
    a->findDock()->show();
    p->findChild<QDockWidget*>(QStringLiteral("StatsDock"))->setFloating(true);
    for (QDockWidget* d : p->findChildren<QDockWidget*>())
        if (d->windowTitle().startsWith(QStringLiteral("Insights"))) d->close();
    QTest::qWait(50);
    ASSERT_NE(describe(p), byDefault);

    QAction* reset = viewAction(w, QStringLiteral("Reset Layout"));
    ASSERT_NE(reset, nullptr);
    reset->trigger();
    QTest::qWait(100);
    EXPECT_EQ(describe(p), byDefault) << describe(p).join('\n').toStdString();
    EXPECT_NEAR(timelineShare(w, tab), share, 0.01);
}

TEST_F(Layout, SavedLayoutRoundTripsThroughQSettings) {
    {
        MainWindow w;
        ReportTab* tab = openAt(w);
        ASSERT_NE(tab, nullptr);
        AnalysisDocks* a = tab->analysis()->docks();
        a->eventsDock()->close();
        a->detailsDock()->show();
        panels(tab)->addDockWidget(Qt::LeftDockWidgetArea, a->detailsDock());
        w.close();  // saves the layout
    }
    MainWindow w;
    ReportTab* tab = openAt(w);
    ASSERT_NE(tab, nullptr);
    AnalysisDocks* a = tab->analysis()->docks();
    EXPECT_FALSE(a->eventsDock()->isVisible());
    EXPECT_TRUE(a->detailsDock()->isVisible());
    EXPECT_EQ(panels(tab)->dockWidgetArea(a->detailsDock()), Qt::LeftDockWidgetArea);
}

TEST_F(Layout, LayoutSavedWithAnotherVersionIsDropped) {
    {
        MainWindow w;
        ReportTab* tab = openAt(w);
        ASSERT_NE(tab, nullptr);
        tab->analysis()->docks()->eventsDock()->close();
        w.close();
    }
    // The same keys as written by a build with another layout version.
    QSettings s;
    const QStringList keys = s.allKeys().filter(QStringLiteral("layout"));
    ASSERT_FALSE(keys.isEmpty()) << s.allKeys().join(',').toStdString();
    for (const QString& k : keys) {
        QByteArray state = s.value(k).toByteArray();
        ASSERT_GE(state.size(), 8);
        // QMainWindow::saveState: a 4-byte marker, then the 4-byte version (big endian).
        state[7] = char(state[7] + 1);
        s.setValue(k, state);
    }
    s.sync();
    MainWindow w;
    ReportTab* tab = openAt(w);
    ASSERT_NE(tab, nullptr);
    EXPECT_TRUE(tab->analysis()->docks()->eventsDock()->isVisible());
    EXPECT_GE(timelineShare(w, tab), 0.70);
}

}  // namespace
