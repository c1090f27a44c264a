// CPU samples in Chrome trace JSON: the format's top-level "samples" + "stackFrames" (as
// chrome://tracing and speedscope read them), and instants of category cpu_sample that carry
// "sf" (our JSON export).
#include <gtest/gtest.h>

#include "ImportTestUtil.h"
#include "model/import/KinetoJsonImporter.h"

namespace sl::test {
namespace {

std::vector<std::string> stackText(const Report& r, const Track& t, size_t i) {
    std::vector<std::string> out;
    for (uint32_t f : r.callStacks[static_cast<size_t>(t.intAt(cols::CpuSample::Stack, i))].frames)
        out.push_back(r.frameText(f));
    return out;
}

TEST(ChromeSamples, SamplesArrayWithStackFramesTree) {
    TempDir dir;
    // Frames: 1 main (root), 2 work < main, 3 an address in libc < work, 4 and 5 a parent cycle.
    // Samples: tid 7 (process 3 by its X event) x2 on node 2, x1 on node 3; tid 8 (no event:
    // pid 0) on node 1; one on a missing node; one without ts; one on the cycle.
    const std::string path = dir.write("s.json", R"({"traceEvents":[
{"ph":"X","name":"step","pid":3,"tid":7,"ts":1,"dur":100}],
"stackFrames":{"1":{"name":"main","category":"app"},"2":{"name":"work","category":"app","parent":1},
"3":{"name":"libc.so.6+0x1f00","category":"libc.so.6","parent":"2"},
"4":{"name":"a","category":"x","parent":"5"},"5":{"name":"b","category":"x","parent":"4"}},
"samples":[{"cpu":1,"tid":7,"ts":10,"name":"s","sf":2,"weight":1},{"cpu":1,"tid":7,"ts":20,"sf":"2"},
{"tid":7,"ts":30.5,"sf":3},{"tid":8,"ts":40,"sf":1},{"tid":7,"ts":50,"sf":99},{"tid":7,"sf":1},
{"tid":7,"ts":60,"sf":4}]})");
    auto r = importOk(path);
    EXPECT_EQ(r->eventCount(EventKind::CpuSample), 6u);
    EXPECT_EQ(r->diagnosticCount("chrome.bad_samples"), 1);
    EXPECT_EQ(r->diagnosticCount("chrome.sample_unknown_stack_frame"), 1);
    const Track* t = r->findTrack(TrackKey::forThread(EventKind::CpuSample, 3, 7));
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 5u);
    EXPECT_EQ(t->start[0], 10'000);  // microseconds, as every ts
    EXPECT_EQ(t->intAt(cols::CpuSample::Cpu, 0), 1);
    EXPECT_EQ(stackText(*r, *t, 0), (std::vector<std::string>{"work (app)", "main (app)"}));
    EXPECT_EQ(t->intAt(cols::CpuSample::Stack, 0),
              t->intAt(cols::CpuSample::Stack, 1));  // "2" and 2
    EXPECT_EQ(t->start[2], 30'500);
    EXPECT_EQ(t->intAt(cols::CpuSample::Cpu, 2), -1);
    EXPECT_EQ(stackText(*r, *t, 2),
              (std::vector<std::string>{"libc.so.6+0x1f00", "work (app)", "main (app)"}));
    EXPECT_EQ(r->str(t->nameAt(2)), "");  // no function: named by nothing, shown by address
    EXPECT_EQ(r->str(t->nameAt(0)), "work");
    EXPECT_TRUE(stackText(*r, *t, 3).empty());                                      // node 99
    EXPECT_EQ(stackText(*r, *t, 4), (std::vector<std::string>{"a (x)", "b (x)"}));  // cycle cut
    const Track* other = r->findTrack(TrackKey::forThread(EventKind::CpuSample, 0, 8));
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(stackText(*r, *other, 0), (std::vector<std::string>{"main (app)"}));
}

TEST(ChromeSamples, ChunkedParseReadsTheSameSamples) {
    TempDir dir;
    std::string events;
    for (int i = 0; i < 400; ++i)
        events += std::string(i ? "," : "") +
                  R"({"ph":"i","s":"t","cat":"cpu_sample","name":"f","pid":3,"tid":7,"ts":)" +
                  std::to_string(i) + R"(,"sf":)" + std::to_string(i % 2) + "}\n";
    const std::string path = dir.write("c.json", "{\"traceEvents\":[" + events + R"(],
"stackFrames":{"0":{"name":"main","category":"app"},"1":{"name":"f","category":"app","parent":"0"}}})");
    auto whole = import::importChromeTrace(path, {}, {SIZE_MAX, 0});
    auto chunked = import::importChromeTrace(path, {}, {0, 1024});
    ASSERT_TRUE(whole.ok()) << whole.error();
    ASSERT_TRUE(chunked.ok()) << chunked.error();
    for (const auto& r : {*whole, *chunked}) {
        EXPECT_EQ(r->eventCount(EventKind::CpuSample), 400u);
        EXPECT_EQ(r->callStacks.size(), 2u);
        const Track* t = r->findTrack(TrackKey::forThread(EventKind::CpuSample, 3, 7));
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(stackText(*r, *t, 399), (std::vector<std::string>{"f (app)", "main (app)"}));
    }
}

TEST(ChromeSamples, InstantsWithSfWinOverTheSamplesArray) {
    TempDir dir;
    // As `sightline export --type json` writes samples: both forms, describing the same sample.
    const std::string path = dir.write("i.json", R"({"traceEvents":[
{"ph":"i","s":"t","cat":"cpu_sample","name":"work","pid":3,"tid":7,"ts":1.5,"sf":1,"args":{"cpu":2}},
{"ph":"i","s":"t","cat":"gc","name":"collect","pid":3,"tid":7,"ts":2,"sf":1}],
"samples":[{"cpu":2,"pid":3,"tid":7,"ts":1.5,"name":"work","sf":1,"weight":1}],
"stackFrames":{"0":{"name":"main","category":"app"},"1":{"name":"work","category":"app","parent":"0"}}})");
    auto r = importOk(path);
    EXPECT_EQ(r->eventCount(EventKind::CpuSample), 1u);
    EXPECT_EQ(r->eventCount(EventKind::NvtxMark), 1u);  // another tool's instant with a stack
    const Track* t = r->findTrack(TrackKey::forThread(EventKind::CpuSample, 3, 7));
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->start[0], 1'500);
    EXPECT_EQ(t->intAt(cols::CpuSample::Cpu, 0), 2);
    EXPECT_EQ(stackText(*r, *t, 0), (std::vector<std::string>{"work (app)", "main (app)"}));
}

// Our export writes a sample without a call stack as a cpu_sample instant without "sf" (and in
// the "samples" array, also without "sf"): it is still a sample, once, not a mark.
TEST(ChromeSamples, InstantsWithoutAStackAreSamplesToo) {
    TempDir dir;
    const std::string path = dir.write("n.json", R"({"traceEvents":[
{"ph":"i","s":"t","cat":"cpu_sample","name":"[no call stack]","pid":3,"tid":7,"ts":1,"args":{"cpu":1}},
{"ph":"i","s":"t","cat":"cpu_sample","name":"work","pid":3,"tid":7,"ts":2,"sf":1,"args":{"cpu":2}}],
"samples":[{"cpu":1,"pid":3,"tid":7,"ts":1,"name":"[no call stack]","weight":1},
{"cpu":2,"pid":3,"tid":7,"ts":2,"name":"work","sf":1,"weight":1}],
"stackFrames":{"0":{"name":"main","category":"app"},"1":{"name":"work","category":"app","parent":"0"}}})");
    auto r = importOk(path);
    EXPECT_EQ(r->eventCount(EventKind::CpuSample), 2u);
    EXPECT_EQ(r->eventCount(EventKind::NvtxMark), 0u);
    const Track* t = r->findTrack(TrackKey::forThread(EventKind::CpuSample, 3, 7));
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->size(), 2u);
    EXPECT_EQ(t->start[0], 1'000);
    EXPECT_TRUE(stackText(*r, *t, 0).empty());
    EXPECT_EQ(stackText(*r, *t, 1), (std::vector<std::string>{"work (app)", "main (app)"}));
}

}  // namespace
}  // namespace sl::test
