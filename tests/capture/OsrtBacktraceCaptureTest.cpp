// End to end: --osrt-backtrace-threshold on tests/clients/osrt_backtrace (built -O2
// -fomit-frame-pointer), whose main -> outer -> inner makes slow (5 ms) and fast OS runtime
// calls. Exactly the recorded calls at least as long as the threshold get a native stack; the
// stacks name inner, outer, main in order; the depth is honoured; details and the SQLite
// export (OSRT_CALLCHAINS) show them.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "CaptureTestUtil.h"
#include "model/analysis/EventQueryDetails.h"
#include "model/rep/Sqlite.h"

namespace sl::test {
namespace {

constexpr int64_t kThreshold = 1'000'000;  // 1 ms: the slow calls take 5 ms, the fast ones µs

std::vector<std::string> functionsOf(const Report& r, const CallStack& s) {
    std::vector<std::string> out;
    for (uint32_t f : s.frames) out.emplace_back(r.str(r.stackFrames.at(f).function));
    return out;
}

std::string sqliteQuery(const std::string& path, const std::string& sql) {
    sqlite::Db db;
    if (!db.openReadOnly(path)) return "";
    sqlite::Stmt st(db, sql);
    if (!st.valid() || !st.step() || st.isNull(0)) return "";
    return std::to_string(st.i64(0));
}

std::shared_ptr<Report> capture(CaptureDir& dir, const std::string& name,
                                const std::vector<std::string>& options) {
    std::vector<std::string> args = {"-t", "osrt", "--osrt-threshold", "0"};
    args.insert(args.end(), options.begin(), options.end());
    const std::string out = dir.file(name + ".rep");
    EXPECT_EQ(profile(out, args, {client("osrt_backtrace"), "3"}), 0);
    return load(out);
}

int64_t clientPid(const Report& r) {
    int64_t pid = -1;  // the first one (the forked child has the same command line)
    for (const auto& p : r.processes)
        if (p.commandLine.find("osrt_backtrace") != std::string::npos && (pid < 0 || p.pid < pid))
            pid = p.pid;
    return pid;
}

TEST(OsrtBacktrace, ExactlyTheSlowCallsHaveStacksThroughInnerOuterMain) {
    CaptureDir dir;
    auto rep = capture(dir, "bt", {"--osrt-backtrace-threshold", std::to_string(kThreshold)});
    ASSERT_TRUE(rep);
    const Report& r = *rep;
    const int64_t pid = clientPid(r);
    ASSERT_GT(pid, 0);
    // The designed slow calls take 5 ms; a "fast" one may pass 1 ms on a loaded machine, and
    // then must have its stack too: the check is against each call's own duration.
    size_t innerStacks = 0, slowWriter = 0, fast = 0, child = 0;
    std::vector<Ev> innerCalls;  // main's calls in inner, fast or slow, in time order below
    for (const Ev& e : events(r, EventKind::OsRuntime)) {
        if (e.pid != pid) {  // the forked child: its 5 ms sleep in forked()
            const CallStack* bt = r.backtraceOf(EventKind::OsRuntime, e.pid, e.tid, e.start);
            if (e.name != "nanosleep" || e.end - e.start < kThreshold) continue;
            ASSERT_NE(bt, nullptr);
            const auto fns = functionsOf(r, *bt);
            ASSERT_GE(fns.size(), 2u);
            EXPECT_EQ(fns[0], "forked");
            EXPECT_EQ(fns[1], "main");
            ++child;
            continue;
        }
        const CallStack* bt = r.backtraceOf(EventKind::OsRuntime, e.pid, e.tid, e.start);
        if (e.tid == e.pid && e.name != "open" && e.name != "pthread_join" && e.name != "waitpid")
            innerCalls.push_back(e);
        if (e.end - e.start < kThreshold) {
            EXPECT_EQ(bt, nullptr) << e.name << " of " << e.end - e.start << " ns has a stack";
            ++fast;
            continue;
        }
        ASSERT_NE(bt, nullptr) << e.name << " of " << e.end - e.start << " ns has no stack";
        const auto fns = functionsOf(r, *bt);
        ASSERT_FALSE(fns.empty());
        for (uint32_t f : bt->frames)  // none of the profiler's own frames
            EXPECT_EQ(r.str(r.stackFrames[f].module).find("libsightline-inject"), std::string::npos);
        if (e.tid != e.pid) {  // the helper thread: writer, then the C library's thread start
            EXPECT_EQ(fns[0], "writer") << e.name;
            ++slowWriter;
            continue;
        }
        EXPECT_LE(fns.size(), 24u);  // --osrt-backtrace-depth's default
        EXPECT_TRUE(r.str(r.stackFrames[bt->frames[0]].module).ends_with("/osrt_backtrace"));
        if (e.name == "open" || e.name == "pthread_join" || e.name == "waitpid") {  // by main
            EXPECT_EQ(fns[0], "main") << e.name;
            continue;
        }
        ASSERT_GE(fns.size(), 3u) << e.name;
        EXPECT_EQ(fns[0], "inner") << e.name;
        EXPECT_EQ(fns[1], "outer") << e.name;
        EXPECT_EQ(fns[2], "main") << e.name;
        ++innerStacks;
        // The details panel, leaf first, as "function (module)".
        auto fields = analysis::eventDetails(
            r, {static_cast<uint32_t>(e.track - r.tracks.data()), static_cast<uint32_t>(e.index)});
        EXPECT_EQ(analysis::detailValue(fields, "Backtrace"), "inner (osrt_backtrace)");
    }
    // Every call of each of the 3 rounds, in order: the 5 ms nanosleep and poll, the request's
    // write and the read of the reply the helper sends 5 ms after the request (on a loaded
    // machine the write may be preempted for part of that wait: the pair takes 5 ms), then the
    // zero nanosleep, the zero-timeout poll and the read of /dev/zero.
    std::sort(innerCalls.begin(), innerCalls.end(),
              [](const Ev& a, const Ev& b) { return a.start < b.start; });
    ASSERT_EQ(innerCalls.size(), 21u);
    const char* order[7] = {"nanosleep", "poll", "write", "read", "nanosleep", "poll", "read"};
    constexpr int64_t kSlow = 4'900'000;  // 5 ms, less the clock's and the timer's slack
    for (size_t round = 0; round < 3; ++round) {
        const Ev* c = &innerCalls[round * 7];
        for (int k = 0; k < 7; ++k) EXPECT_EQ(c[k].name, order[k]) << "round " << round;
        EXPECT_GE(c[0].end - c[0].start, kSlow) << "round " << round;
        EXPECT_GE(c[1].end - c[1].start, kSlow) << "round " << round;
        EXPECT_GE(c[3].end - c[2].start, kSlow) << "round " << round;
    }
    EXPECT_GE(slowWriter, 6u);   // its waits for the request and its 5 ms sleeps
    EXPECT_GE(fast, 12u);        // the request's write, the zero sleep, poll and read
    EXPECT_EQ(child, 1u);
    EXPECT_EQ(diagnostic(r, "native_backtrace.unresolved"), 0);

    // Exported as nsys does: OSRT_API.callchainId and OSRT_CALLCHAINS, stackDepth 0 the leaf.
    ASSERT_EQ(exitCodeOf(runProcess({SIGHTLINE_CLI, "export", "--type", "sqlite", "-f", "true", "-o",
                                     dir.file("bt.sqlite"), dir.file("bt.rep")})),
              0);
    auto chainsThrough = [&](int depth, const char* function) {
        return sqliteQuery(dir.file("bt.sqlite"),
                           "SELECT count(*) FROM OSRT_API a JOIN OSRT_CALLCHAINS c ON c.id = "
                           "a.callchainId AND c.stackDepth = " + std::to_string(depth) +
                               " JOIN StringIds s ON s.id = c.symbol WHERE s.value = '" +
                               function + "'");
    };
    EXPECT_EQ(chainsThrough(0, "inner"), std::to_string(innerStacks));
    EXPECT_EQ(chainsThrough(2, "main"), std::to_string(innerStacks));
}

TEST(OsrtBacktrace, DepthAndThresholdAreHonoured) {
    CaptureDir dir;
    // Depth 2: inner and outer only.
    auto shallow = capture(dir, "depth",
                           {"--osrt-backtrace-threshold", std::to_string(kThreshold),
                            "--osrt-backtrace-depth", "2", "--osrt-backtrace-stack-size", "4096"});
    ASSERT_TRUE(shallow);
    const int64_t parent = clientPid(*shallow);
    size_t stacks = 0;
    for (const Ev& e : events(*shallow, EventKind::OsRuntime)) {
        const CallStack* bt = shallow->backtraceOf(EventKind::OsRuntime, e.pid, e.tid, e.start);
        if (!bt) continue;
        ++stacks;
        EXPECT_LE(bt->frames.size(), 2u);
        // The parent's main thread, in inner (not its calls from main, nor the forked child).
        if (e.pid == parent && e.tid == e.pid && e.name != "open" && e.name != "pthread_join" &&
            e.name != "waitpid") {
            EXPECT_EQ(functionsOf(*shallow, *bt), (std::vector<std::string>{"inner", "outer"}));
        }
    }
    EXPECT_GE(stacks, 9u);
    // A threshold above every call (1 s): calls recorded, none with a stack.
    auto high = capture(dir, "high", {"--osrt-backtrace-threshold", "1000000000"});
    ASSERT_TRUE(high);
    EXPECT_FALSE(events(*high, EventKind::OsRuntime).empty());
    EXPECT_TRUE(high->backtraces.empty());
    // Without the option: none (as before it existed).
    auto off = capture(dir, "off", {});
    ASSERT_TRUE(off);
    EXPECT_FALSE(events(*off, EventKind::OsRuntime).empty());
    EXPECT_TRUE(off->backtraces.empty());
}

}  // namespace
}  // namespace sl::test
