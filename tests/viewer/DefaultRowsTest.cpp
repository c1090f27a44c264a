// The rows a report opens with (issue #21, item 1): with the real H200 capture of tests/data/gpu
// open at 1600x900, the GPU's rows are on screen without scrolling, the process's quiet threads
// (CUDA's and the runtime's helper threads with a few thread-state or CUPTI overhead events)
// are folded into one collapsed "N more threads" group, and selecting an event of a folded
// thread elsewhere (events view, find) expands the group and scrolls the row into view.
// The expectations come from the report's own event counts, not from the row tree.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QTest>
#include <map>
#include <set>
#include <string>

#include "tests/viewer/WaitUntil.h"
#include "viewer/analysis/AnalysisDocks.h"
#include "viewer/analysis/EventsView.h"
#include "viewer/analysis/TimelineAnalysis.h"
#include "viewer/timeline/Row.h"
#include "viewer/timeline/TimelineScene.h"
#include "viewer/timeline/TimelineWidget.h"
#include "viewer/timeline/TrackRow.h"
#include "viewer/window/MainWindow.h"
#include "viewer/window/ReportTab.h"

using namespace sl;
using namespace sl::viewer;

namespace {

// Loading a real report under Xvfb's software GL can take a while.
template <class Pred>
bool waitUntil(Pred pred, int timeoutMs = 20000) {
    return sl::test::waitUntil(pred, timeoutMs);
}

const LayoutRow* laidOut(TimelineScene& s, const Row* row) {
    for (const LayoutRow& lr : s.layout())
        if (lr.row == row) return &lr;
    return nullptr;
}

// Wholly inside the scene's scrolled area (under the ruler and any pinned rows).
bool onScreen(TimelineScene& s, const LayoutRow& lr) {
    return lr.y >= s.visibleTop(lr) && lr.y + lr.h <= s.height();
}

// The report's threads by (pid, tid): their events, and whether they have NVTX or CUDA API.
struct ThreadEvents {
    uint64_t events = 0;
    bool nvtxOrCuda = false;
};

std::map<std::pair<int64_t, int64_t>, ThreadEvents> threadEvents(const Report& r) {
    std::map<std::pair<int64_t, int64_t>, ThreadEvents> out;
    for (const Track& t : r.tracks) {
        if (t.schema().owner != OwnerKind::Thread) continue;
        ThreadEvents& e = out[{t.key.pid, t.key.tid}];
        e.events += t.size();
        if (t.key.kind == EventKind::NvtxRange || t.key.kind == EventKind::NvtxMark ||
            t.key.kind == EventKind::CudaApi)
            e.nvtxOrCuda = true;
    }
    return out;
}

class DefaultRows : public ::testing::Test {
protected:
    ReportTab* open() {
        m_window.resize(1600, 900);
        m_window.show();
        if (!QTest::qWaitForWindowExposed(&m_window)) return nullptr;
        ReportTab* tab = m_window.openReport(
            QStringLiteral(SIGHTLINE_TEST_DATA "/gpu/cuda_workload_h200.rep"));
        if (!waitUntil([tab] { return tab->state() != ReportTab::State::Loading; })) return nullptr;
        if (tab->state() != ReportTab::State::Ready || !tab->timeline()) return nullptr;
        TimelineWidget* t = tab->timeline();
        if (!waitUntil([t] { return t->frameCount() > 0; })) return nullptr;
        QTest::qWait(100);  // the docks' sizes settle after the first layout pass
        return tab;
    }
    // The threads of the report's one process that the timeline should fold: no NVTX or CUDA
    // API, and under 2% of the process's thread events.
    static std::set<int64_t> quietThreads(const Report& r) {
        const auto threads = threadEvents(r);
        uint64_t total = 0;
        for (const auto& [key, e] : threads) total += e.events;
        std::set<int64_t> out;
        for (const auto& [key, e] : threads)
            if (!e.nvtxOrCuda && e.events * 100 < total * 2) out.insert(key.second);
        return out;
    }

    MainWindow m_window;
};

}  // namespace

TEST_F(DefaultRows, GpuRowIsOnScreenAt1600x900) {
    ReportTab* tab = open();
    ASSERT_NE(tab, nullptr);
    TimelineScene& s = *tab->timeline()->scene();
    ASSERT_EQ(s.scroll(), 0);
    const Row* gpu = s.root().find("GPU 0 (NVIDIA H200)");
    ASSERT_NE(gpu, nullptr);
    const LayoutRow* lr = laidOut(s, gpu);
    ASSERT_NE(lr, nullptr);
    EXPECT_TRUE(onScreen(s, *lr)) << "GPU row at y " << lr->y << ", the timeline is "
                                  << s.height() << " px high";
    // Its summary row of kernels too.
    const LayoutRow* kernels = laidOut(s, gpu->children().front().get());
    ASSERT_NE(kernels, nullptr);
    EXPECT_EQ(kernels->row->title(), "All kernels");
    EXPECT_TRUE(onScreen(s, *kernels));
}

TEST_F(DefaultRows, QuietThreadsAreFoldedIntoOneCollapsedGroup) {
    ReportTab* tab = open();
    ASSERT_NE(tab, nullptr);
    const Report& r = *tab->report();
    ASSERT_EQ(r.processes.size(), 1u);
    const std::set<int64_t> quiet = quietThreads(r);
    // The report's helper threads 720, 722, 723, 727 and 728 hold 2 to 14 events each, only
    // thread state and CUPTI overhead; the main thread and the two workers have CUDA API rows.
    EXPECT_EQ(quiet, (std::set<int64_t>{720, 722, 723, 727, 728}));
    TimelineScene& s = *tab->timeline()->scene();
    const Row* proc = s.root().children().front().get();
    ASSERT_EQ(proc->title().rfind("Process 716", 0), 0u) << proc->title();
    const Row* fold = nullptr;
    std::set<int64_t> visible, folded;
    for (const auto& c : proc->children()) {
        if (c->title() == std::to_string(quiet.size()) + " more threads") {
            fold = c.get();
            for (const auto& t : c->children()) folded.insert(std::stoll(t->title().substr(7)));
        } else {
            ASSERT_EQ(c->title().rfind("Thread ", 0), 0u) << c->title();
            visible.insert(std::stoll(c->title().substr(7)));
        }
    }
    ASSERT_NE(fold, nullptr) << "no \"" << quiet.size() << " more threads\" group";
    EXPECT_EQ(folded, quiet);
    EXPECT_EQ(visible, (std::set<int64_t>{716, 729, 730}));
    EXPECT_EQ(proc->children().back().get(), fold);  // after the busy threads
    EXPECT_FALSE(fold->expanded());
    EXPECT_TRUE(fold->isGroup());
    uint64_t foldedEvents = 0;
    for (const auto& [key, e] : threadEvents(r))
        if (quiet.count(key.second)) foldedEvents += e.events;
    EXPECT_EQ(fold->count(), foldedEvents);
    EXPECT_TRUE(laidOut(s, fold));
    for (const auto& t : fold->children()) EXPECT_FALSE(laidOut(s, t.get())) << t->title();
    // The old paths still find the folded threads.
    EXPECT_EQ(s.root().find(proc->title() + "/Thread 728 (cuda_workload)/Thread state"),
              fold->children().back()->children().front().get());
}

TEST_F(DefaultRows, SelectingAnEventOfAFoldedThreadExpandsTheGroupAndShowsTheRow) {
    ReportTab* tab = open();
    ASSERT_NE(tab, nullptr);
    const Report& r = *tab->report();
    TimelineScene& s = *tab->timeline()->scene();
    // A thread-state event of thread 728, folded at the start.
    uint32_t track = UINT32_MAX;
    for (uint32_t i = 0; i < r.tracks.size(); ++i)
        if (r.tracks[i].key.tid == 728 && r.tracks[i].key.kind == EventKind::ThreadState) track = i;
    ASSERT_NE(track, UINT32_MAX);
    const Row* row = s.root().find("Process 716 (cuda_workload)/Thread 728 (cuda_workload)/Thread state");
    ASSERT_NE(row, nullptr);
    ASSERT_FALSE(laidOut(s, row));
    ASSERT_TRUE(row->parent()->parent()->isFold());
    ASSERT_FALSE(row->parent()->parent()->expanded());
    // Scrolled to the bottom first, so the row must also be scrolled back into view.
    s.setScroll(s.maxScroll());
    // What the events view emits when one of its rows is picked (find emits the same).
    EventsView* events = tab->analysis()->docks()->events();
    emit events->eventSelected(track, 3);
    ASSERT_TRUE(waitUntil([&] { return laidOut(s, row) != nullptr; }, 5000));
    EXPECT_TRUE(row->parent()->parent()->expanded());
    const LayoutRow* lr = laidOut(s, row);
    ASSERT_NE(lr, nullptr);
    EXPECT_TRUE(onScreen(s, *lr)) << "row at y " << lr->y << " of " << s.height();
    // And the timeline's range holds the event.
    const TimeRange range = tab->timeline()->view().range();
    EXPECT_LE(range.start, r.tracks[track].start[3]);
    EXPECT_GE(range.end, r.tracks[track].endAt(3));
}
