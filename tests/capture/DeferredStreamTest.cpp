// Streams made with their first block (ProcessWriter, arenas on their own file system): a process
// that writes everything at its end leaves its stream beside its arena, one that writes while it
// runs has it in the session directory, and one killed before its first block gets its stream
// from its arena (ArenaSalvage). The module is loaded by hand with the launcher's environment, so
// the files can be looked at before the launcher would merge and remove them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "capture/common/Clock.h"
#include "capture/common/RawReader.h"
#include "capture/launcher/ArenaSalvage.h"
#include "capture/launcher/SessionMerger.h"
#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

namespace fs = std::filesystem;
using capture::RawStream;
using capture::SessionMerger;

// Runs `/bin/sh -c script` with our module preloaded, OS runtime calls traced (every call), the
// session in `session` and the arenas in `arenas`. Returns (pid, wait status).
std::pair<pid_t, int> runTraced(const CaptureDir& session, const CaptureDir& arenas,
                                const std::string& script,
                                const std::vector<std::pair<std::string, std::string>>& env = {}) {
    const std::string module = std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-inject.so";
    const pid_t pid = fork();
    if (pid == 0) {
        setenv("LD_PRELOAD", module.c_str(), 1);
        setenv("SIGHTLINE_SESSION_DIR", session.path().c_str(), 1);
        setenv("SIGHTLINE_ARENA_DIR", arenas.path().c_str(), 1);
        setenv("SIGHTLINE_TRACE", "osrt", 1);
        setenv("SIGHTLINE_OSRT_THRESHOLD_NS", "0", 1);
        for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
        execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return {pid, status};
}

size_t filesEndingWith(const std::string& dir, const std::string& ext) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir))
        n += e.path().extension() == ext;
    return n;
}

TEST(DeferredStream, ShortProcessWritesItsStreamBesideItsArena) {
    CaptureDir session, arenas;
    const auto [pid, status] = runTraced(session, arenas, "exit 3");
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 3);  // the program's own exit code, untouched
    EXPECT_TRUE(SessionMerger::listStreams(session.path()).empty())
        << "no file was to be created in the session directory";
    EXPECT_EQ(filesEndingWith(arenas.path(), ".slbuf"), 0u) << "the arena is removed at the end";
    const auto streams = SessionMerger::listStreams(session.path(), arenas.path());
    ASSERT_EQ(streams.size(), 1u);
    EXPECT_EQ(fs::path(streams[0]).parent_path(), fs::path(arenas.path()));
    auto s = RawStream::open(streams[0]);
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->header().pid, pid);
    EXPECT_STREQ(s->header().module, "inject");
    EXPECT_GT(s->header().startMonotonicNs, 0);
    EXPECT_EQ(s->damagedBytes(), 0u);
    EXPECT_FALSE(s->blocks().empty());
}

TEST(DeferredStream, StreamWrittenWhileRunningIsInTheSessionDirectory) {
    CaptureDir session, arenas;
    // 16 KiB buffers (the least): 3,000 traced redirections fill several, which the module's
    // writer thread writes while the shell still runs.
    const auto [pid, status] =
        runTraced(session, arenas, "i=0; while [ $i -lt 3000 ]; do : </dev/null; i=$((i+1)); done",
                  {{"SIGHTLINE_BUFFER_KB", "16"}});
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    const auto streams = SessionMerger::listStreams(session.path(), arenas.path());
    ASSERT_EQ(streams.size(), 1u);
    EXPECT_EQ(fs::path(streams[0]).parent_path(), fs::path(session.path()));
    auto s = RawStream::open(streams[0]);
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->header().pid, pid);
    EXPECT_GT(s->blocks().size(), 3u);
    EXPECT_EQ(s->damagedBytes(), 0u);
}

TEST(DeferredStream, ProcessKilledBeforeItsFirstBlockGetsItsStreamFromItsArena) {
    CaptureDir session, arenas;
    const auto [pid, status] = runTraced(session, arenas, ": </dev/null; kill -9 $$");
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), 9);
    ASSERT_TRUE(SessionMerger::listStreams(session.path(), arenas.path()).empty());
    ASSERT_EQ(filesEndingWith(arenas.path(), ".slbuf"), 1u);
    const capture::SalvageSummary sum = capture::salvageArenas(session.path(), arenas.path());
    EXPECT_TRUE(sum.problems.empty()) << sum.problems.front();
    EXPECT_EQ(sum.streams, 1);
    EXPECT_GE(sum.blocks, 1u);
    EXPECT_EQ(filesEndingWith(arenas.path(), ".slbuf"), 0u);
    const auto streams = SessionMerger::listStreams(session.path(), arenas.path());
    ASSERT_EQ(streams.size(), 1u);
    auto s = RawStream::open(streams[0]);
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->header().pid, pid);
    EXPECT_STREQ(s->header().module, "inject");  // from the file's name, as the process names it
    EXPECT_GT(s->header().startMonotonicNs, 0);   // from the arena's header
    EXPECT_EQ(s->damagedBytes(), 0u);
    // The merge reads what the shell recorded before its death, including who it was.
    ReportBuilder b;
    SessionMerger m(b);
    ASSERT_TRUE(m.addStream(streams[0]));
    m.finish(capture::nowNs());
    auto r = b.finish();
    bool found = false;
    for (const auto& p : r->processes) found |= p.pid == pid;
    EXPECT_TRUE(found);
    EXPECT_GT(r->eventCount(EventKind::OsRuntime), 0u);
}

// A process killed between creating its stream file and writing the header (a pool worker
// ended by SIGTERM or SIGKILL as its first block went out) leaves an empty stream beside a full
// arena: the arena's records still reach the report, whichever directory the stream was in.
TEST(DeferredStream, ProcessKilledWhileCreatingItsStreamGetsItFromItsArena) {
    for (const bool inSession : {true, false}) {
        SCOPED_TRACE(inSession ? "empty stream in the session directory"
                               : "empty stream beside the arena");
        CaptureDir session, arenas;
        const auto [pid, status] = runTraced(session, arenas, ": </dev/null; kill -9 $$");
        ASSERT_TRUE(WIFSIGNALED(status));
        ASSERT_EQ(filesEndingWith(arenas.path(), ".slbuf"), 1u);
        std::string stem;
        for (const auto& e : fs::directory_iterator(arenas.path()))
            if (e.path().extension() == ".slbuf") stem = e.path().stem().string();
        std::ofstream((inSession ? session.path() : arenas.path()) + "/" + stem + ".slraw");
        const capture::SalvageSummary sum = capture::salvageArenas(session.path(), arenas.path());
        EXPECT_TRUE(sum.problems.empty()) << sum.problems.front();
        EXPECT_GE(sum.blocks, 1u);
        const auto streams = SessionMerger::listStreams(session.path(), arenas.path());
        ASSERT_EQ(streams.size(), 1u);
        auto s = RawStream::open(streams[0]);
        ASSERT_TRUE(s) << s.error();
        EXPECT_EQ(s->header().pid, pid);
        ReportBuilder b;
        SessionMerger m(b);
        ASSERT_TRUE(m.addStream(streams[0]));
        m.finish(capture::nowNs());
        EXPECT_GT(b.finish()->eventCount(EventKind::OsRuntime), 0u);
    }
}

// What a process's arena takes on its file system while it runs, in bytes: the traced `stat`
// (the shell execs it as its last command) lists the arenas of the session, its own included.
// A short process backs only the first 16 KiB of its buffer's slot (ProcessWriter,
// kFirstBackedBytes), not all 260 KiB of it.
TEST(DeferredStream, ShortProcessBacksOnlyTheFirstPagesOfItsBuffer) {
    CaptureDir session, arenas, out;
    const std::string listing = out.file("allocated.txt");
    const auto [pid, status] =
        runTraced(session, arenas,
                  ": </dev/null; stat -c '%b %B %s' \"$SIGHTLINE_ARENA_DIR\"/*.slbuf >" + listing);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    std::ifstream in(listing);
    long long blocks = 0, blockBytes = 0, size = 0;
    int arenasSeen = 0;
    while (in >> blocks >> blockBytes >> size) {
        ++arenasSeen;
        EXPECT_GT(size, 100ll << 20) << "the file spans the whole budget (sparse)";
        // The arena's 4 KiB header and the first 16 KiB of one slot (a page of slack for file
        // systems that round up).
        EXPECT_LE(blocks * blockBytes, 4096 + 16384 + 4096);
        EXPECT_GT(blocks * blockBytes, 0);
    }
    EXPECT_GE(arenasSeen, 1) << "stat's own arena";
}

// A thread buffer whose slot grew past its first pages (16 KiB, 64 KiB, then the whole slot)
// keeps every record it committed, also when the process is killed and its stream is made from
// its arena.
TEST(DeferredStream, KilledProcessKeepsEveryRecordOfItsGrownBuffer) {
    CaptureDir session, arenas;
    constexpr int kReads = 1500;  // about 250 KiB of OS runtime records: more than one buffer
    const auto [pid, status] = runTraced(
        session, arenas,
        "i=0; while [ $i -lt " + std::to_string(kReads) +
            " ]; do read x </dev/null; i=$((i+1)); done; kill -9 $$");
    ASSERT_TRUE(WIFSIGNALED(status));
    const capture::SalvageSummary sum = capture::salvageArenas(session.path(), arenas.path());
    EXPECT_TRUE(sum.problems.empty()) << sum.problems.front();
    ReportBuilder b;
    SessionMerger m(b);
    for (const auto& path : SessionMerger::listStreams(session.path(), arenas.path()))
        ASSERT_TRUE(m.addStream(path));
    m.finish(capture::nowNs());
    auto r = b.finish();
    ASSERT_TRUE(r);
    // Every `read` of the loop (one per iteration: dash reads a line a byte at a time, and the
    // empty file ends it at once).
    EXPECT_EQ(events(*r, EventKind::OsRuntime, "read").size(), static_cast<size_t>(kReads));
}

// The module's writer thread made the stream when the first buffer was handed over, and took the
// lowest free descriptor number for it: the number a single-threaded program had just freed for
// its next open() (4 runs of 20 failed, "open took 3"), or, in a shell's redirection, the number
// it dup2'd its own file onto next, which replaced the stream: its header went nowhere and all
// of the process's records with it (one `sh` loop in 70). The stream is made on the program's
// thread now, within its call.
TEST(DeferredStream, TheStreamNeverTakesTheNumberTheProgramFreed) {
    constexpr int kRuns = 20, kReopens = 20000;
    const std::string client = std::string(SIGHTLINE_CLIENTS) + "/lowest_fd";
    for (int run = 0; run < kRuns; ++run) {
        SCOPED_TRACE("run " + std::to_string(run));
        CaptureDir session, arenas;
        // 16 KiB buffers: the first is handed over, and the writer started, while the loop runs.
        const auto [pid, status] =
            runTraced(session, arenas, client + " " + std::to_string(kReopens) + " >/dev/null",
                      {{"SIGHTLINE_BUFFER_KB", "16"}});
        ASSERT_TRUE(WIFEXITED(status));
        ASSERT_EQ(WEXITSTATUS(status), 0) << "the program's open() took another number than the one it freed";
        const auto streams = SessionMerger::listStreams(session.path(), arenas.path());
        // sh's, written at its end beside its arena, and the client's (sh execs it: two images
        // of one pid), written while it ran, in the session directory.
        ASSERT_EQ(streams.size(), 2u);
        EXPECT_EQ(SessionMerger::listStreams(session.path()).size(), 1u);
        ReportBuilder b;
        SessionMerger m(b);
        for (const auto& path : streams) ASSERT_TRUE(m.addStream(path));
        m.finish(capture::nowNs());
        auto r = b.finish();
        ASSERT_TRUE(r);
        EXPECT_EQ(events(*r, EventKind::OsRuntime, "open").size(), static_cast<size_t>(kReopens));
    }
}

// Making the stream moved onto the program's thread, inside its NVTX call: the program's errno
// came back as EAGAIN after the first full buffer (a review's program checking errno across
// nvtxMarkA: "errno changed at push 5370: 11"). It is the program's again after every call.
TEST(DeferredStream, MakingTheStreamLeavesTheProgramsErrnoAlone) {
    CaptureDir dir;
    const std::string out = dir.file("errno.rep");
    // 16 KiB buffers: the stream is made while the loop runs (`-e` passes it to the program).
    int code = 0;
    const std::string text =
        profileNvtxOnly(out, "errno_kept", {"20000"}, &code, {"-e", "SIGHTLINE_BUFFER_KB=16"});
    ASSERT_EQ(code, 0) << text;
    EXPECT_NE(text.find("marks=20000"), std::string::npos) << text;
}

// A forked child opens its stream with its first record. A thread that recorded while another
// thread of the child opened it went on at once, found neither a stream nor one to be made, and
// its blocks were lost without a word: every mark of a worker's second thread while its main
// thread forked, in 5 of 10 runs of 60 workers. They wait for the opening now.
TEST(DeferredStream, ThreadsRecordingWhileAForkedChildsStreamOpensLoseNothing) {
    constexpr int kRuns = 3, kWorkers = 60, kMarks = 3000;
    for (int run = 0; run < kRuns; ++run) {
        SCOPED_TRACE("run " + std::to_string(run));
        CaptureDir dir;
        const std::string out = dir.file("workers.rep");
        // 16 KiB buffers: blocks are handed over and written while the stream opens.
        int code = 0;
        const std::string text = profileNvtxOnly(
            out, "forked_first_records", {std::to_string(kWorkers), std::to_string(kMarks)},
            &code, {"-e", "SIGHTLINE_BUFFER_KB=16"});
        ASSERT_EQ(code, 0) << text;
        auto r = load(out);
        ASSERT_TRUE(r);
        std::map<int64_t, int> perWorker;
        for (const auto& e : events(*r, EventKind::NvtxMark, "worker")) ++perWorker[e.pid];
        EXPECT_EQ(perWorker.size(), static_cast<size_t>(kWorkers));
        for (const auto& [pid, n] : perWorker) EXPECT_EQ(n, kMarks) << "worker " << pid;
    }
}

}  // namespace
}  // namespace sl::test
