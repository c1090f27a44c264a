// The main window at high scale factors (issue #21 item 5). ctest runs this program under Xvfb
// (1920x1080) with QT_SCALE_FACTOR 1, 1.5 and 2: the window opens inside the screen's available
// area (at 2 that is 960x540 logical pixels, smaller than the default 1400x900), also when a
// geometry saved on a larger screen is restored, and with a report open the timeline still
// takes most of it. Real widgets; the H200 report of tests/data/gpu.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QScreen>
#include <QSettings>
#include <QTest>

#include "tests/viewer/WaitUntil.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

using namespace sl::viewer;

namespace {

double scaleFactor() {
    bool ok = false;
    const double f = qEnvironmentVariable("QT_SCALE_FACTOR").toDouble(&ok);
    return ok && f > 0 ? f : 1.0;
}

class HighDpi : public ::testing::Test {
protected:
    void SetUp() override {
        m_org = QCoreApplication::organizationName();
        QCoreApplication::setOrganizationName(QStringLiteral("SightlineHighDpiTest"));
        QSettings().clear();
    }
    void TearDown() override {
        QSettings().clear();
        QCoreApplication::setOrganizationName(m_org);
    }
    QString m_org;
};

QString describe(const QRect& r) {
    return QStringLiteral("%1,%2 %3x%4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

TEST_F(HighDpi, TheScaleFactorApplies) {
    // A guard for the other tests: they prove nothing if the environment did not reach Qt.
    MainWindow w;
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    EXPECT_DOUBLE_EQ(w.devicePixelRatioF(), scaleFactor());
}

TEST_F(HighDpi, TheDefaultWindowOpensInsideTheScreen) {
    MainWindow w;
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    const QRect avail = w.screen()->availableGeometry();
    EXPECT_TRUE(avail.contains(w.geometry()))
        << "window " << describe(w.geometry()).toStdString() << ", screen "
        << describe(avail).toStdString();
}

TEST_F(HighDpi, AGeometrySavedOnALargerScreenIsBroughtInside) {
    {
        MainWindow big;
        big.resize(3000, 2000);
        big.move(500, 400);
        QSettings().setValue("window/geometry", big.saveGeometry());
    }
    MainWindow w;
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    const QRect avail = w.screen()->availableGeometry();
    EXPECT_TRUE(avail.contains(w.geometry()))
        << "window " << describe(w.geometry()).toStdString() << ", screen "
        << describe(avail).toStdString();
}

TEST_F(HighDpi, TheTimelineTakesMostOfTheWindowWithAReportOpen) {
    MainWindow w;
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    ReportTab* tab = w.openReport(QStringLiteral(SIGHTLINE_TEST_DATA "/gpu/cuda_workload_h200.rep"));
    ASSERT_TRUE(sl::test::waitUntil([tab] { return tab->state() != ReportTab::State::Loading; }, 30000));
    ASSERT_EQ(tab->state(), ReportTab::State::Ready);
    QTest::qWait(100);
    const QWidget* t = tab->timeline();
    const double share = double(t->width()) * t->height() / (double(w.width()) * w.height());
    EXPECT_GE(share, 0.60) << "timeline " << t->width() << "x" << t->height() << " in "
                           << w.width() << "x" << w.height();
    RecordProperty("timeline_share", QString::number(share, 'f', 3).toStdString());
}

}  // namespace
