#include <gtest/gtest.h>

#include "model/util/Utf8.h"

#include <algorithm>
#include <bit>

#include "TestUtil.h"
#include "model/rep/RepReader.h"
#include "model/rep/RepWriter.h"

namespace sl {
namespace {

std::shared_ptr<Report> roundTrip(const Report& r, const test::TempDir& dir, WriteOptions o = {}) {
    const std::string path = dir.file("rt.rep");
    Status s = writeReport(r, path, o);
    EXPECT_TRUE(s.ok()) << s.error();
    auto back = readReport(path);
    EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error());
    return back.ok() ? back.value() : nullptr;
}


TEST(RoundTrip, CallStacksOfCpuSamples) {
    test::TempDir dir;
    auto r = test::makeEveryKindReport();
    // Interning: three frames, two distinct stacks for three samples.
    ASSERT_EQ(r->stackFrames.size(), 3u);
    ASSERT_EQ(r->callStacks.size(), 2u);
    auto b = roundTrip(*r, dir);
    ASSERT_TRUE(b);
    ASSERT_EQ(b->stackFrames.size(), 3u);
    ASSERT_EQ(b->callStacks.size(), 2u);
    EXPECT_EQ(b->callStacks[1].frames, r->callStacks[1].frames);
    EXPECT_EQ(b->frameText(b->callStacks[1].frames[0]), "libc.so.6+0x9abc");
    EXPECT_EQ(b->frameText(b->callStacks[1].frames[2]), "main (app)");
    EXPECT_EQ(b->stackFrames[0].offset, 0x1200u);
    const auto tracks = b->tracksOfKind(EventKind::CpuSample);
    ASSERT_EQ(tracks.size(), 1u);
    const Track& t = *tracks[0];
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(b->trackTitle(t).empty(), false);
    std::vector<int64_t> stacks;
    for (size_t i = 0; i < t.size(); ++i) stacks.push_back(t.intAt(cols::CpuSample::Stack, i));
    std::sort(stacks.begin(), stacks.end());
    EXPECT_EQ(stacks, (std::vector<int64_t>{0, 0, 1}));
}

TEST(RoundTrip, EveryEntityAndEventKind) {
    test::TempDir dir;
    auto r = test::makeEveryKindReport();
    // Every kind of the schema is present.
    for (EventKind k : kAllEventKinds) EXPECT_EQ(r->eventCount(k) > 0, true) << schemaOf(k).id;
    auto b = roundTrip(*r, dir);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->session.argv, r->session.argv);
    EXPECT_EQ(b->session.environment, r->session.environment);
    EXPECT_EQ(b->session.workingDirectory, "/work");
    EXPECT_EQ(b->session.startUtcNs, r->session.startUtcNs);
    EXPECT_EQ(b->session.startMonotonicNs, 5'000);
    EXPECT_EQ(b->session.durationNs, 1'000'000);
    EXPECT_EQ(b->session.captureOptions, "-t cuda,nvtx");
    ASSERT_EQ(b->processes.size(), 2u);
    EXPECT_EQ(b->processes[0].exitCode, 3);
    EXPECT_EQ(b->processes[1].exitSignal, 9);
    EXPECT_EQ(b->processes[0].mpiRank, 2);
    EXPECT_EQ(b->processes[0].mpiWorldSize, 4);
    EXPECT_EQ(b->processes[1].mpiRank, -1);
    EXPECT_EQ(b->processes[1].end, kUnknownTime);
    ASSERT_EQ(b->threads.size(), 2u);
    EXPECT_EQ(b->threads[1].start, kUnknownTime);
    ASSERT_EQ(b->gpus.size(), 1u);
    EXPECT_EQ(b->gpus[0].name, "NVIDIA H200");
    EXPECT_EQ(b->gpus[0].memoryBandwidthBytesPerSec, 4'800'000'000'000);
    EXPECT_EQ(b->streams[0].priority, -1);
    EXPECT_EQ(b->streams[0].name, "compute");
    EXPECT_EQ(b->contexts[0].name, "ctx");
    EXPECT_EQ(b->nvtxDomains[0].name, "MyDomain");
    EXPECT_EQ(b->nvtxCategories[0].name, "IO");
    EXPECT_EQ(b->metricSeries[0].unit, "%");
    EXPECT_EQ(b->diagnostics[0].count, 12);
    EXPECT_EQ(b->programOutput[0].text, "hello\n");
    ASSERT_EQ(b->kernelLaunches.size(), 1u);
    EXPECT_EQ(b->kernelLaunches[0], r->kernelLaunches[0]);
    test::expectSameTracks(*r, *b);

    const Track* k = b->findTrack(TrackKey::forStream(EventKind::Kernel, 100, 0, 1, 7));
    ASSERT_TRUE(k);
    EXPECT_EQ(b->str(k->name[0]), "kern(int)");
    EXPECT_EQ(k->col<uint32_t>(cols::Kernel::Correlation)[0], 77u);
    const Track* m = b->findTrack(TrackKey::forStream(EventKind::Memcpy, 100, 0, 1, 7));
    ASSERT_TRUE(m);
    EXPECT_EQ(m->col<uint64_t>(cols::Memcpy::Bytes)[0], 1ull << 33);
    EXPECT_EQ(m->col<int16_t>(cols::Memcpy::SrcDevice)[0], -1);
    const Track* n = b->findTrack(TrackKey::forThread(EventKind::NvtxRange, 100, 100, 1));
    ASSERT_TRUE(n);
    EXPECT_EQ(std::bit_cast<double>(n->col<uint64_t>(cols::Nvtx::Payload)[0]), 2.5);
    EXPECT_EQ(n->col<int64_t>(cols::Nvtx::EndTid)[0], 102);
    const Track* metric = b->findTrack(TrackKey::forMetric(1));
    ASSERT_TRUE(metric);
    EXPECT_EQ(metric->col<double>(0)[1], -1.25);
    // Nested API calls: the driver call is one lane deeper.
    const Track* api = b->findTrack(TrackKey::forThread(EventKind::CudaApi, 100, 100));
    ASSERT_TRUE(api);
    EXPECT_EQ(api->laneCount(), 2u);
}

// A read for some kinds only (stats, analyze): the other tracks keep their keys and no
// events, the wanted ones are whole, and the report's time bounds stay those of every track
// (--filter-time counts from the first event of the whole report when the session start is
// unknown, as in imports).
TEST(RoundTrip, PartialReadKeepsWantedTracksAndWholeReportBounds) {
    test::TempDir dir;
    auto r = test::makeEveryKindReport();
    r->session.startMonotonicNs = kUnknownTime;
    const std::string path = dir.file("partial.rep");
    ASSERT_TRUE(writeReport(*r, path).ok());
    const KindSet wanted{EventKind::Kernel, EventKind::NvtxRange};
    ReadOptions o;
    o.wantTrack = [&](const TrackKey& k) { return wanted.has(k.kind); };
    o.levelOfDetail = false;
    o.bare(KindSet{EventKind::Kernel});                        // start, end, name only
    o.onlyColumns(EventKind::NvtxRange, {cols::Nvtx::Color});  // and one column
    auto b = readReport(path, o);
    ASSERT_TRUE(b.ok()) << b.error();
    ASSERT_EQ((*b)->tracks.size(), r->tracks.size());
    for (size_t i = 0; i < r->tracks.size(); ++i) {
        const Track& t = (*b)->tracks[i];
        const Track& full = r->tracks[i];
        EXPECT_EQ(t.key, full.key);
        EXPECT_EQ(t.size(), wanted.has(t.key.kind) ? full.size() : 0u) << schemaOf(t.key.kind).id;
        if (t.empty()) continue;
        EXPECT_EQ(t.start, full.start);
        EXPECT_EQ(t.end, full.end);
        EXPECT_EQ(t.name, full.name);
        // Columns left out read as zeros and hold no vector; the ones asked for are whole.
        for (size_t c = 0; c < t.cols.size(); ++c) {
            const bool loaded = t.key.kind == EventKind::NvtxRange && c == cols::Nvtx::Color;
            ASSERT_EQ(t.cols[c].size(), full.size());
            if (!loaded) EXPECT_TRUE(t.cols[c].uniform()) << schemaOf(t.key.kind).id << " column " << c;
            for (size_t k = 0; k < t.size(); ++k)
                EXPECT_EQ(t.cols[c].intAt(k), loaded ? full.cols[c].intAt(k) : 0) << schemaOf(t.key.kind).id << " column " << c;
        }
    }
    // The test means something: the kernels' correlation ids and the ranges' colors are not 0.
    const Track* kernels = r->findTrack(TrackKey::forStream(EventKind::Kernel, 100, 0, 1, 7));
    ASSERT_TRUE(kernels);
    EXPECT_NE(kernels->cols[cols::Kernel::Correlation].intAt(0), 0);
    EXPECT_GT((*b)->eventCount(EventKind::Kernel), 0u);
    EXPECT_EQ((*b)->eventCount(EventKind::CudaApi), 0u);
    EXPECT_EQ((*b)->tMin(), r->tMin());
    EXPECT_EQ((*b)->tMax(), r->tMax());
    EXPECT_EQ((*b)->timeOrigin(), r->timeOrigin());
    // The kinds read exclude the track that starts first, so the bounds came from the file.
    int64_t wantedMin = INT64_MAX;
    for (const Track& t : (*b)->tracks)
        if (!t.empty()) wantedMin = std::min(wantedMin, t.tMin);
    EXPECT_LT(r->tMin(), wantedMin);
}

TEST(RoundTrip, EmptyReport) {
    test::TempDir dir;
    Report empty;
    auto b = roundTrip(empty, dir);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->eventCount(), 0u);
    EXPECT_TRUE(b->tracks.empty());
    EXPECT_EQ(b->tMin(), 0);
}

TEST(RoundTrip, ChunkBoundaries) {
    test::TempDir dir;
    for (uint32_t chunk : {1u, 2u, 7u, 1000u}) {
        for (size_t n : {size_t(1), size_t(999), size_t(1000), size_t(1001), size_t(3000)}) {
            ReportBuilder b;
            uint32_t name = b.intern("op");
            for (size_t i = 0; i < n; ++i)
                b.add(OsRuntimeCall{1, 1, static_cast<int64_t>(i * 10), static_cast<int64_t>(i * 10 + 5), name,
                                    static_cast<int64_t>(i), 0});
            auto r = b.finish();
            WriteOptions o;
            o.chunkEvents = chunk;
            auto back = roundTrip(*r, dir, o);
            ASSERT_TRUE(back);
            ASSERT_EQ(back->eventCount(), n);
            test::expectSameTracks(*r, *back);
        }
    }
}

// Columns of one repeated value (an NVTX range without category, color or payload) stay a value
// and a count through a write and a read, across chunks; one that varies is read back whole.
TEST(RoundTrip, RepeatedColumnValuesStayCompact) {
    test::TempDir dir;
    ReportBuilder b;
    const uint32_t name = b.intern("step");
    for (int64_t i = 0; i < 5000; ++i) {
        NvtxRangeEvent e{};
        e.pid = e.tid = 1;
        e.start = i * 10;
        e.end = i * 10 + 5;
        e.message = name;
        e.color = i == 4321 ? 0xff00ff00u : 0;
        b.add(e);
    }
    auto r = b.finish();
    WriteOptions o;
    o.chunkEvents = 1000;
    auto back = roundTrip(*r, dir, o);
    ASSERT_TRUE(back);
    test::expectSameTracks(*r, *back);
    const Track* t = back->findTrack(TrackKey::forThread(EventKind::NvtxRange, 1, 1, 0));
    ASSERT_TRUE(t);
    for (int c : {cols::Nvtx::Category, cols::Nvtx::Payload, cols::Nvtx::EndTid}) {
        EXPECT_TRUE(t->cols[static_cast<size_t>(c)].uniform()) << c;
        EXPECT_EQ(t->cols[static_cast<size_t>(c)].memoryBytes(), 0u) << c;
        EXPECT_EQ(t->cols[static_cast<size_t>(c)].size(), 5000u) << c;
    }
    EXPECT_FALSE(t->cols[cols::Nvtx::Color].uniform());
    EXPECT_EQ(t->col<uint32_t>(cols::Nvtx::Color)[4321], 0xff00ff00u);
    EXPECT_EQ(t->col<uint32_t>(cols::Nvtx::Color)[4320], 0u);
}

TEST(RoundTrip, HugeAndOddStrings) {
    test::TempDir dir;
    ReportBuilder b;
    std::string huge(5 << 20, 'x');
    huge[12345] = '\0';  // embedded NUL
    std::string binary = "\xff\xfe not utf-8 \x80";
    b.add(OsRuntimeCall{1, 1, 0, 10, b.intern(huge), 0, 0});
    b.add(OsRuntimeCall{1, 1, 20, 30, b.intern(binary), 0, 0});
    b.report().session.argv = {huge.substr(0, 100000)};
    auto r = b.finish();
    auto back = roundTrip(*r, dir);
    ASSERT_TRUE(back);
    const Track& t = back->tracks[0];
    EXPECT_EQ(back->str(t.name[0]), huge);
    // Interning repairs invalid UTF-8 (every export shows the same text); what was stored
    // comes back byte for byte.
    EXPECT_EQ(back->str(t.name[1]), sanitizeUtf8(binary));
    EXPECT_EQ(back->str(t.name[1]), r->str(t.name[1]));
    EXPECT_EQ(back->session.argv[0].size(), 100000u);
}

// A program's name, command line and thread names come from its own bytes (argv, prctl): not
// always UTF-8. The .rep's TEXT columns hold valid UTF-8 (Python's sqlite3 refused the row),
// the bad bytes as U+FFFD, as in the string table and the JSON export.
TEST(RoundTrip, ProcessAndThreadTextsAreStoredAsUtf8) {
    test::TempDir dir;
    ReportBuilder b;
    const std::string bad = "caf\xe9 \xff\xfe";
    Process& p = b.ensureProcess(7);
    p.name = bad;
    p.commandLine = "./" + bad + " --x";
    b.ensureThread(7, 8).name = bad;
    b.addDiagnostic("capture.test", 1, "reason " + bad, 7);
    auto r = b.finish();
    auto back = roundTrip(*r, dir);
    ASSERT_TRUE(back);
    ASSERT_EQ(back->processes.size(), 1u);
    EXPECT_EQ(back->processes[0].name, sanitizeUtf8(bad));
    EXPECT_EQ(back->processes[0].name, "caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
    EXPECT_EQ(back->processes[0].commandLine, "./" + sanitizeUtf8(bad) + " --x");
    ASSERT_EQ(back->threads.size(), 1u);
    EXPECT_TRUE(isValidUtf8(back->threads[0].name)) << back->threads[0].name;
    bool found = false;
    for (const auto& d : back->diagnostics)
        if (d.name == "capture.test") {
            found = true;
            EXPECT_TRUE(isValidUtf8(d.reason)) << d.reason;
        }
    EXPECT_TRUE(found);
}

TEST(RoundTrip, StreamingWriterMatchesInMemory) {
    test::TempDir dir;
    auto r = test::makeEveryKindReport();
    const std::string path = dir.file("stream.rep");
    auto w = RepWriter::create(path, {});
    ASSERT_TRUE(w.ok());
    for (const Track& t : r->tracks) {
        // Re-feed each track in start order (across lanes) through the streaming API.
        std::vector<size_t> idx(t.size());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
        std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
            return t.start[a] != t.start[b] ? t.start[a] < t.start[b] : t.endAt(a) > t.endAt(b);
        });
        auto& s = (*w)->beginTrack(t.key);
        for (size_t i : idx) {
            std::vector<int64_t> x;
            for (const auto& c : t.cols)
                x.push_back(c.type() == ColumnType::F64 ? std::bit_cast<int64_t>(c.view<double>()[i]) : c.intAt(i));
            ASSERT_TRUE((*w)->append(s, t.start[i], t.endAt(i), t.nameAt(i), x.data()).ok());
        }
    }
    ASSERT_TRUE((*w)->commit(*r).ok());
    auto back = readReport(path);
    ASSERT_TRUE(back.ok()) << back.error();
    test::expectSameTracks(*r, **back);
}

TEST(RoundTrip, WindowedTrackRead) {
    test::TempDir dir;
    ReportBuilder b;
    uint32_t name = b.intern("k");
    for (int i = 0; i < 100000; ++i)
        b.add(KernelExec{{1, 0, 1, 1}, i * 100LL, i * 100LL + 50, name, static_cast<uint32_t>(i), {}});
    auto r = b.finish();
    const std::string path = dir.file("w.rep");
    WriteOptions o;
    o.chunkEvents = 1000;
    ASSERT_TRUE(writeReport(*r, path, o).ok());
    auto f = RepFile::open(path);
    ASSERT_TRUE(f.ok()) << f.error();
    auto t = (*f)->readTrack(0, 5'000'000, 5'050'000);
    ASSERT_TRUE(t.ok()) << t.error();
    // Only the chunk(s) around the window are decoded, and they hold the window's events.
    EXPECT_LE(t->size(), 2000u);
    IndexRange in = t->overlapping(0, 5'000'000, 5'050'000);
    EXPECT_EQ(in.size(), 500u);
}

TEST(RoundTrip, WriterRefusesToOverwriteWhenAsked) {
    test::TempDir dir;
    Report empty;
    const std::string path = dir.file("x.rep");
    ASSERT_TRUE(writeReport(empty, path).ok());
    WriteOptions o;
    o.overwrite = false;
    Status s = writeReport(empty, path, o);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.error().find("already exists"), std::string::npos);
}

TEST(RoundTrip, NoTemporaryFileLeftOnFailure) {
    test::TempDir dir;
    Status s = writeReport(Report{}, dir.file("missing-dir/x.rep"));
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.error().find("does not exist"), std::string::npos);
    {
        auto w = RepWriter::create(dir.file("abandoned.rep"));
        ASSERT_TRUE(w.ok());
        // destroyed without commit
    }
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        ADD_FAILURE() << "left behind: " << e.path();
}

}  // namespace
}  // namespace sl
