// GL-free tests of the "OpenMP" rows (-t openmp, tests/viewer/OpenMpFixture.h): an OpenMP row
// under each thread with OpenMP events, after NVTX and before OS runtime; nested constructs in
// lanes by depth (parallel > implicit task > loop / barrier); colors by construct, barriers in
// the warm wait color; tooltip fields; worker threads with few events not folded away.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/viewer/OpenMpFixture.h"
#include "tests/viewer/TrackRowFixture.h"
#include "viewer/timeline/EventFields.h"
#include "viewer/timeline/Palette.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/timeline/TrackRow.h"

using namespace sl;
using namespace sl::viewer;

namespace {

const std::string kProcess = "Process 300 (omp_app)";

class OpenMpRow : public test::TrackRowFixture {
protected:
    OpenMpRow() : TrackRowFixture(test::makeOpenMpViewerReport()) {}

    TrackRow* ompRow(int64_t tid) {
        // Worker threads carry the process's name: their rows are titled by tid alone.
        const std::string thread = "Thread " + std::to_string(tid) + (tid == 300 ? " (omp_app)" : "");
        return dynamic_cast<TrackRow*>(root->find(kProcess + "/" + thread + "/OpenMP"));
    }
};

TEST_F(OpenMpRow, EachThreadWithOpenMpEventsHasAnOpenMpRow) {
    for (int64_t tid : {300, 301, 302}) ASSERT_NE(ompRow(tid), nullptr) << tid;
    EXPECT_EQ(ompRow(300)->count(), 6u);
    EXPECT_EQ(ompRow(301)->count(), 5u);
    EXPECT_EQ(ompRow(302)->count(), 5u);
    // Above the OS runtime row of the same thread.
    Row* main = root->find(kProcess + "/Thread 300 (omp_app)");
    ASSERT_NE(main, nullptr);
    ASSERT_EQ(main->children().size(), 2u);
    EXPECT_EQ(main->children()[0]->title(), "OpenMP");
    EXPECT_EQ(main->children()[1]->title(), "OS runtime");
}

TEST_F(OpenMpRow, WorkerThreadsAreNotFoldedTheHelperIs) {
    // The workers hold 5 of the process's 417 events (1.2 %): without their OpenMP rows they
    // would go into "N more threads"; the helper (one poll call) does.
    std::vector<std::string> titles;
    for (const auto& c : root->find(kProcess)->children()) titles.push_back(c->title());
    EXPECT_EQ(titles, (std::vector<std::string>{"Thread 300 (omp_app)", "Thread 301", "Thread 302",
                                                "1 more thread"}));
}

TEST_F(OpenMpRow, NestedConstructsStackInLanes) {
    // Main thread: parallel > implicit task > loop, barriers, single.
    EXPECT_EQ(ompRow(300)->laneCount(), 3u);
    // Workers: implicit task > loop, barriers; thread 2 runs a task inside its barrier.
    EXPECT_EQ(ompRow(301)->laneCount(), 2u);
    EXPECT_EQ(ompRow(302)->laneCount(), 3u);
    std::string name;
    const TrackRow& main = *ompRow(300);
    fields(main, 300, 0, &name);
    EXPECT_EQ(name, "parallel");
    fields(main, 300, 1, &name);
    EXPECT_EQ(name, "implicit task");
    fields(main, 300, 2, &name);
    EXPECT_EQ(name, "loop");
    fields(main, 600, 2, &name);
    EXPECT_EQ(name, "implicit barrier (worksharing)");
    fields(*ompRow(302), 825, 2, &name);
    EXPECT_EQ(name, "task");
}

TEST_F(OpenMpRow, ConstructsAreColoredByWhatTheyAreBarriersWarm) {
    const uint32_t par = Palette::openMpColor(OpenMpEvent::Parallel),
                   impl = Palette::openMpColor(OpenMpEvent::ImplicitTask),
                   work = Palette::openMpColor(OpenMpEvent::Work),
                   sync = Palette::openMpColor(OpenMpEvent::Sync),
                   task = Palette::openMpColor(OpenMpEvent::Task);
    EXPECT_EQ((std::set<uint32_t>{par, impl, work, sync, task}).size(), 5u);
    // Warm: more red than blue.
    EXPECT_GT((sync >> 16) & 0xFF, (sync & 0xFF) + 0x60);
    const TrackRow& main = *ompRow(300);
    EXPECT_EQ(pixel(main, 300, 0), par);
    EXPECT_EQ(pixel(main, 300, 1), impl);
    EXPECT_EQ(pixel(main, 300, 2), work);  // loop, 1.2 to 5 ms
    EXPECT_EQ(pixel(main, 600, 2), sync);  // waiting for the slow thread, 5 to 7.6 ms
    EXPECT_EQ(pixel(main, 850, 2), sync);  // implicit barrier at the end of the region
    // The slow thread works where the others wait.
    EXPECT_EQ(pixel(*ompRow(301), 600, 1), work);
    EXPECT_EQ(pixel(*ompRow(302), 700, 1), sync);
    EXPECT_EQ(pixel(*ompRow(302), 825, 2), task);
    // The box carries the construct's name.
    DrawList out;
    main.build(context(main), out);
    bool loop = false;
    for (const DrawLabel& l : out.labels) loop |= l.text == "loop";
    EXPECT_TRUE(loop);
}

TEST_F(OpenMpRow, TooltipGivesTheConstructAndWhatItHas) {
    std::string name;
    auto f = fields(*ompRow(300), 300, 2, &name);
    EXPECT_EQ(name, "loop");
    EXPECT_EQ(f, (std::map<std::string, std::string>{{"Kind", "OpenMP"},
                                                     {"Construct", "worksharing (loop)"},
                                                     {"Parallel region", "1"},
                                                     {"Task", "2"},
                                                     {"Iterations", "3000"},
                                                     {"Code address", "0x401b00"}}));
    f = fields(*ompRow(300), 300, 0, &name);
    EXPECT_EQ(name, "parallel");
    EXPECT_EQ(f["Construct"], "parallel region");
    EXPECT_EQ(f["Threads requested"], "3");
    EXPECT_EQ(f["Parent task"], "1");
    EXPECT_EQ(f.count("Thread number"), 0u);
    f = fields(*ompRow(301), 300, 0, &name);
    EXPECT_EQ(name, "implicit task");
    EXPECT_EQ(f["Team size"], "3");
    EXPECT_EQ(f["Thread number"], "1");
    EXPECT_EQ(f.count("Code address"), 0u);
    f = fields(*ompRow(302), 700, 1, &name);
    EXPECT_EQ(name, "implicit barrier (worksharing)");
    EXPECT_EQ(f, (std::map<std::string, std::string>{{"Kind", "OpenMP"},
                                                     {"Construct", "synchronization (implicit barrier, worksharing)"},
                                                     {"Parallel region", "1"},
                                                     {"Task", "4"}}));
    f = fields(*ompRow(302), 825, 2, &name);
    EXPECT_EQ(f["Construct"], "explicit task");
    EXPECT_EQ(f.count("Parallel region"), 0u);
}

}  // namespace
