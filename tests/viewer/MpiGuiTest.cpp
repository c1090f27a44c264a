// The MPI rows with real widgets under Xvfb (tests/viewer/MpiFixture.h, two ranks): the row
// headers drawn carry the ranks, rank 0 above rank 1; hovering an MPI_Send shows its peer and
// bytes; clicking it in the main window fills Event details and the Details panel.
// SIGHTLINE_SHOT_DIR: also writes the fixture there as mpi.rep (to look at it in the app).
#include <gtest/gtest.h>

#include <QApplication>
#include <QMouseEvent>
#include <QTest>
#include <algorithm>
#include <cstdlib>

#include "model/rep/RepWriter.h"
#include "tests/viewer/MpiFixture.h"
#include "tests/viewer/ViewerFixture.h"
#include "tests/viewer/WaitUntil.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/DetailsPanel.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

using namespace sl;
using namespace sl::viewer;

namespace {

constexpr int64_t kOrigin = 1'000'000'000, kMs = 1'000'000;
const std::string kRank0 = "Rank 0 \u2014 Process 100 (mpi_app)";
const std::string kRank1 = "Rank 1 \u2014 Process 200 (mpi_app)";
const std::string kSendRow = kRank0 + "/Thread 100 (mpi_app)/MPI";

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

// Where the MPI_Send of rank 0 (1 to 1.5 ms) is drawn.
QPoint sendPoint(TimelineWidget& w) {
    const LayoutRow* lr = laidOut(w, kSendRow);
    EXPECT_NE(lr, nullptr) << kSendRow;
    if (!lr) return {};
    const TimeRange r = w.view().range();
    const double x = w.scene()->eventX() + static_cast<double>(kOrigin + 5 * kMs / 4 - r.start) /
                                               w.scene()->nsPerPixel(r);
    return {static_cast<int>(x), static_cast<int>(lr->y) + 6};
}

TEST(MpiGui, HeadersCarryRanksAndHoverShowsPeerAndBytes) {
    auto report = test::makeMpiReport();
    TimelineWidget w;
    w.setScene(std::make_unique<TimelineScene>(report, buildRowTree(*report)));
    w.resize(1600, 900);
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    ASSERT_TRUE(test::waitUntil([&] { return w.frameCount() > 0; }, 10000));
    ASSERT_TRUE(w.glError().isEmpty()) << w.glError().toStdString();

    // The headers drawn: rank 0 above rank 1, each with its pid; mpirun first, as listed.
    DrawList out;
    w.scene()->build(w.view().range(), out);
    std::vector<std::pair<float, std::string>> processes;
    for (const DrawLabel& l : out.labels)
        if (l.x < TimelineScene::kHeaderWidth && (l.text.find("Process ") != std::string::npos))
            processes.emplace_back(l.y, l.text);
    std::sort(processes.begin(), processes.end());
    ASSERT_EQ(processes.size(), 3u);
    EXPECT_EQ(processes[0].second, "\u25BE Process 50 (mpirun)");
    EXPECT_EQ(processes[1].second, "\u25BE " + kRank0);
    EXPECT_EQ(processes[2].second, "\u25BE " + kRank1);
    const LayoutRow* rank1Mpi = laidOut(w, kRank1 + "/Thread 200 (mpi_app)/MPI");
    ASSERT_NE(rank1Mpi, nullptr);
    EXPECT_GT(rank1Mpi->y, laidOut(w, kSendRow)->y);

    QString text;
    QObject::connect(&w, &TimelineWidget::hovered, [&text](const QString& t) { text = t; });
    hover(w, sendPoint(w));
    EXPECT_TRUE(text.startsWith("MPI_Send\nStart: 1.000 ms\nDuration: ")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nClass: point-to-point")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nPeer rank: 1")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nTag: 7")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nBytes sent: 4.00 KiB (4,096 bytes)")) << text.toStdString();
    EXPECT_FALSE(text.contains("Root")) << text.toStdString();
    EXPECT_FALSE(text.contains("received")) << text.toStdString();
}

TEST(MpiGui, ClickingASendInTheMainWindowShowsItsDetails) {
    test::ViewerTempDir dir;
    auto report = test::makeMpiReport();
    const std::string path = dir.file("mpi.rep");
    ASSERT_TRUE(writeReport(*report, path).ok());
    if (const char* shots = std::getenv("SIGHTLINE_SHOT_DIR")) {
        ASSERT_TRUE(writeReport(*report, std::string(shots) + "/mpi.rep").ok());
    }
    MainWindow mw;
    mw.resize(1600, 900);
    mw.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&mw));
    ReportTab* tab = mw.openReport(QString::fromStdString(path));
    ASSERT_TRUE(test::waitUntil([&] { return tab->state() != ReportTab::State::Loading; }, 20000));
    ASSERT_EQ(tab->state(), ReportTab::State::Ready) << tab->errorMessage().toStdString();
    EXPECT_EQ(tab->report()->eventCount(EventKind::Mpi), 15u);  // read back from the .rep
    TimelineWidget* t = tab->timeline();
    ASSERT_NE(t, nullptr);
    ASSERT_TRUE(test::waitUntil([&] { return t->frameCount() > 0; }, 10000));
    EXPECT_NE(t->scene()->root().find(kRank1 + "/Thread 200 (mpi_app)/MPI"), nullptr);

    QString clicked;
    QObject::connect(t, &TimelineWidget::eventClicked,
                     [&clicked](const QString& s) { clicked = s; });
    const QPoint send = sendPoint(*t);
    hover(*t, send);  // as the pointer gets there before the click
    QTest::mouseClick(t, Qt::LeftButton, {}, send);
    EXPECT_TRUE(clicked.startsWith("MPI_Send\n")) << clicked.toStdString();
    EXPECT_TRUE(clicked.contains("\nPeer rank: 1")) << clicked.toStdString();
    EXPECT_TRUE(clicked.contains("\nBytes sent: 4.00 KiB")) << clicked.toStdString();
    // The Details panel (the model's event details) names the call, its peer and its size.
    const QString details = tab->analysis()->docks()->details()->text();
    EXPECT_TRUE(details.contains("MPI_Send")) << details.toStdString();
    EXPECT_TRUE(details.contains("Peer rank\t1")) << details.toStdString();
    EXPECT_TRUE(details.contains("Bytes sent\t")) << details.toStdString();
}

}  // namespace
