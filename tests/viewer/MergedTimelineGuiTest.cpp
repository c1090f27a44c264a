// Several reports as one timeline (issue #20) in the main window under Xvfb: four generated
// rank reports whose sessions started at known wall-clock offsets, opened merged. Each rank is
// a top-level group with its process and GPUs; events sit at their offsets; the rank offsets
// dialog re-opens them moved; a file that cannot be opened is named and the others open.
#include <gtest/gtest.h>

#include <QDoubleSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QTest>

#include "model/gen/SyntheticGenerator.h"
#include "model/rep/RepWriter.h"
#include "tests/viewer/ViewerFixture.h"
#include "tests/viewer/WaitUntil.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/RankOffsetsDialog.h"
#include "viewer/window/ReportTab.h"

using namespace sl;
using namespace sl::viewer;

namespace {

constexpr int kRanks = 4;
constexpr int64_t kMs = 1'000'000;
// Rank k's session started kStartMs[k] ms after rank 0's (wall clock).
constexpr int64_t kStartMs[kRanks] = {0, 3, 7, 12};

struct Ranks {
    test::ViewerTempDir dir;
    QStringList paths;
    uint64_t events = 0;
    int64_t firstKernel[kRanks] = {};  // each report's first kernel on its own clock
};

void writeRanks(Ranks& r) {
    for (int k = 0; k < kRanks; ++k) {
        GeneratorOptions o;
        o.events = 20'000;
        o.seed = static_cast<uint64_t>(k + 1);
        auto rep = generateReport(o);
        rep->session.startUtcNs += kStartMs[k] * kMs;
        r.events += rep->eventCount();
        r.firstKernel[k] = rep->tracksOfKind(EventKind::Kernel).at(0)->start[0];
        const std::string path = r.dir.file("rank" + std::to_string(k) + ".rep");
        ASSERT_TRUE(writeReport(*rep, path).ok());
        r.paths << QString::fromStdString(path);
    }
}

void showWindow(MainWindow& mw) {
    mw.resize(1600, 900);
    mw.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&mw));
}

ReportTab* openAndWait(MainWindow& mw, ReportTab* tab) {
    EXPECT_TRUE(test::waitUntil([&] { return tab->state() != ReportTab::State::Loading; }, 30000));
    EXPECT_EQ(tab->state(), ReportTab::State::Ready) << tab->errorMessage().toStdString();
    if (tab->timeline()) {
        EXPECT_TRUE(test::waitUntil([&] { return tab->timeline()->frameCount() > 0; }, 10000));
    }
    (void)mw;
    return tab;
}

// The first kernel of rank k's process (pid 4242 moved by its part's delta).
int64_t firstKernelOf(const ReportTab& tab, int k) {
    const MergedPart& part = tab.mergeOutcome().parts.at(static_cast<size_t>(k));
    for (const Track& t : tab.report()->tracks)
        if (t.key.kind == EventKind::Kernel && t.key.pid == 4242 + part.pidDelta) return t.start[0];
    ADD_FAILURE() << "no kernel track for rank " << k;
    return 0;
}

TEST(MergedTimeline, FourRanksAsGroupsAtTheirOffsets) {
    Ranks r;
    ASSERT_NO_FATAL_FAILURE(writeRanks(r));
    MainWindow mw;
    ASSERT_NO_FATAL_FAILURE(showWindow(mw));
    ReportTab* tab = openAndWait(mw, mw.openMerged(r.paths));
    ASSERT_EQ(tab->state(), ReportTab::State::Ready);
    EXPECT_EQ(tab->report()->eventCount(), r.events);
    ASSERT_EQ(tab->mergeOutcome().parts.size(), static_cast<size_t>(kRanks));

    // One top-level group per rank, in rank order, each with its process and its two GPUs.
    Row& root = tab->timeline()->scene()->root();
    std::vector<std::string> groups;
    for (const auto& c : root.children())
        if (c->title().rfind("Rank ", 0) == 0) groups.push_back(c->title());
    EXPECT_EQ(groups, (std::vector<std::string>{"Rank 0", "Rank 1", "Rank 2", "Rank 3"}));
    for (int k = 0; k < kRanks; ++k) {
        const std::string g = "Rank " + std::to_string(k);
        Row* group = root.find(g);
        ASSERT_NE(group, nullptr) << g;
        int processes = 0, gpus = 0;
        for (const auto& c : group->children()) {
            // The group names the rank; its process row does not repeat it.
            processes += c->title().rfind("Process ", 0) == 0;
            gpus += c->device() >= 0;
        }
        EXPECT_EQ(processes, 1) << g;
        EXPECT_EQ(gpus, 2) << g;
    }
    // Ranks past the second start folded but the first, so the list of ranks fits.
    EXPECT_TRUE(root.find("Rank 0")->expanded());
    EXPECT_FALSE(root.find("Rank 3")->expanded());

    // Events sit at their rank's wall-clock offset on the shared timeline.
    for (int k = 0; k < kRanks; ++k)
        EXPECT_EQ(firstKernelOf(*tab, k), r.firstKernel[k] + kStartMs[k] * kMs) << "rank " << k;

    // Zoom works across the ranks: showing everything covers rank 3's last event.
    tab->timeline()->view().showAll();
    EXPECT_GE(tab->timeline()->view().range().end, tab->report()->tMax());

    // Timeline > Rank Offsets: rank 2 moved 1.5 ms later, re-opened in place of the tab.
    RankOffsetsDialog d(*tab->mergeRequest(), tab->mergeOutcome().parts);
    ASSERT_EQ(d.table()->rowCount(), kRanks);
    auto* spin = qobject_cast<QDoubleSpinBox*>(d.table()->cellWidget(2, 3));
    ASSERT_NE(spin, nullptr);
    spin->setValue(1500.0);  // microseconds
    ReportTab* moved = openAndWait(mw, mw.openMerged(d.request()));
    ASSERT_EQ(moved->state(), ReportTab::State::Ready);
    EXPECT_EQ(firstKernelOf(*moved, 2), r.firstKernel[2] + kStartMs[2] * kMs + 1'500'000);
    EXPECT_EQ(firstKernelOf(*moved, 1), r.firstKernel[1] + kStartMs[1] * kMs);
    EXPECT_EQ(moved->mergeOutcome().parts[2].offsetNs, 1'500'000);
}

TEST(MergedTimeline, AFileThatCannotBeOpenedIsNamedAndTheOthersOpen) {
    Ranks r;
    ASSERT_NO_FATAL_FAILURE(writeRanks(r));
    const QString missing = QString::fromStdString(r.dir.file("rank9.rep"));
    MainWindow mw;
    ASSERT_NO_FATAL_FAILURE(showWindow(mw));
    ReportTab* tab = openAndWait(mw, mw.openMerged(QStringList(r.paths) << missing));
    ASSERT_EQ(tab->state(), ReportTab::State::Ready);
    EXPECT_EQ(tab->mergeOutcome().parts.size(), static_cast<size_t>(kRanks));
    ASSERT_EQ(tab->mergeOutcome().skipped.size(), 1u);
    EXPECT_TRUE(
        test::waitUntil([&] { return mw.statusBar()->currentMessage().contains(missing); }, 5000))
        << mw.statusBar()->currentMessage().toStdString();
    EXPECT_EQ(tab->report()->eventCount(), r.events);
}

TEST(MergedTimeline, NoReportOpensIsAnErrorPage) {
    MainWindow mw;
    ReportTab* tab = mw.openMerged(QStringList{"/nonexistent/rank0.rep", "/nonexistent/rank1.rep"});
    ASSERT_TRUE(test::waitUntil([&] { return tab->state() != ReportTab::State::Loading; }, 10000));
    EXPECT_EQ(tab->state(), ReportTab::State::Failed);
    EXPECT_TRUE(tab->errorMessage().contains("/nonexistent/rank1.rep"))
        << tab->errorMessage().toStdString();
}

}  // namespace

// Several reports opened as one are one entry of File > Open Recent, and that entry opens them
// as one timeline again (not as the first report alone).
TEST(MergedTimeline, OpenRecentHoldsTheMergeAndReopensIt) {
    Ranks r;
    ASSERT_NO_FATAL_FAILURE(writeRanks(r));
    MainWindow mw;
    ASSERT_NO_FATAL_FAILURE(showWindow(mw));
    openAndWait(mw, mw.openMerged(r.paths));
    ASSERT_FALSE(mw.recentFiles().isEmpty());
    const QString entry = mw.recentFiles().front();
    EXPECT_EQ(entry, MainWindow::recentEntryOfMerge(r.paths));
    EXPECT_EQ(entry.split('\n').size(), kRanks);

    const int before = mw.tabs()->count();
    mw.openRecent(entry);
    ASSERT_EQ(mw.tabs()->count(), before + 1);
    auto* again = qobject_cast<ReportTab*>(mw.tabs()->widget(before));
    ASSERT_NE(again, nullptr);
    openAndWait(mw, again);
    EXPECT_EQ(again->mergeOutcome().parts.size(), static_cast<size_t>(kRanks));
    EXPECT_EQ(again->report()->eventCount(), r.events);
    // Opened again, the entry stays one (moved to the front, not doubled).
    EXPECT_EQ(mw.recentFiles().count(entry), 1);
}
