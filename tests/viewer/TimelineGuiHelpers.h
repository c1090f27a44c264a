#pragma once
// Helpers shared by the GUI tests of the viewer fixtures (MpiGuiTest.cpp, OpenMpGuiTest.cpp),
// under Xvfb: a timeline shown, where a row is laid out and where a time is drawn, the pointer
// moved or clicked there, and a report opened in the main window.
#include <gtest/gtest.h>

#include <QApplication>
#include <QMouseEvent>
#include <QTest>
#include <cstdlib>
#include <memory>
#include <string>

#include "model/rep/RepWriter.h"
#include "tests/viewer/ViewerFixture.h"
#include "tests/viewer/WaitUntil.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

namespace sl::test {

// Shows `report` in `w` (1600 x 900) and waits for its first frame.
inline void showTimeline(viewer::TimelineWidget& w, const std::shared_ptr<Report>& report) {
    w.setScene(std::make_unique<viewer::TimelineScene>(report, viewer::buildRowTree(*report)));
    w.resize(1600, 900);
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    ASSERT_TRUE(waitUntil([&] { return w.frameCount() > 0; }, 10000));
    ASSERT_TRUE(w.glError().isEmpty()) << w.glError().toStdString();
}

inline void hover(QWidget& w, QPoint pos) {
    QMouseEvent e(QEvent::MouseMove, QPointF(pos), w.mapToGlobal(QPointF(pos)), Qt::NoButton,
                  Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &e);
}

// Hovers `pos` (as the pointer gets there before the click), clicks there (the tab's
// selection follows) and returns the tooltip the pointer showed there.
inline QString clickAt(viewer::TimelineWidget& t, QPoint pos) {
    QString tooltip;
    const auto connection =
        QObject::connect(&t, &viewer::TimelineWidget::hovered, [&tooltip](const QString& s) { tooltip = s; });
    hover(t, pos);
    QObject::disconnect(connection);
    QTest::mouseClick(&t, Qt::LeftButton, {}, pos);
    return tooltip;
}

// The laid-out row of `path` in the row tree; null when not laid out.
inline const viewer::LayoutRow* laidOut(viewer::TimelineWidget& w, const std::string& path) {
    viewer::Row* row = w.scene()->root().find(path);
    if (!row) return nullptr;
    for (const viewer::LayoutRow& lr : w.scene()->layout())
        if (lr.row == row) return &lr;
    return nullptr;
}

// The x where time `t` (ns on the report clock) is drawn in the current view.
inline double timeX(viewer::TimelineWidget& w, int64_t t) {
    const viewer::TimeRange r = w.view().range();
    return w.scene()->eventX() + static_cast<double>(t - r.start) / w.scene()->nsPerPixel(r);
}

// Writes `report` to `dir` as `name` (and to $SIGHTLINE_SHOT_DIR, to look at it in the app),
// opens it in `mw` (1600 x 900) and waits until it is loaded and its timeline has drawn a
// frame: *tab and *timeline are where it shows.
inline void openInMainWindow(viewer::MainWindow& mw, const Report& report, const ViewerTempDir& dir,
                             const std::string& name, viewer::ReportTab** tab, viewer::TimelineWidget** timeline) {
    const std::string path = dir.file(name);
    ASSERT_TRUE(writeReport(report, path).ok());
    if (const char* shots = std::getenv("SIGHTLINE_SHOT_DIR")) {
        ASSERT_TRUE(writeReport(report, std::string(shots) + "/" + name).ok());
    }
    mw.resize(1600, 900);
    mw.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&mw));
    viewer::ReportTab* t = mw.openReport(QString::fromStdString(path));
    *tab = t;
    ASSERT_TRUE(waitUntil([&] { return t->state() != viewer::ReportTab::State::Loading; }, 20000));
    ASSERT_EQ(t->state(), viewer::ReportTab::State::Ready) << t->errorMessage().toStdString();
    viewer::TimelineWidget* w = t->timeline();
    *timeline = w;
    ASSERT_NE(w, nullptr);
    ASSERT_TRUE(waitUntil([&] { return w->frameCount() > 0; }, 10000));
}

}  // namespace sl::test
