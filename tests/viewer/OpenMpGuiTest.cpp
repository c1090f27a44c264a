// The OpenMP rows with real widgets under Xvfb (tests/viewer/OpenMpFixture.h): the OpenMP rows
// are laid out under their threads, three lanes high on the main thread; hovering the loop in
// the third lane shows its construct and iterations; clicking it in the main window fills
// the Details panel with the same values. SIGHTLINE_SHOT_DIR: also writes the fixture there as
// openmp.rep (to look at it in the app).
#include <gtest/gtest.h>

#include "tests/viewer/OpenMpFixture.h"
#include "tests/viewer/TimelineGuiHelpers.h"
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

using test::hover;  // tests/viewer/TimelineGuiHelpers.h
using test::laidOut;

// Where the main thread's event at `ms` in `lane` is drawn.
QPoint pointAt(TimelineWidget& w, double ms, int lane) {
    const LayoutRow* lr = laidOut(w, kMainRow);
    EXPECT_NE(lr, nullptr) << kMainRow;
    if (!lr) return {};
    const double x = test::timeX(w, kOrigin + static_cast<int64_t>(ms * kMs));
    const double y = lr->y + TrackRow::kPad + lane * TrackRow::kLaneHeight + 6;
    return {static_cast<int>(x), static_cast<int>(y)};
}

TEST(OpenMpGui, RowsLaidOutAndHoverShowsTheLoop) {
    auto report = test::makeOpenMpViewerReport();
    TimelineWidget w;
    ASSERT_NO_FATAL_FAILURE(test::showTimeline(w, report));

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
    EXPECT_TRUE(text.startsWith("loop\n")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nStart: 1.200 ms (1001200000 ns)\nDuration: ")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nConstruct: worksharing (loop)")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nIterations: 3000")) << text.toStdString();
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
    MainWindow mw;
    ReportTab* tab = nullptr;
    TimelineWidget* t = nullptr;
    ASSERT_NO_FATAL_FAILURE(test::openInMainWindow(mw, *report, dir, "openmp.rep", &tab, &t));
    EXPECT_EQ(tab->report()->eventCount(EventKind::OpenMp), 16u);  // read back from the .rep

    const QString tooltip = test::clickAt(*t, pointAt(*t, 3, 2));
    EXPECT_TRUE(tooltip.startsWith("loop\n")) << tooltip.toStdString();
    EXPECT_TRUE(tooltip.contains("\nIterations: 3000")) << tooltip.toStdString();
    // The Details panel: the same formatter, the same values.
    const QString details = tab->analysis()->docks()->details()->text();
    EXPECT_TRUE(details.contains("Construct\tworksharing (loop)")) << details.toStdString();
    EXPECT_TRUE(details.contains("Iterations\t3000")) << details.toStdString();
    EXPECT_TRUE(details.contains("Code address\t0x401b00")) << details.toStdString();
}

}  // namespace
