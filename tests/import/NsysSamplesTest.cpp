// CPU samples of an nsys export (COMPOSITE_EVENTS + SAMPLING_CALLCHAINS) on the pipit fixture.
// Expected values come from querying the fixture with sqlite3 (see each comment).
#include <gtest/gtest.h>

#include "ImportTestUtil.h"
#include "model/rep/Sqlite.h"

namespace sl::test {
namespace {

constexpr int64_t kPid = 1230493;
constexpr int64_t kTid = 302119224788637LL % 0x1000000;

// The stack of the sample at `time` on the one sampled thread, as frame texts, leaf first.
std::vector<std::string> stackAt(const Report& r, int64_t time) {
    const Track* t = r.findTrack(TrackKey::forThread(EventKind::CpuSample, kPid, kTid));
    if (!t) return {};
    for (size_t i = 0; i < t->size(); ++i) {
        if (t->start[i] != time) continue;
        std::vector<std::string> out;
        for (uint32_t f :
             r.callStacks[static_cast<size_t>(t->intAt(cols::CpuSample::Stack, i))].frames)
            out.push_back(r.frameText(f));
        return out;
    }
    return {};
}

TEST(NsysSamples, PipitFixtureCountsFramesAndStacks) {
    auto r = importOk(fixture("pipit_saxpy_mpi_cuda.sqlite"));
    // SELECT count(*) FROM COMPOSITE_EVENTS -> 5451, all on globalTid 302119224788637.
    EXPECT_EQ(r->eventCount(EventKind::CpuSample), 5451u);
    ASSERT_EQ(r->tracksOfKind(EventKind::CpuSample).size(), 1u);
    const Track* t = r->tracksOfKind(EventKind::CpuSample)[0];
    EXPECT_EQ(t->key.pid, kPid);
    EXPECT_EQ(t->key.tid, kTid);
    // Distinct (symbol or unresolved, module, originalIP) -> 532; distinct frame sequences -> 571.
    EXPECT_EQ(r->stackFrames.size(), 532u);
    EXPECT_EQ(r->callStacks.size(), 571u);
    // SELECT min(start), max(start) FROM COMPOSITE_EVENTS.
    EXPECT_EQ(t->start.front(), 24479746);
    EXPECT_EQ(t->start.back(), 2087144630);
    for (size_t i = 0; i < t->size(); ++i) EXPECT_EQ(t->intAt(cols::CpuSample::Cpu, i) >= 0, true);
    // Leaf functions: SELECT symbol ... WHERE stackDepth = 0 GROUP BY symbol, module.
    const auto leaves = nameCounts(*r, EventKind::CpuSample);
    EXPECT_EQ(leaves.at("main"), 2980);
    EXPECT_EQ(leaves.at("std::abs(double)"), 492);
    EXPECT_EQ(leaves.at("cxip_cq_progress"), 240);
    EXPECT_EQ(r->diagnosticCount("nsys.unmapped_table.COMPOSITE_EVENTS"), 0);
    EXPECT_EQ(r->diagnosticCount("nsys.unmapped_table.SAMPLING_CALLCHAINS"), 0);
    EXPECT_EQ(r->diagnosticCount("nsys.samples_without_callchain"), 0);
}

TEST(NsysSamples, PipitFixtureKnownStack) {
    auto r = importOk(fixture("pipit_saxpy_mpi_cuda.sqlite"));
    // Sample id 2 (start 25074100, cpu 20): 7 frames in ld-2.31.so, the outermost unresolved
    // (symbol "0x7fd9a16fe558", originalIP 140572693095768 = 0x7fd9a16fe558).
    EXPECT_EQ(
        stackAt(*r, 25074100),
        (std::vector<std::string>{"do_lookup_x (ld-2.31.so)", "_dl_lookup_symbol_x (ld-2.31.so)",
                                  "_dl_relocate_object (ld-2.31.so)", "dl_main (ld-2.31.so)",
                                  "_dl_sysdep_start (ld-2.31.so)", "_dl_start (ld-2.31.so)",
                                  "ld-2.31.so+0x7fd9a16fe558"}));
    const Track* t = r->tracksOfKind(EventKind::CpuSample)[0];
    size_t i = 0;
    while (i < t->size() && t->start[i] != 25074100) ++i;
    ASSERT_LT(i, t->size());
    EXPECT_EQ(t->intAt(cols::CpuSample::Cpu, i), 20);
    EXPECT_EQ(r->str(t->nameAt(i)), "do_lookup_x");
    const auto& frames =
        r->callStacks[static_cast<size_t>(t->intAt(cols::CpuSample::Stack, i))].frames;
    const StackFrame& leaf = r->stackFrames[frames.front()];
    EXPECT_EQ(r->str(leaf.module), "/lib64/ld-2.31.so");
    EXPECT_EQ(leaf.offset, 140572693131577u);
    EXPECT_EQ(r->stackFrames[frames.back()].function, 0u);
    EXPECT_EQ(r->stackFrames[frames.back()].offset, 140572693095768u);
}

TEST(NsysSamples, SampleWithoutCallchainIsCountedAndKept) {
    TempDir dir;
    const std::string path = dir.file("s.sqlite");
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(
            db.exec("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                    "INSERT INTO StringIds VALUES(1,'f'),(2,'/bin/a');"
                    "CREATE TABLE COMPOSITE_EVENTS(id INTEGER PRIMARY KEY, start INTEGER, cpu "
                    "INTEGER,"
                    " threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER);"
                    "INSERT INTO COMPOSITE_EVENTS "
                    "VALUES(1,100,0,1,16777218,0),(2,200,NULL,1,16777218,0);"
                    "CREATE TABLE SAMPLING_CALLCHAINS(id INTEGER, symbol INTEGER, module INTEGER,"
                    " unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER);"
                    "INSERT INTO SAMPLING_CALLCHAINS VALUES(1,1,2,NULL,4096,0);")
                .ok());
    }
    auto r = importOk(path);
    EXPECT_EQ(r->eventCount(EventKind::CpuSample), 2u);
    EXPECT_EQ(r->diagnosticCount("nsys.samples_without_callchain"), 1);
    const Track* t = r->findTrack(TrackKey::forThread(EventKind::CpuSample, 1, 2));
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(r->str(t->nameAt(0)), "f");
    EXPECT_EQ(t->intAt(cols::CpuSample::Cpu, 1), -1);
    EXPECT_TRUE(
        r->callStacks[static_cast<size_t>(t->intAt(cols::CpuSample::Stack, 1))].frames.empty());
}

TEST(NsysSamples, CallchainsWithoutStackDepthAreReportedNotFatal) {
    TempDir dir;
    const std::string path = dir.file("old.sqlite");
    {
        sqlite::Db db;
        ASSERT_TRUE(db.create(path).ok());
        ASSERT_TRUE(db.exec("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                            "INSERT INTO StringIds VALUES(1,'f');"
                            "CREATE TABLE COMPOSITE_EVENTS(id INTEGER PRIMARY KEY, start INTEGER, "
                            "globalTid INTEGER);"
                            "INSERT INTO COMPOSITE_EVENTS "
                            "VALUES(1,100,16777218),(2,200,16777218),(3,300,16777218);"
                            "CREATE TABLE SAMPLING_CALLCHAINS(id INTEGER, symbol INTEGER);"
                            "INSERT INTO SAMPLING_CALLCHAINS VALUES(1,1);")
                        .ok());
    }
    auto r = importOk(path);
    EXPECT_EQ(r->eventCount(EventKind::CpuSample), 3u);
    EXPECT_EQ(r->diagnosticCount("nsys.callchains_unreadable"), 1);
    EXPECT_EQ(r->diagnosticCount("nsys.samples_without_callchain"), 3);
    EXPECT_EQ(r->diagnosticCount("nsys.unmapped_table.SAMPLING_CALLCHAINS"), 1);
    const Track* t = r->findTrack(TrackKey::forThread(EventKind::CpuSample, 1, 2));
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->intAt(cols::CpuSample::Cpu, 0), -1);  // no cpu column
}

}  // namespace
}  // namespace sl::test
