// Unit tests of the raw data path: ProcessWriter -> stream file -> RawStream, and option parsing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "capture/common/Clock.h"
#include "capture/common/ProcessWriter.h"
#include "capture/common/RawReader.h"
#include "capture/launcher/LiveEventCounter.h"
#include "capture/launcher/ProfileOptions.h"
#include "capture/launcher/SessionMerger.h"
#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

using namespace sl::capture;

// A stream file of process `pid`, as a process writes it, for the merge tests: the header, then
// blocks of raw records. A block's header may declare more bytes than follow (a cut file).
class StreamFile {
public:
    StreamFile(const std::string& path, int64_t pid) : m_f(std::fopen(path.c_str(), "wb")) {
        StreamHeader h{};
        std::memcpy(h.magic, kStreamMagic, 8);
        h.version = kStreamVersion;
        h.headerBytes = sizeof h;
        h.pid = pid;
        std::fwrite(&h, sizeof h, 1, m_f);
    }
    ~StreamFile() { std::fclose(m_f); }
    void block(int64_t tid, uint64_t seq, const std::vector<std::vector<uint8_t>>& records,
               uint32_t declared = 0) {
        std::vector<uint8_t> data;
        for (const auto& r : records) data.insert(data.end(), r.begin(), r.end());
        BlockHeader b{kBlockMagic, declared ? declared : static_cast<uint32_t>(data.size()), tid, seq};
        std::fwrite(&b, sizeof b, 1, m_f);
        std::fwrite(data.data(), data.size(), 1, m_f);
    }

private:
    FILE* m_f;
};

// The first `n` bytes of a record struct (a pop is an NvtxEndRecord without its range id).
template <class T>
std::vector<uint8_t> recordBytes(const T& r, size_t n = sizeof(T)) {
    std::vector<uint8_t> out(n);
    std::memcpy(out.data(), &r, n);
    return out;
}

TEST(RawStream, WriterRoundTripThroughMerger) {
    CaptureDir dir;
    setenv("SIGHTLINE_SESSION_DIR", dir.path().c_str(), 1);
    ASSERT_TRUE(ProcessWriter::start("unit"));
    int64_t pid = ProcessWriter::pid();
    uint32_t name = ProcessWriter::defineString("kernelA");
    int64_t ints[8] = {0, 108, 80ll << 30, 9, 0, 1980000, 2619000, 4800ll << 30};
    std::string_view strs[3] = {"H200", "GPU-uuid", "0000:01:00.0"};
    ASSERT_TRUE(ProcessWriter::emitMeta(MetaKind::Gpu, ints, 8, strs, 3));
    int64_t launch[14] = {5, 128, 1, 1, 256, 1, 1, 32, 0, 1024, 0, 0, 0, 0};
    std::string_view names[2] = {"_Z7kernelAv", "kernelA"};
    ASSERT_TRUE(ProcessWriter::emitMeta(MetaKind::KernelLaunch, launch, 14, names, 2));
    // A context named through NVTX (nvtxNameCuContextA) and resolved through the CUDA module's
    // handle map; a stream name without a handle stays unattached (counted).
    int64_t ctx[2] = {0, 1};
    std::string_view ctxName[1] = {""};
    ASSERT_TRUE(ProcessWriter::emitMeta(MetaKind::Context, ctx, 2, ctxName, 1));
    int64_t handle[5] = {static_cast<int64_t>(ResourceKind::CuContext), 0xABC0, 0, 1, 0};
    ASSERT_TRUE(ProcessWriter::emitMeta(MetaKind::ResourceHandle, handle, 5));
    int64_t named[3] = {static_cast<int64_t>(ResourceKind::CuContext), 0xABC0, 1};
    std::string_view nm[1] = {"main context"};
    ASSERT_TRUE(ProcessWriter::emitMeta(MetaKind::ResourceName, named, 3, nm, 1));
    int64_t named2[3] = {static_cast<int64_t>(ResourceKind::CudaStream), 0xDEF0, 1};
    std::string_view nm2[1] = {"copy stream"};
    ASSERT_TRUE(ProcessWriter::emitMeta(MetaKind::ResourceName, named2, 3, nm2, 1));
    // 3 threads x 20,000 generic events (CUPTI-style kernels on stream 7) and OS runtime calls.
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([t, name] {
            for (int i = 0; i < 20000; ++i) {
                int64_t cols[2] = {i, 5};
                ASSERT_TRUE(ProcessWriter::emitEvent(EventKind::Kernel, 0, 1000 + i * 10,
                                                     1005 + i * 10, name, cols, 2, 0, 1,
                                                     static_cast<uint32_t>(7 + t)));
            }
            ProcessWriter::threadExit();
        });
    for (auto& t : threads) t.join();
    ProcessWriter::shutdown(ExitHow::Exit, 0, 0);

    // The live counter behind the profiler's progress lines sees exactly the events written,
    // and counts nothing twice on the next poll.
    LiveEventCounter counter(dir.path());
    EXPECT_EQ(counter.poll(), 60000u);
    EXPECT_EQ(counter.poll(), 60000u);

    auto files = SessionMerger::listStreams(dir.path());
    ASSERT_EQ(files.size(), 1u);
    auto s = RawStream::open(files[0]);
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->header().pid, pid);
    EXPECT_STREQ(s->header().module, "unit");
    EXPECT_EQ(s->damagedBytes(), 0u);

    ReportBuilder b;
    SessionMerger m(b);
    ASSERT_TRUE(m.addStream(files[0]));
    m.finish(nowNs());
    auto r = b.finish();
    ASSERT_EQ(r->gpus.size(), 1u);
    EXPECT_EQ(r->gpus[0].name, "H200");
    EXPECT_EQ(r->gpus[0].smCount, 108);
    EXPECT_EQ(r->gpus[0].pciBusId, "0000:01:00.0");
    ASSERT_EQ(r->kernelLaunches.size(), 1u);
    EXPECT_EQ(r->kernelLaunches[0].grid[0], 128u);
    EXPECT_EQ(r->str(r->kernelLaunches[0].shortName), "kernelA");
    EXPECT_EQ(r->eventCount(EventKind::Kernel), 60000u);
    for (uint32_t st = 7; st < 10; ++st) {
        const Track* t = r->findTrack(TrackKey::forStream(EventKind::Kernel, pid, 0, 1, st));
        ASSERT_TRUE(t) << st;
        EXPECT_EQ(t->size(), 20000u);
        EXPECT_EQ(r->str(t->nameAt(0)), "kernelA");
        EXPECT_EQ(t->intAt(cols::Kernel::Launch, 0), 0);  // remapped to the report's launch table
    }
    ASSERT_EQ(r->contexts.size(), 1u);
    EXPECT_EQ(r->contexts[0].name, "main context");
    ASSERT_EQ(r->diagnostics.size(), 1u);
    EXPECT_EQ(r->diagnostics[0].name, "nvtx.resource_names_unattached");
    EXPECT_EQ(r->diagnostics[0].count, 1);
}

TEST(RawStream, TruncatedFileIsReadUpToTheDamage) {
    CaptureDir dir;
    std::string path = dir.file("x.slraw");
    {
        const auto pop = recordBytes(NvtxEndRecord{{RecordType::NvtxPop, 0, 2, 0}, 5, 0}, 16);
        StreamFile f(path, 42);
        f.block(42, 0, {pop});
        f.block(42, 1, {pop}, 64);  // 48 bytes short
    }
    auto s = RawStream::open(path);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->blocks().size(), 1u);
    EXPECT_EQ(s->damagedBytes(), 40u);
    EXPECT_NE(s->damage().find("truncated block at byte"), std::string::npos);
    auto bad = RawStream::open(dir.file("missing.slraw"));
    EXPECT_FALSE(bad);
}

// Start/end ranges are paired by id within a stream, whichever thread's blocks come first: an
// end read before its start (thread 10 ends a range thread 20 started), a second end of one
// range and an end of no range are counted, a range that never ends closes at its process's
// end, ids far apart (not from one counter) still pair.
TEST(RawStream, StartEndRangesPairInAnyThreadOrder) {
    CaptureDir dir;
    const std::string path = dir.file("inject-42-0.slraw");
    auto start = [](int64_t time, uint64_t id) {
        std::vector<uint8_t> r(48);
        NvtxRecord n{};
        n.h = {RecordType::NvtxStart, kNvtxRegistered, 6, 0};
        n.time = time;
        std::memcpy(r.data(), &n, sizeof n);
        std::memcpy(r.data() + 40, &id, 8);
        return r;
    };
    auto end = [](int64_t time, uint64_t id) {
        return recordBytes(NvtxEndRecord{{RecordType::NvtxEnd, 0, 3, 0}, time, id});
    };
    {
        StreamFile f(path, 42);
        const uint64_t far = 1ull << 50;
        // Thread 20's blocks come after thread 10's in the merge (blocks go by thread id).
        f.block(20, 0, {start(100, 1), start(110, 2), start(120, 3), start(130, far)});
        f.block(20, 1, {end(200, 1), end(210, 1), end(220, far)});
        f.block(10, 0, {end(300, 2), end(310, 99)});
    }
    ReportBuilder b;
    SessionMerger m(b);
    ASSERT_TRUE(m.addStream(path));
    m.processExited(42, 1000, 0, 0);
    m.finish(2000);
    auto r = b.finish();
    const Track* t = r->findTrack(TrackKey::forThread(EventKind::NvtxRange, 42, 20, 0));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->size(), 4u);
    std::map<int64_t, std::pair<int64_t, int64_t>> byStart;  // start -> (end, end thread)
    for (size_t i = 0; i < t->size(); ++i)
        byStart[t->start[i]] = {t->end[i], t->intAt(cols::Nvtx::EndTid, i)};
    EXPECT_EQ(byStart[100], std::make_pair(int64_t{200}, int64_t{0}));   // its first end
    EXPECT_EQ(byStart[110], std::make_pair(int64_t{300}, int64_t{10}));  // ended by thread 10
    EXPECT_EQ(byStart[120].first, 1000);  // never ended: its process's end
    EXPECT_EQ(byStart[130].first, 220);
    auto diag = [&](const std::string& name) {
        for (const auto& d : r->diagnostics)
            if (d.name == name) return d.count;
        return int64_t{0};
    };
    EXPECT_EQ(diag("nvtx.unterminated_ranges"), 1);
    EXPECT_EQ(diag("nvtx.unmatched_ends"), 2);  // the second end of 1, the end of 99
}

// fuzz_nvtx_records: a metadata record whose string length is near 2^32 passed the bounds
// check (offset + 4 + length wrapped around) and was read far past the record.
TEST(RawStream, MetaStringLengthCannotWrapAround) {
    alignas(8) uint8_t rec[40] = {};
    MetaRecord m{};
    m.h = {RecordType::Meta, 0, 5, static_cast<uint32_t>(MetaKind::ProcessStart)};
    m.intCount = 0;
    m.strCount = 1;
    std::memcpy(rec, &m, sizeof m);
    const uint32_t len = 0xFFFFFFF0u;
    std::memcpy(rec + sizeof m, &len, 4);
    MetaView v;
    EXPECT_FALSE(decodeMeta(rec, &v));
    // Records shorter than their type's fixed part end the block as malformed.
    alignas(8) uint8_t shortEnd[8] = {static_cast<uint8_t>(RecordType::NvtxEnd), 0, 1, 0};
    RawBlock b;
    b.data = shortEnd;
    b.bytes = 8;
    int seen = 0;
    EXPECT_FALSE(forEachRecord(b, [&](const RecordHeader&, const uint8_t*) { ++seen; }));
    EXPECT_EQ(seen, 0);
}

// fuzz_raw_stream: a damaged string record with an id near 2^32 sized the stream's string table
// by it (512 MiB and more). It is left out, and said.
TEST(RawStream, ImpossibleStringIdIsDamageNotATable) {
    CaptureDir dir;
    const std::string path = dir.file("inject-42-0.slraw");
    {
        StringRecord sr{};
        sr.h = {RecordType::String, 0, 3, 0xFFFFFF00u};
        sr.length = 3;
        std::vector<uint8_t> rec = recordBytes(sr);
        rec.insert(rec.end(), {'a', 'b', 'c', 0, 0, 0, 0, 0});
        StreamFile(path, 42).block(42, 0, {rec});
    }
    ReportBuilder b;
    SessionMerger m(b);
    ASSERT_TRUE(m.addStream(path));
    m.finish(1000);
    auto r = b.finish();
    bool said = false;
    for (const auto& d : r->diagnostics)
        if (d.reason.find("impossible id") != std::string::npos) said = true;
    EXPECT_TRUE(said);
}

// fuzz_raw_stream: a header size that is not a multiple of 8 put every block's records at a
// misaligned address (undefined behaviour when read). Such a stream is refused with its reason.
TEST(RawStream, HeaderOfAnOddSizeIsRefused) {
    CaptureDir dir;
    const std::string path = dir.file("inject-42-0.slraw");
    for (uint32_t bytes : {uint32_t{sizeof(StreamHeader) + 2}, uint32_t{8}}) {
        SCOPED_TRACE(bytes);
        {
            StreamHeader h{};
            std::memcpy(h.magic, kStreamMagic, 8);
            h.version = kStreamVersion;
            h.headerBytes = bytes;
            h.pid = 42;
            std::ofstream f(path, std::ios::binary | std::ios::trunc);
            f.write(reinterpret_cast<const char*>(&h), sizeof h);
            f.write("\0\0", 2);
        }
        auto s = RawStream::open(path);
        ASSERT_FALSE(s);
        EXPECT_NE(s.error().find("bad raw stream header"), std::string::npos) << s.error();
    }
}

// fuzz_raw_stream: a block sequence number near 2^63 overflowed the lost-block count. A gap no
// process could make is damage, said as such; the count stays that of real gaps.
TEST(RawStream, ImpossibleBlockSequenceIsDamageNotLostBlocks) {
    CaptureDir dir;
    const std::string path = dir.file("inject-42-0.slraw");
    {
        const auto pop = recordBytes(NvtxEndRecord{{RecordType::NvtxPop, 0, 2, 0}, 5, 0}, 16);
        StreamFile f(path, 42);
        for (uint64_t seq : {uint64_t{0}, uint64_t{3}, uint64_t{1} << 62, uint64_t{3} << 61})
            f.block(42, seq, {pop});
    }
    ReportBuilder b;
    SessionMerger m(b);
    ASSERT_TRUE(m.addStream(path));
    m.finish(1000);
    auto r = b.finish();
    int64_t lost = -1;
    bool damaged = false;
    for (const auto& d : r->diagnostics) {
        if (d.name == "capture.blocks_lost") lost = d.count;
        if (d.reason.find("impossible sequence number") != std::string::npos) damaged = true;
    }
    EXPECT_EQ(lost, 2);  // blocks 1 and 2
    EXPECT_TRUE(damaged);
}

// After a full disk, the blocks a process could not write leave gaps in its stream (the ones it
// wrote later, or that `import` added from its arena, follow them). capture.write_failed counts
// those with their cause; they are not blocks of a process "killed while writing". A gap in
// another process's stream still is.
TEST(RawStream, GapsOfAProcessWhoseWritesFailedAreNotBlocksLost) {
    CaptureDir dir;
    const auto pop = recordBytes(NvtxEndRecord{{RecordType::NvtxPop, 0, 2, 0}, 5, 0}, 16);
    for (int64_t pid : {42, 43}) {
        StreamFile f(dir.file("inject-" + std::to_string(pid) + "-0.slraw"), pid);
        for (uint64_t seq : {uint64_t{0}, uint64_t{4}}) f.block(pid, seq, {pop});
    }
    ReportBuilder b;
    SessionMerger m(b);
    ASSERT_TRUE(m.addStream(dir.file("inject-42-0.slraw")));
    ASSERT_TRUE(m.addStream(dir.file("inject-43-0.slraw")));
    m.streamWriteFailed(42);
    m.finish(1000);
    auto r = b.finish();
    EXPECT_EQ(r->diagnosticCount("capture.blocks_lost"), 3);  // 43's blocks 1-3 only
}

// fuzz_raw_stream: an NVTX push naming registered string 0 (no string) got the id table's
// "not yet interned" marker as its name, which the parallel pass took for a worker-local id and
// looked up far out of range. String 0 is the empty name.
TEST(RawStream, RegisteredStringZeroIsTheEmptyName) {
    CaptureDir dir;
    const std::string path = dir.file("inject-42-0.slraw");
    {
        StringRecord sr{};
        sr.h = {RecordType::String, 0, 3, 1};
        sr.length = 3;
        std::vector<uint8_t> str = recordBytes(sr);
        str.insert(str.end(), {'a', 'b', 'c', 0, 0, 0, 0, 0});
        NvtxCompactRecord push{};
        push.h = {RecordType::NvtxPush, static_cast<uint8_t>(kNvtxCompact | kNvtxRegistered), 3, 0};
        push.time = 100;
        push.message = 0;
        const auto pop = recordBytes(NvtxEndRecord{{RecordType::NvtxPop, 0, 2, 0}, 200, 0}, 16);
        StreamFile(path, 42).block(42, 0, {str, recordBytes(push), pop});
    }
    ReportBuilder b;
    SessionMerger m(b);
    ASSERT_TRUE(m.addStream(path));
    m.finish(1000);
    auto r = b.finish();
    const Track* t = r->findTrack(TrackKey::forThread(EventKind::NvtxRange, 42, 42, 0));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->size(), 1u);
    EXPECT_EQ(t->nameAt(0), 0u);
    EXPECT_EQ(r->str(t->nameAt(0)), "");
}

TEST(ProfileOptionsParse, Values) {
    ProfileOptions o;
    ASSERT_TRUE(parseTraceList("nvtx,osrt", o));
    EXPECT_FALSE(o.traceCuda);
    EXPECT_TRUE(o.traceNvtx && o.traceOsrt);
    ASSERT_TRUE(parseTraceList("none", o));
    EXPECT_FALSE(o.traceCuda || o.traceNvtx || o.traceOsrt);
    EXPECT_FALSE(parseTraceList("nvtx,foo", o));
    EXPECT_EQ(parseSeconds("0.25", "-d").value(), 250'000'000);
    EXPECT_FALSE(parseSeconds("-1", "-d"));
    EXPECT_FALSE(parseSeconds("1s", "-d"));
    ASSERT_TRUE(parseNvtxCapture("train@my domain", o));
    EXPECT_EQ(o.nvtxRange, "train");
    EXPECT_EQ(o.nvtxDomain, "my domain");
    ASSERT_TRUE(parseCaptureRangeEnd("repeat:4", o));
    EXPECT_EQ(o.rangeEnd, CaptureRangeEnd::Repeat);
    EXPECT_EQ(o.repeatCount, 4);
    EXPECT_FALSE(parseCaptureRangeEnd("repeat:0", o));
    ASSERT_TRUE(parseEnvVar("A=1,B=x=y", o));
    ASSERT_EQ(o.env.size(), 2u);
    EXPECT_EQ(o.env[1].second, "x=y");
    ASSERT_TRUE(parseKill("sigkill", o));
    EXPECT_EQ(o.kill, KillMode::Sigkill);
    EXPECT_EQ(killSignalOf(o), SIGKILL);
    ASSERT_TRUE(parseKill("10", o));
    EXPECT_EQ(o.kill, KillMode::Signal);
    EXPECT_EQ(killSignalOf(o), 10);
    ASSERT_TRUE(parseKill("none", o));
    EXPECT_EQ(killSignalOf(o), 0);
    EXPECT_FALSE(parseKill("sighup", o));
    EXPECT_FALSE(parseKill("0", o));
    ASSERT_TRUE(parseCaptureRangeEnd("repeat-shutdown:3", o));
    EXPECT_EQ(o.rangeEnd, CaptureRangeEnd::RepeatShutdown);
    EXPECT_EQ(o.repeatCount, 3);
    EXPECT_FALSE(parseCaptureRangeEnd("repeat-shutdown:x", o));
}

TEST(ProfileOptionsParse, OutputPatternNextFreeNumber) {
    const std::string dir = ::testing::TempDir() + "sl_pattern_n";
    std::filesystem::create_directories(dir);
    std::filesystem::remove(dir + "/r1.rep");
    std::filesystem::remove(dir + "/r2.rep");
    EXPECT_EQ(expandOutputPattern(dir + "/r%n", 1).value(), dir + "/r1.rep");
    { std::ofstream(dir + "/r1.rep") << "x"; }
    EXPECT_EQ(expandOutputPattern(dir + "/r%n", 1).value(), dir + "/r2.rep");
    std::filesystem::remove(dir + "/r1.rep");
    // A directory (-o outd/): the default name in it (it was outd/.rep, a hidden file).
    std::filesystem::remove(dir + "/report1.rep");
    EXPECT_EQ(expandOutputPattern(dir + "/", 1).value(), dir + "/report1.rep");
    EXPECT_EQ(expandOutputPattern(dir + "//", 1).value(), dir + "/report1.rep");
}

TEST(ProfileOptionsParse, OutputPatterns) {
    setenv("SL_UNIT_X", "val", 1);
    EXPECT_EQ(expandOutputPattern("a-%p", 77).value(), "a-77.rep");
    EXPECT_EQ(expandOutputPattern("a-%q{SL_UNIT_X}.rep", 1).value(), "a-val.rep");
    EXPECT_EQ(expandOutputPattern("100%%", 1).value(), "100%.rep");
    EXPECT_FALSE(expandOutputPattern("a-%z", 1));
    EXPECT_FALSE(expandOutputPattern("a-%q{X", 1));
    EXPECT_TRUE(patternUsesPid("x%p"));
    EXPECT_FALSE(patternUsesPid("x%%p"));
    EXPECT_EQ(numberedName("out.rep", 2), "out.2.rep");
    // The variables left unset are named (a rank variable of the other MPI gave each rank the
    // same name, silently); %%q{ is no variable.
    unsetenv("SL_UNIT_UNSET");
    EXPECT_EQ(unsetPatternVariables("r%q{SL_UNIT_X}-%q{SL_UNIT_UNSET}-%%q{SL_UNIT_NONE}"),
              std::vector<std::string>{"SL_UNIT_UNSET"});
    EXPECT_TRUE(unsetPatternVariables("r%q{SL_UNIT_X}%p").empty());
    EXPECT_TRUE(unsetPatternVariables("r%q{SL_UNIT_OPEN").empty());
}

// nsys scripts write X.nsys-rep (or X.qdrep) and read it back by that name: kept as given.
TEST(ProfileOptionsParse, OutputNamesOfNsysScriptsAreKept) {
    setenv("SL_UNIT_RANK", "3", 1);
    EXPECT_EQ(expandOutputPattern("prof_%q{SL_UNIT_RANK}.nsys-rep", 1).value(), "prof_3.nsys-rep");
    EXPECT_EQ(expandOutputPattern("old.qdrep", 1).value(), "old.qdrep");
    EXPECT_EQ(expandOutputPattern("run.v1", 1).value(), "run.v1.rep");
    EXPECT_EQ(numberedName("out.nsys-rep", 2), "out.2.nsys-rep");
    EXPECT_EQ(numberedName("dir.d/out", 1), "dir.d/out.1.rep");
}

}  // namespace
}  // namespace sl::test
