// -t openmp end to end: a real OpenMP program (tests/clients/openmp/omp_regions.c) on LLVM's
// libomp, whose OMPT interface loads our tool, and the same program on GCC's libgomp, which has
// none (the report says so); a program without OpenMP gets a note.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

namespace fs = std::filesystem;

int64_t col(const Ev& e, uint8_t c) { return e.track->intAt(c, e.index); }

TEST(OpenMpCapture, RegionsLoopsBarriersAndTasksOfALibompProgram) {
    const std::string program = client("omp_regions_libomp");
    if (!fs::exists(program) ||
        !fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-ompt.so"))
        GTEST_SKIP() << "built without clang and libomp-dev: no OMPT test program";
    CaptureDir dir;
    const std::string out = dir.file("omp.rep");
    ASSERT_EQ(profile(out, {"-t", "openmp,osrt", "-s", "none"}, {program}), 0);
    auto r = load(out);
    ASSERT_TRUE(r);
    std::map<std::string, int> counts;
    std::set<int64_t> threads;
    auto all = events(*r, EventKind::OpenMp);
    for (const Ev& e : all) ++counts[e.name];
    std::string listing;
    for (const auto& [name, n] : counts) listing += name + "=" + std::to_string(n) + " ";
    SCOPED_TRACE(listing);

    // Three parallel regions, on the thread that started them, each asking for 4 threads.
    auto parallels = events(*r, EventKind::OpenMp, "parallel");
    ASSERT_EQ(parallels.size(), 3u);
    std::set<int64_t> parallelIds;
    for (const Ev& e : parallels) {
        EXPECT_EQ(e.tid, e.pid);
        EXPECT_EQ(col(e, cols::OpenMp::Count), 4);
        parallelIds.insert(col(e, cols::OpenMp::ParallelId));
    }
    EXPECT_EQ(parallelIds.size(), 3u);
    // Each region's 4 implicit tasks, numbered 0-3 in their team, on 4 different threads.
    auto implicit = events(*r, EventKind::OpenMp, "implicit task");
    ASSERT_EQ(implicit.size(), 12u);
    std::map<int64_t, std::set<int64_t>> indexByRegion, threadsByRegion;
    for (const Ev& e : implicit) {
        EXPECT_EQ(col(e, cols::OpenMp::Count), 4);
        indexByRegion[col(e, cols::OpenMp::ParallelId)].insert(col(e, cols::OpenMp::Index));
        threadsByRegion[col(e, cols::OpenMp::ParallelId)].insert(e.tid);
        threads.insert(e.tid);
    }
    for (int64_t id : parallelIds) {
        EXPECT_EQ(indexByRegion[id], (std::set<int64_t>{0, 1, 2, 3})) << "region " << id;
        EXPECT_EQ(threadsByRegion[id].size(), 4u) << "region " << id;
    }
    // A static loop on each thread of each region, inside that thread's implicit task.
    auto loops = events(*r, EventKind::OpenMp, "loop");
    ASSERT_EQ(loops.size(), 12u);
    for (const Ev& l : loops) {
        EXPECT_TRUE(parallelIds.count(col(l, cols::OpenMp::ParallelId)));
        bool inside = false;
        for (const Ev& t : implicit)
            inside |= t.tid == l.tid && t.start <= l.start && l.end <= t.end;
        EXPECT_TRUE(inside) << "loop at " << l.start << " on " << l.tid;
    }
    // The explicit barrier of the second region, on each of its threads.
    EXPECT_EQ(counts["barrier"], 4);
    // The single construct: one thread runs it, the others skip it.
    EXPECT_EQ(counts["single"], 1);
    EXPECT_EQ(counts["single (other threads)"], 3);
    // Its 8 tasks, each run once (no scheduling point inside them), and the taskwait.
    auto tasks = events(*r, EventKind::OpenMp, "task");
    EXPECT_EQ(tasks.size(), 8u);
    std::set<int64_t> taskIds;
    for (const Ev& t : tasks) taskIds.insert(col(t, cols::OpenMp::TaskId));
    EXPECT_EQ(taskIds.size(), 8u);
    EXPECT_EQ(counts["taskwait"], 1);
    // Implicit barriers: after each loop and the single (16) and at each region's end (12).
    EXPECT_EQ(counts["implicit barrier (worksharing)"] + counts["implicit barrier (parallel)"] +
                  counts["implicit barrier"],
              28);
    EXPECT_EQ(diagnostic(*r, "openmp.not_found"), 0);
    EXPECT_EQ(diagnostic(*r, "openmp.no_ompt"), 0);
}

TEST(OpenMpCapture, LibgompProgramIsNotedAsHavingNoOmpt) {
    const std::string program = client("omp_regions_gomp");
    if (!fs::exists(program)) GTEST_SKIP() << "no OpenMP C compiler: no libgomp test program";
    if (!fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-ompt.so"))
        GTEST_SKIP() << "built without libomp-dev: no -t openmp";
    CaptureDir dir;
    const std::string out = dir.file("gomp.rep");
    int code = 0;
    std::string text = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-f", "true", "-t", "openmp", "-s", "none", "-o", out, program},
        &code);
    EXPECT_EQ(code, 0) << text;
    EXPECT_NE(text.find("libgomp, which has no OMPT"), std::string::npos) << text;
    auto r = load(out);
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "openmp.no_ompt"), 1);
    EXPECT_EQ(diagnostic(*r, "openmp.not_found"), 0);  // the reason is already given
    EXPECT_TRUE(events(*r, EventKind::OpenMp).empty());
}

TEST(OpenMpCapture, ProgramWithoutOpenMpGetsANote) {
    if (!fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-ompt.so"))
        GTEST_SKIP() << "built without libomp-dev: no -t openmp";
    CaptureDir dir;
    const std::string out = dir.file("plain.rep");
    ASSERT_EQ(profile(out, {"-t", "openmp", "-s", "none"}, {client("exit_code"), "0"}), 0);
    auto r = load(out);
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "openmp.not_found"), 1);
}

}  // namespace
}  // namespace sl::test
