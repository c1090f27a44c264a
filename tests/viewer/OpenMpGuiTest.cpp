// The OpenMP rows with real widgets under Xvfb (tests/viewer/OpenMpFixture.h): the OpenMP rows
// are laid out under their threads, three lanes high on the main thread; hovering the loop in
// the third lane shows its construct and iterations; clicking it in the main window fills
// Event details and the Details panel. SIGHTLINE_SHOT_DIR: also writes the fixture there as
// openmp.rep (to look at it in the app).
#include <gtest/gtest.h>

#include <QApplication>
#include <QMouseEvent>
#include <QTest>
#include <cstdlib>

#include "model/rep/RepWriter.h"
#include "tests/viewer/OpenMpFixture.h"
#include "tests/viewer/ViewerFixture.h"
#include "tests/viewer/WaitUntil.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/DetailsPanel.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/timeline/TrackRow.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

using namespace sl;
using namespace sl::viewer;

namespace {

constexpr int64_t kOrigin = 1'000'000'000, kMs = 1'000'000;
const std::string kMainRow = "Process 300 (omp_app)/Thread 300 (omp_app)/OpenMP";

void hover(QWidget& w, QPoint pos) {
    QMouseEvent e(QEvent::MouseMove, QPointF(pos), w.mapToGlobal(QPointF(pos)), Qt::NoButton,
                  Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &e);
}

const LayoutRow* laidOut(TimelineWidget& w, const std::string& path) {
    Row* row = w.scene()->root().find(path);
    if (!row) return nullptr;
    for (const LayoutRow& lr : w.scene()->layout())
        if (lr.row == row) return &lr;
    return nullptr;
}

// Where the main thread's event at `ms` in `lane` is drawn.
QPoint pointAt(TimelineWidget& w, double ms, int lane) {
    const LayoutRow* lr = laidOut(w, kMainRow);
    EXPECT_NE(lr, nullptr) << kMainRow;
    if (!lr) return {};
    const TimeRange r = w.view().range();
    const double x = w.scene()->eventX() +
                     static_cast<double>(kOrigin + static_cast<int64_t>(ms * kMs) - r.start) / w.scene()->nsPerPixel(r);
    const double y = lr->y + TrackRow::kPad + lane * TrackRow::kLaneHeight + 6;
    return {static_cast<int>(x), static_cast<int>(y)};
}

TEST(OpenMpGui, RowsLaidOutAndHoverShowsTheLoop) {
    auto report = test::makeOpenMpViewerReport();
    TimelineWidget w;
    w.setScene(std::make_unique<TimelineScene>(report, buildRowTree(*report)));
    w.resize(1600, 900);
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    ASSERT_TRUE(test::waitUntil([&] { return w.frameCount() > 0; }, 10000));
    ASSERT_TRUE(w.glError().isEmpty()) << w.glError().toStdString();

    const LayoutRow* main = laidOut(w, kMainRow);
    ASSERT_NE(main, nullptr);
    // Three lanes: parallel > implicit task > loop.
    EXPECT_GE(main->h, 3 * TrackRow::kLaneHeight);
    const LayoutRow* worker = laidOut(w, "Process 300 (omp_app)/Thread 301/OpenMP");
    ASSERT_NE(worker, nullptr);
    EXPECT_GT(worker->y, main->y);
    // The row headers drawn name the rows.
    DrawList out;
    w.scene()->build(w.view().range(), out);
    int headers = 0;
    for (const DrawLabel& l : out.labels)
        if (l.x < TimelineScene::kHeaderWidth && l.text.find("OpenMP") != std::string::npos) ++headers;
    EXPECT_EQ(headers, 3);

    QString text;
    QObject::connect(&w, &TimelineWidget::hovered, [&text](const QString& t) { text = t; });
    hover(w, pointAt(w, 3, 2));
    EXPECT_TRUE(text.startsWith("loop\nStart: 1.200 ms\nDuration: ")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nConstruct: worksharing (loop)")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nIterations: 3,000")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nParallel region: 1")) << text.toStdString();
    hover(w, pointAt(w, 6, 2));
    EXPECT_TRUE(text.startsWith("implicit barrier (worksharing)\n")) << text.toStdString();
    hover(w, pointAt(w, 3, 0));
    EXPECT_TRUE(text.startsWith("parallel\n")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nThreads requested: 3")) << text.toStdString();
}

TEST(OpenMpGui, ClickingALoopInTheMainWindowShowsItsDetails) {
    test::ViewerTempDir dir;
    auto report = test::makeOpenMpViewerReport();
    const std::string path = dir.file("openmp.rep");
    ASSERT_TRUE(writeReport(*report, path).ok());
    if (const char* shots = std::getenv("SIGHTLINE_SHOT_DIR")) {
        ASSERT_TRUE(writeReport(*report, std::string(shots) + "/openmp.rep").ok());
    }
    MainWindow mw;
    mw.resize(1600, 900);
    mw.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&mw));
    ReportTab* tab = mw.openReport(QString::fromStdString(path));
    ASSERT_TRUE(test::waitUntil([&] { return tab->state() != ReportTab::State::Loading; }, 20000));
    ASSERT_EQ(tab->state(), ReportTab::State::Ready) << tab->errorMessage().toStdString();
    EXPECT_EQ(tab->report()->eventCount(EventKind::OpenMp), 16u);  // read back from the .rep
    TimelineWidget* t = tab->timeline();
    ASSERT_NE(t, nullptr);
    ASSERT_TRUE(test::waitUntil([&] { return t->frameCount() > 0; }, 10000));

    QString clicked;
    QObject::connect(t, &TimelineWidget::eventClicked, [&clicked](const QString& s) { clicked = s; });
    const QPoint loop = pointAt(*t, 3, 2);
    hover(*t, loop);
    QTest::mouseClick(t, Qt::LeftButton, {}, loop);
    EXPECT_TRUE(clicked.startsWith("loop\n")) << clicked.toStdString();
    EXPECT_TRUE(clicked.contains("\nIterations: 3,000")) << clicked.toStdString();
    // The Details panel (the model's event details).
    const QString details = tab->analysis()->docks()->details()->text();
    EXPECT_TRUE(details.contains("Construct\tworksharing (loop)")) << details.toStdString();
    EXPECT_TRUE(details.contains("Iterations\t3000")) << details.toStdString();
    EXPECT_TRUE(details.contains("Code address\t0x401b00")) << details.toStdString();
}

}  // namespace
