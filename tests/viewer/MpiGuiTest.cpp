// The MPI rows with real widgets under Xvfb (tests/viewer/MpiFixture.h, two ranks): the row
// headers drawn carry the ranks, rank 0 above rank 1; hovering an MPI_Send shows its peer and
// bytes; clicking it in the main window selects it: the Details panel shows the tooltip's values.
// SIGHTLINE_SHOT_DIR: also writes the fixture there as mpi.rep (to look at it in the app).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/viewer/MpiFixture.h"
#include "tests/viewer/TimelineGuiHelpers.h"
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

using test::hover;  // tests/viewer/TimelineGuiHelpers.h
using test::laidOut;

// Where the MPI_Send of rank 0 (1 to 1.5 ms) is drawn.
QPoint sendPoint(TimelineWidget& w) {
    const LayoutRow* lr = laidOut(w, kSendRow);
    EXPECT_NE(lr, nullptr) << kSendRow;
    if (!lr) return {};
    const double x = test::timeX(w, kOrigin + 5 * kMs / 4);
    return {static_cast<int>(x), static_cast<int>(lr->y) + 6};
}

TEST(MpiGui, HeadersCarryRanksAndHoverShowsPeerAndBytes) {
    auto report = test::makeMpiReport();
    TimelineWidget w;
    ASSERT_NO_FATAL_FAILURE(test::showTimeline(w, report));

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
    EXPECT_TRUE(text.startsWith("MPI_Send\n")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nStart: 1.000 ms (1001000000 ns)\nDuration: ")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nCall class: p2p")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nPeer rank: 1")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nTag: 7")) << text.toStdString();
    EXPECT_TRUE(text.contains("\nBytes sent: 4.00 KiB (4096 B)")) << text.toStdString();
    EXPECT_FALSE(text.contains("Root")) << text.toStdString();
    EXPECT_FALSE(text.contains("received")) << text.toStdString();
}

TEST(MpiGui, ClickingASendInTheMainWindowShowsItsDetails) {
    test::ViewerTempDir dir;
    auto report = test::makeMpiReport();
    MainWindow mw;
    ReportTab* tab = nullptr;
    TimelineWidget* t = nullptr;
    ASSERT_NO_FATAL_FAILURE(test::openInMainWindow(mw, *report, dir, "mpi.rep", &tab, &t));
    EXPECT_EQ(tab->report()->eventCount(EventKind::Mpi), 15u);  // read back from the .rep
    EXPECT_NE(t->scene()->root().find(kRank1 + "/Thread 200 (mpi_app)/MPI"), nullptr);

    const QString tooltip = test::clickAt(*t, sendPoint(*t));
    EXPECT_TRUE(tooltip.startsWith("MPI_Send\n")) << tooltip.toStdString();
    EXPECT_TRUE(tooltip.contains("\nPeer rank: 1")) << tooltip.toStdString();
    EXPECT_TRUE(tooltip.contains("\nBytes sent: 4.00 KiB (4096 B)")) << tooltip.toStdString();
    // The Details panel: the same formatter names the call, its peer and its size alike.
    const QString details = tab->analysis()->docks()->details()->text();
    EXPECT_TRUE(details.contains("MPI_Send")) << details.toStdString();
    EXPECT_TRUE(details.contains("Peer rank\t1")) << details.toStdString();
    EXPECT_TRUE(details.contains("Bytes sent\t4.00 KiB (4096 B)")) << details.toStdString();
}

}  // namespace
