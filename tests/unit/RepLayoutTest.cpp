// Format 2 of the .rep (issue #23): small reports small (page size by the report's size, empty
// optional tables left out), chunk encoding 2 (a lane's starts as gaps after the previous end),
// and format-1 files still read.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "TestUtil.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/rep/ChunkCodec.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"

namespace sl {
namespace {

int64_t pragma(const std::string& path, const char* name) {
    sqlite::Db db;
    EXPECT_TRUE(db.openReadOnly(path).ok());
    sqlite::Stmt st(db, std::string("PRAGMA ") + name);
    return st.step() ? st.i64(0) : -1;
}

uint64_t chunkBytes(const std::string& path) {
    sqlite::Db db;
    EXPECT_TRUE(db.openReadOnly(path).ok());
    sqlite::Stmt st(db, "SELECT sum(length(data)) FROM chunks");
    return st.step() ? static_cast<uint64_t>(st.i64(0)) : 0;
}


TEST(RepLayout, PageSizeFollowsTheReportsSize) {
    EXPECT_EQ(RepWriter::pageSizeFor(0), 1024u);
    EXPECT_EQ(RepWriter::pageSizeFor(300'000), 1024u);
    EXPECT_EQ(RepWriter::pageSizeFor(2'000'000), 4096u);
    EXPECT_EQ(RepWriter::pageSizeFor(RepWriter::kPageSizeDecidedAt), 16384u);
    EXPECT_EQ(RepWriter::pageSizeFor(uint64_t{1} << 40), 16384u);
}

// A small report is about its chunks and strings, not 23 tables of 64 KiB pages (format 1's
// 1.5 MB at least).
TEST(RepLayout, SmallReportStaysSmall) {
    test::TempDir dir;
    GeneratorOptions go;
    go.events = 20'000;
    auto r = generateReport(go);
    const std::string path = dir.file("small.rep");
    ASSERT_TRUE(writeReport(*r, path).ok());
    const auto size = std::filesystem::file_size(path);
    EXPECT_LE(pragma(path, "page_size"), 4096);
    EXPECT_LT(size, chunkBytes(path) + 96 * 1024) << "file " << size << " bytes";

    const std::string old = dir.file("format1.rep");
    WriteOptions v1;
    v1.formatVersion = 1;
    ASSERT_TRUE(writeReport(*r, old, v1).ok());
    EXPECT_EQ(pragma(old, "page_size"), 65536);
    EXPECT_LT(size * 4, std::filesystem::file_size(old));
}

// Past kPageSizeDecidedAt bytes of chunks the page size is fixed and the held-back chunks are
// written before the rest: every event comes back.
TEST(RepLayout, BigReportGetsLargePagesAndKeepsEveryChunk) {
    test::TempDir dir;
    const std::string path = dir.file("big.rep");
    auto w = RepWriter::create(path, {});
    ASSERT_TRUE(w.ok()) << w.error();
    Report meta;
    const TrackKey key = TrackKey::forThread(EventKind::OsRuntime, 1, 1);
    auto& s = (*w)->beginTrack(key);
    std::mt19937_64 rng(7);
    Track expected(key);
    int64_t t = 0;
    // Random gaps and durations: about 8 bytes an event after compression.
    while ((*w)->bytesWritten() < RepWriter::kPageSizeDecidedAt + (1u << 20)) {
        for (int i = 0; i < 4096; ++i) {
            const int64_t start = t + static_cast<int64_t>(rng() % 5'000'000);
            const int64_t end = start + static_cast<int64_t>(rng() % 5'000'000);
            const int64_t x[2] = {static_cast<int64_t>(rng() % 1000), 0};
            ASSERT_TRUE((*w)->append(s, start, end, 0, x).ok());
            expected.append(start, end, 0, x);
            t = end;
        }
    }
    ASSERT_TRUE((*w)->commit(meta).ok());
    EXPECT_EQ(pragma(path, "page_size"), 16384);
    auto back = readReport(path);
    ASSERT_TRUE(back.ok()) << back.error();
    ASSERT_EQ((*back)->tracks.size(), 1u);
    const Track& got = (*back)->tracks[0];
    EXPECT_EQ(got.start, expected.start);
    EXPECT_EQ(got.end, expected.end);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got.intAt(0, i), expected.intAt(0, i));
}

// Reports written before (format 1: 64 KiB pages, chunk encoding 1) read as the same events
// as format 2, and format 2's chunks are smaller.
TEST(RepLayout, FormatOneFilesReadTheSame) {
    test::TempDir dir;
    GeneratorOptions go;
    go.events = 200'000;
    auto r = generateReport(go);
    WriteOptions v1;
    v1.formatVersion = 1;
    ASSERT_TRUE(writeReport(*r, dir.file("v1.rep"), v1).ok());
    ASSERT_TRUE(writeReport(*r, dir.file("v2.rep")).ok());
    auto f1 = RepFile::open(dir.file("v1.rep"));
    auto f2 = RepFile::open(dir.file("v2.rep"));
    ASSERT_TRUE(f1.ok()) << f1.error();
    ASSERT_TRUE(f2.ok()) << f2.error();
    EXPECT_EQ((*f1)->formatVersion(), 1);
    EXPECT_EQ((*f2)->formatVersion(), 2);
    auto a = readReport(dir.file("v1.rep"));
    auto b = readReport(dir.file("v2.rep"));
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_TRUE(b.ok()) << b.error();
    test::expectSameTracks(**a, **b);
    test::expectSameTracks(*r, **b);
    EXPECT_LT(chunkBytes(dir.file("v2.rep")) * 100, chunkBytes(dir.file("v1.rep")) * 92)
        << "chunk encoding 2 should save at least 8% on these traces";
}

// Captures committed before format 2 still open and load whole.
TEST(RepLayout, CommittedFormatOneCapturesStillLoad) {
    for (const char* name :
         {"cuda_workload_h200.rep", "gpu_metrics_h200.rep", "torch_libs_h200.rep"}) {
        const std::string path = std::string(SIGHTLINE_TEST_DATA "/gpu/") + name;
        auto f = RepFile::open(path);
        ASSERT_TRUE(f.ok()) << f.error();
        EXPECT_EQ((*f)->formatVersion(), 1) << name;
        auto r = readReport(path);
        ASSERT_TRUE(r.ok()) << r.error();
        EXPECT_GT((*r)->eventCount(), 1000u) << name;
    }
}

Track laneOf(std::initializer_list<std::pair<int64_t, int64_t>> events) {
    Track t(TrackKey::forThread(EventKind::OsRuntime, 1, 1));
    const int64_t extra[2] = {-5, 3};
    for (auto [s, e] : events) t.append(s, e, 1, extra);
    return t;
}

Status decodeAll(const Track& in, Track& out, bool lane) {
    ChunkEncoder enc;
    EncodedChunk c;
    if (Status s = enc.encode(in, 0, in.size(), c); !s) return s;
    ChunkDecoder dec;
    return dec.decode(c.blob.data(), c.blob.size(), c.rawBytes, c.count, c.checksum, out,
                      ~uint64_t{0}, lane);
}

TEST(ChunkEncoding, LaneRoundTripsAtTheEdgesOfTheTimeRange) {
    const Track in = laneOf({{-kMaxEventTime, -kMaxEventTime + 1},
                             {-5, -5},
                             {-5, 0},
                             {0, 0},
                             {10, 20},
                             {20, 20},
                             {kMaxEventTime - 1, kMaxEventTime}});
    Track out(in.key);
    ASSERT_TRUE(decodeAll(in, out, true).ok());
    EXPECT_EQ(out.start, in.start);
    EXPECT_EQ(out.end, in.end);
    EXPECT_EQ(out.intAt(0, 1), -5);
    EXPECT_EQ(out.intAt(1, 6), 3);
}

// Overlapping events sorted by start (an importer's spooled run) store start deltas; a reader
// of a report's lane refuses them.
TEST(ChunkEncoding, OverlappingRunsRoundTripUnlessALaneIsRequired) {
    const Track in = laneOf({{0, 100}, {10, 20}, {10, 15}, {30, 200}, {250, 260}});
    Track out(in.key);
    ASSERT_TRUE(decodeAll(in, out, false).ok());
    EXPECT_EQ(out.start, in.start);
    EXPECT_EQ(out.end, in.end);
    Track lane(in.key);
    Status s = decodeAll(in, lane, true);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error(), "overlapping events in one lane");
}

TEST(ChunkEncoding, UnsortedOrBackwardEventsAreRefusedWhenEncoding) {
    Track out(TrackKey::forThread(EventKind::OsRuntime, 1, 1));
    Status s = decodeAll(laneOf({{10, 20}, {5, 6}}), out, false);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error(), "chunk events are not sorted by start");
    Track backward = laneOf({{10, 20}});
    backward.end[0] = 5;  // Track::append would have clamped it
    s = decodeAll(backward, out, false);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error(), "chunk event ends before it starts");
}

// Back-to-back events with long durations: version 1 pays for each duration twice (in the end
// column and again in the next start delta), version 2 once.
TEST(ChunkEncoding, GapsAreSmallerThanStartDeltas) {
    Track t(TrackKey::forThread(EventKind::OsRuntime, 1, 1));
    const int64_t extra[2] = {0, 0};
    int64_t at = 0;
    for (int i = 0; i < 1000; ++i) {
        const int64_t end = at + 999'000 + (i * 7919) % 1000;
        t.append(at, end, 1, extra);
        at = end + i % 50;
    }
    ChunkEncoder v1(1, 1), v2;
    EncodedChunk a, b;
    ASSERT_TRUE(v1.encode(t, 0, t.size(), a).ok());
    ASSERT_TRUE(v2.encode(t, 0, t.size(), b).ok());
    EXPECT_LT(b.rawBytes * 10, a.rawBytes * 8) << b.rawBytes << " vs " << a.rawBytes;
    Track back(t.key);
    ChunkDecoder d;
    ASSERT_TRUE(d.decode(a.blob.data(), a.blob.size(), a.rawBytes, a.count, a.checksum, back,
                         ~uint64_t{0}, true)
                    .ok());
    EXPECT_EQ(back.start, t.start);
    EXPECT_EQ(back.end, t.end);
}

}  // namespace
}  // namespace sl
