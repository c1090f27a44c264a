// Big traces are parsed in chunks of whole events; the result must equal a whole-document parse,
// and a misleading split (a "}, {" inside a string) must fall back, not corrupt the import.
#include <gtest/gtest.h>

#include "ImportTestUtil.h"
#include "model/import/KinetoJsonImporter.h"
#include "model/import/TraceEventChunks.h"

namespace sl::test {
namespace {

void expectSameReports(const Report& a, const Report& b) {
    ASSERT_EQ(a.tracks.size(), b.tracks.size());
    for (size_t i = 0; i < a.tracks.size(); ++i) {
        const Track& x = a.tracks[i];
        const Track& y = b.tracks[i];
        EXPECT_EQ(x.key, y.key);
        EXPECT_EQ(x.start, y.start);
        EXPECT_EQ(x.end, y.end);
        ASSERT_EQ(x.size(), y.size());
        for (size_t k = 0; k < x.size(); ++k) EXPECT_EQ(a.str(x.nameAt(k)), b.str(y.nameAt(k)));
    }
    EXPECT_EQ(a.gpus.size(), b.gpus.size());
    EXPECT_EQ(a.threads.size(), b.threads.size());
    EXPECT_EQ(a.diagnostics.size(), b.diagnostics.size());
    EXPECT_EQ(a.session.startUtcNs, b.session.startUtcNs);
    EXPECT_EQ(a.session.source, b.session.source);
}

TEST(ChunkedParse, SameResultAsWholeDocument) {
    const import::ChunkPolicy whole{SIZE_MAX, 0};
    const import::ChunkPolicy chunked{0, 64 * 1024};
    for (const char* name :
         {"kineto_resnet50_legacy_2021.json.gz", "hta_gpu_user_annotation.json.gz"}) {
        auto a = import::importChromeTrace(fixture(name), {}, whole);
        auto b = import::importChromeTrace(fixture(name), {}, chunked);
        ASSERT_TRUE(a.ok() && b.ok()) << name;
        EXPECT_EQ((*b)->eventCount(EventKind::Kernel), (*a)->eventCount(EventKind::Kernel));
        expectSameReports(**a, **b);
    }
}

TEST(ChunkedParse, PlanCutsBetweenEventsOnly) {
    const std::string text =
        R"({"traceEvents": [{"a": 1}, {"b": "}, {"}, {"c": [{"d": 1}, {"e": 2}]}], "x": "]"})";
    auto plan = import::planTraceEventChunks(text, 1);
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(text[plan->arrayOpen], '[');
    // Candidates for the closing ']' are tried from the end; the real one is among them.
    const size_t real = text.find("], \"x\"");
    EXPECT_NE(std::find(plan->closeCandidates.begin(), plan->closeCandidates.end(), real),
              plan->closeCandidates.end());
}

TEST(ChunkedParse, MisleadingSplitsFallBackToTheWholeDocument) {
    TempDir dir;
    // Names that contain "}, {" and nested arrays of objects in args: guessed cuts land inside
    // strings and events, chunk parses fail, and the whole document is parsed instead.
    std::string json = R"({"traceEvents": [)";
    for (int i = 0; i < 200; ++i) {
        json += R"({"ph": "X", "cat": "cpu_op", "name": "f}, {g)" + std::to_string(i) +
                R"(", "pid": 1, "tid": 2, "ts": )" + std::to_string(i * 10) +
                R"(, "dur": 5, "args": {"list": [{"a": 1}, {"b": 2}]}},)";
    }
    json.back() = ']';
    json += R"(, "baseTimeNanoseconds": 1000, "traceName": "a]b"})";
    const std::string path = dir.write("tricky.json", json);
    auto a = import::importChromeTrace(path, {}, {SIZE_MAX, 0});
    auto b = import::importChromeTrace(path, {}, {0, 100});
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ((*a)->eventCount(EventKind::NvtxRange), 200u);
    expectSameReports(**a, **b);
    EXPECT_EQ((*b)->tMin(), 1000);
}

TEST(ChunkedParse, MalformedChunkStillReportsTheByteOffset) {
    TempDir dir;
    std::string json = R"({"traceEvents": [)";
    for (int i = 0; i < 100; ++i)
        json += R"({"ph": "X", "name": "n", "pid": 1, "tid": 1, "ts": 1, "dur": 1},)";
    const size_t bad = json.size() + 7;  // the comma where the value of "ph" should be
    json += R"({"ph": ,"X"}]})";
    auto r = import::importChromeTrace(dir.write("bad.json", json), {}, {0, 256});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("at byte " + std::to_string(bad)), std::string::npos) << r.error();
}

}  // namespace
}  // namespace sl::test
