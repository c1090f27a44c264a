// End to end: the options of `sightline profile` (output names, -f, --show-output, -t,
// --osrt-threshold, --cpu-metrics, capture ranges, drops under overload).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

namespace fs = std::filesystem;

TEST(ProfileOptions, HelpListsEveryOption) {
    int code = -1;
    std::string help = runCapturingStdout({SIGHTLINE_CLI, "profile", "--help"}, &code);
    EXPECT_EQ(code, 0);
    for (const char* opt :
         {"--output", "--force-overwrite", "--trace", "--osrt-threshold", "--delay", "--duration",
          "--kill", "--capture-range", "--nvtx-capture", "--capture-range-end", "--env-var",
          "--trace-fork-before-exec", "--sampling-frequency", "--cpu-metrics",
          "--cpu-metrics-frequency", "--cpuctxsw", "--show-output"})
        EXPECT_NE(help.find(opt), std::string::npos) << opt;
}

TEST(ProfileOptions, BadValuesAreUsageErrors) {
    int code = -1;
    std::string out =
        runCapturingStdout({SIGHTLINE_CLI, "profile", "-t", "cuda,gpu", "/bin/true"}, &code);
    EXPECT_EQ(code, 2);
    EXPECT_NE(out.find("--trace: 'gpu' is not a valid value in 'cuda,gpu'"), std::string::npos)
        << out;
    runCapturingStdout({SIGHTLINE_CLI, "profile", "-d", "soon", "/bin/true"}, &code);
    EXPECT_EQ(code, 2);
    runCapturingStdout({SIGHTLINE_CLI, "profile", "--capture-range-end", "repeat:x", "/bin/true"},
                       &code);
    EXPECT_EQ(code, 2);
    runCapturingStdout({SIGHTLINE_CLI, "profile", "-c", "nvtx", "/bin/true"}, &code);  // -p missing
    EXPECT_EQ(code, 2);
    out =
        runCapturingStdout({SIGHTLINE_CLI, "profile", "-q", "true", "/nonexistent/program"}, &code);
    EXPECT_EQ(code, 127);  // as a shell says "not found"
    EXPECT_NE(out.find("cannot run '/nonexistent/program'"), std::string::npos) << out;
    CaptureDir dir;
    const std::string notExecutable = dir.path() + "/data.txt";
    { std::ofstream(notExecutable) << "not a program\n"; }
    out = runCapturingStdout({SIGHTLINE_CLI, "profile", "-q", "true", "-o", dir.path() + "/r",
                              notExecutable},
                             &code);
    EXPECT_EQ(code, 126);  // found, not executable
    EXPECT_NE(out.find("Permission denied"), std::string::npos) << out;
}

// --export's file is checked before the program starts, as the report's is: it used to be found
// only after the run, which then ended in "already exists" with exit code 1.
TEST(ProfileOptions, ExistingExportFileStopsBeforeTheProgramStarts) {
    CaptureDir dir;
    { std::ofstream(dir.file("r.sqlite")) << "an earlier export\n"; }
    int code = 0;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-o", dir.file("r"), "--export", "sqlite",
         "/bin/sh", "-c", "touch " + dir.file("ran")},
        &code);
    EXPECT_EQ(code, 1) << out;
    EXPECT_NE(out.find("r.sqlite already exists"), std::string::npos) << out;
    EXPECT_FALSE(std::filesystem::exists(dir.file("ran"))) << "the program ran";
    EXPECT_FALSE(std::filesystem::exists(dir.file("r.rep")));
    // With -f it is replaced.
    runCapturingStdout({SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-o", dir.file("r"),
                        "--export", "sqlite", "/bin/true"},
                       &code);
    EXPECT_EQ(code, 0);
    EXPECT_GT(std::filesystem::file_size(dir.file("r.sqlite")), 1000u);
}

TEST(ProfileOptions, DefaultNamesNeverOverwrite) {
    CaptureDir dir;
    std::vector<std::string> args = {SIGHTLINE_CLI, "profile", "-q",       "true",
                                     "--cpuctxsw",  "none",    "/bin/true"};
    EXPECT_EQ(exitCodeOf(runProcess(args, dir.path())), 0);
    EXPECT_EQ(exitCodeOf(runProcess(args, dir.path())), 0);
    EXPECT_TRUE(fs::exists(dir.file("report1.rep")));
    EXPECT_TRUE(fs::exists(dir.file("report2.rep")));
    EXPECT_FALSE(fs::exists(dir.file("report3.rep")));
}

TEST(ProfileOptions, ExistingOutputNeedsForce) {
    CaptureDir dir;
    std::ofstream(dir.file("x.rep")) << "not a report";
    std::vector<std::string> args = {SIGHTLINE_CLI, "profile",         "-q",       "true",
                                     "-o",          dir.file("x.rep"), "/bin/true"};
    EXPECT_EQ(exitCodeOf(runProcess(args)), 1);
    std::ifstream in(dir.file("x.rep"));
    std::string content((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(content, "not a report");
    EXPECT_EQ(profile(dir.file("x.rep"), {}, {"/bin/true"}), 0);  // -f true
    EXPECT_TRUE(load(dir.file("x.rep")));
}

TEST(ProfileOptions, OutputPatternExpansion) {
    CaptureDir dir;
    setenv("SL_TEST_TAG", "tagged", 1);
    EXPECT_EQ(profile(dir.file("r-%q{SL_TEST_TAG}-%p-100%%"), {}, {"/bin/true"}), 0);
    int found = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        std::string n = e.path().filename().string();
        if (n.rfind("r-tagged-", 0) == 0 && n.size() > 14 &&
            n.substr(n.size() - 9) == "-100%.rep") {
            auto r = load(e.path().string());
            ASSERT_TRUE(r);
            std::string pid = std::to_string(r->processes.at(0).pid);
            EXPECT_EQ(n, "r-tagged-" + pid + "-100%.rep");
            ++found;
        }
    }
    EXPECT_EQ(found, 1);
}

// A %q{NAME} that is not set adds nothing to the name, and the profiler says so before the
// program runs (`-o r%q{OMPI_COMM_WORLD_RANK}` under MPICH gave every rank the same name).
TEST(ProfileOptions, AnUnsetOutputVariableIsSaid) {
    CaptureDir dir;
    unsetenv("SL_TEST_UNSET_RANK");
    int code = 0;
    const std::string out = runCapturingStdout(
        {"/bin/sh", "-c", std::string("\"$0\" profile -o \"$1\" /bin/true 2>&1"), SIGHTLINE_CLI,
         dir.file("r%q{SL_TEST_UNSET_RANK}")},
        &code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_NE(out.find("%q{SL_TEST_UNSET_RANK} is not set"), std::string::npos) << out;
    EXPECT_TRUE(load(dir.file("r.rep"))) << out;
}

// Captures that end at once into the same name (`-o run%n` of every rank under mpirun, or one
// fixed name) each keep their report: %n takes the next free number, a fixed name the next
// free sibling (x-2.rep). Before, the last to end replaced the others, each saying "written".
TEST(ProfileOptions, ConcurrentCapturesIntoOneNameKeepEveryReport) {
    CaptureDir dir;
    for (const std::string name : {"run%n", "same"}) {
        SCOPED_TRACE(name);
        std::vector<pid_t> pids;
        for (int i = 0; i < 4; ++i) {
            pid_t p = fork();
            if (p == 0) {
                // Every program ends at the same moment: the reports are written together.
                execl(SIGHTLINE_CLI, SIGHTLINE_CLI, "profile", "-q", "true", "-s", "none",
                      "--cpuctxsw", "none", "-o", dir.file(name).c_str(), "/bin/sleep", "0.3",
                      static_cast<char*>(nullptr));
                _exit(121);
            }
            pids.push_back(p);
        }
        for (pid_t p : pids) {
            int st = 0;
            waitpid(p, &st, 0);
            EXPECT_EQ(exitCodeOf(st), 0);
        }
    }
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        names.insert(e.path().filename().string());
        EXPECT_TRUE(load(e.path().string())) << e.path();
    }
    EXPECT_EQ(names, (std::set<std::string>{"run1.rep", "run2.rep", "run3.rep", "run4.rep",
                                            "same.rep", "same-2.rep", "same-3.rep",
                                            "same-4.rep"}));
}

// Without -f a file made during the capture at the report's name is kept: the report goes to
// the next free sibling, and the profiler says so.
TEST(ProfileOptions, FileMadeDuringTheCaptureIsNotReplaced) {
    CaptureDir dir;
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-s", "none", "-o", dir.file("x"), "/bin/sh", "-c",
         "echo precious > " + dir.file("x.rep")},
        &code);
    EXPECT_EQ(code, 0) << out;
    std::ifstream in(dir.file("x.rep"));
    std::string content((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(content, "precious\n");
    EXPECT_TRUE(load(dir.file("x-2.rep")));
    EXPECT_NE(out.find("the report is " + dir.file("x-2.rep")), std::string::npos) << out;
}

// A symbolic link at the report's name takes the name, dangling or not: without -f it stops the
// capture before the program runs (the final move found it taken after the whole run). With -f
// the report is written through the link to its file (the link replaced by the report before);
// a link into a missing directory stops the capture before the program runs.
TEST(ProfileOptions, LinkAtTheReportsNameNeedsForce) {
    CaptureDir dir;
    fs::create_symlink("/nonexistent/target.rep", dir.file("l.rep"));
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-s", "none", "-o", dir.file("l.rep"), "/bin/sh",
         "-c", "touch " + dir.file("ran")},
        &code);
    EXPECT_EQ(code, 1) << out;
    EXPECT_NE(out.find("already exists"), std::string::npos) << out;
    EXPECT_FALSE(fs::exists(dir.file("ran"))) << "the program ran";
    EXPECT_EQ(exitCodeOf(runProcess({SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-s",
                                     "none", "-o", dir.file("l.rep"), "/bin/sh", "-c",
                                     "touch " + dir.file("ran")})),
              1);
    EXPECT_FALSE(fs::exists(dir.file("ran"))) << "the program ran with a report it cannot write";
    fs::remove(dir.file("l.rep"));
    fs::create_symlink("real.rep", dir.file("l.rep"));
    EXPECT_EQ(profile(dir.file("l.rep"), {"-s", "none"}, {"/bin/sh", "-c", "exit 0"}), 0);  // -f true
    EXPECT_TRUE(fs::is_symlink(dir.file("l.rep")));
    EXPECT_TRUE(load(dir.file("real.rep")));
}

// -o run_%p/x: the directory is named by the root pid, which exists only once the program's
// process does. It is made then, before the program runs; before, "run_0" was checked and the
// error came after the whole capture, the program's exit code replaced by 1.
TEST(ProfileOptions, DirectoryNamedByThePidIsMadeBeforeTheProgramRuns) {
    CaptureDir dir;
    fs::create_directory(dir.file("run_0"));
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-s", "none", "-o", dir.file("run_%p/x"),
         "/bin/sh", "-c", "exit 3"},
        &code);
    EXPECT_EQ(code, 3) << out;
    int reports = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) {
        const std::string n = e.path().filename().string();
        if (n == "run_0") continue;
        auto r = load(e.path().string() + "/x.rep");
        ASSERT_TRUE(r) << n;
        EXPECT_EQ(n, "run_" + std::to_string(r->processes.at(0).pid));
        ++reports;
    }
    EXPECT_EQ(reports, 1);
}

// An nsys script's names: `-o X.nsys-rep` writes X.nsys-rep, which `stats X.nsys-rep` reads; a
// report written as Y.rep (no extension given) is read when a script asks for Y.nsys-rep.
TEST(ProfileOptions, NsysReportNamesOfScriptsWork) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("x.nsys-rep"), {}, {"/bin/true"}), 0);
    EXPECT_TRUE(fs::is_regular_file(dir.file("x.nsys-rep")));
    EXPECT_FALSE(fs::exists(dir.file("x.nsys-rep.rep")));
    int code = -1;
    const std::string xStats =
        runCapturingStdout({SIGHTLINE_CLI, "stats", "-q", "-r", "osrt_sum", dir.file("x.nsys-rep")}, &code);
    EXPECT_EQ(code, 0);
    EXPECT_NE(xStats.find("osrt_sum"), std::string::npos) << xStats;
    ASSERT_EQ(profile(dir.file("y"), {}, {"/bin/true"}), 0);
    ASSERT_TRUE(fs::is_regular_file(dir.file("y.rep")));
    const std::string yStats =
        runCapturingStdout({SIGHTLINE_CLI, "stats", "-q", "-r", "osrt_sum", dir.file("y.nsys-rep")}, &code);
    EXPECT_EQ(code, 0);
    EXPECT_NE(yStats.find("osrt_sum"), std::string::npos) << yStats;
    // Neither name existing is still an error.
    runCapturingStdout({SIGHTLINE_CLI, "stats", "-q", "-r", "osrt_sum", dir.file("z.nsys-rep")}, &code);
    EXPECT_EQ(code, 1);
}

// nsys's -w false: the output goes into the report only (-w true leaves the program its terminal).
TEST(ProfileOptions, ShowOutputFalseStoresProgramOutput) {
    CaptureDir dir;
    EXPECT_EQ(profile(dir.file("o.rep"), {"--show-output", "false"},
                      {"/bin/sh", "-c", "echo hello; echo oops >&2"}),
              0);
    auto r = load(dir.file("o.rep"));
    ASSERT_TRUE(r);
    std::string out, err;
    for (const auto& o : r->programOutput) (o.stream == 1 ? out : err) += o.text;
    EXPECT_EQ(out, "hello\n");
    EXPECT_EQ(err, "oops\n");
    // A character split between two reads of the pipe (\303 then \251: "é") is kept byte for
    // byte: each read is a row, and repairing each row as UTF-8 made it two U+FFFD.
    EXPECT_EQ(profile(dir.file("split.rep"), {"--show-output", "false"},
                      {"/bin/sh", "-c", "printf 'caf\\303'; sleep 0.2; printf '\\251z'"}),
              0);
    r = load(dir.file("split.rep"));
    ASSERT_TRUE(r);
    out.clear();
    for (const auto& o : r->programOutput) out += o.text;
    EXPECT_EQ(out, "caf\xc3\xa9z");
    EXPECT_GE(r->programOutput.size(), 2u);
}

TEST(ProfileOptions, TraceSelectionAndThreshold) {
    CaptureDir dir;
    // osrt only: no NVTX ranges, but the 10 ms sleeps are there.
    EXPECT_EQ(profile(dir.file("a.rep"), {"-t", "osrt", "-d", "0.5"}, {client("sleeper")}),
              128 + 15);
    auto a = load(dir.file("a.rep"));
    ASSERT_TRUE(a);
    EXPECT_TRUE(events(*a, EventKind::NvtxRange).empty());
    EXPECT_FALSE(events(*a, EventKind::OsRuntime, "usleep").empty());
    // A threshold above 10 ms removes them.
    EXPECT_EQ(profile(dir.file("b.rep"), {"--osrt-threshold", "50000000", "-d", "0.5"},
                      {client("sleeper")}),
              128 + 15);
    auto b = load(dir.file("b.rep"));
    ASSERT_TRUE(b);
    EXPECT_TRUE(events(*b, EventKind::OsRuntime, "usleep").empty());
    EXPECT_FALSE(events(*b, EventKind::NvtxRange, "tick").empty());
    // CUDA is accepted and reported as unavailable; metrics off means no series.
    EXPECT_EQ(profile(dir.file("c.rep"), {"-t", "cuda,nvtx", "--cpu-metrics", "off"},
                      {client("proc_tree")}),
              0);
    auto c = load(dir.file("c.rep"));
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->metricSeries.empty());
    // CUDA is traced when this build has the CUDA module, else reported as unavailable.
    bool cudaModule = fs::exists(std::string(SIGHTLINE_MODULE_DIR) + "/libsightline-cuda.so");
    EXPECT_EQ(diagnostic(*c, "cuda.unavailable"), cudaModule ? 0 : 1);
    // -t named cuda: a machine without the NVIDIA driver is said to be one.
    EXPECT_EQ(diagnostic(*c, "cuda.no_driver"),
              fs::exists("/proc/driver/nvidia/version") || fs::exists("/dev/dxg") ? 0 : 1);
    EXPECT_TRUE(events(*c, EventKind::OsRuntime).empty());
    // parent, the forked child before its exec, 3 exec'd children
    EXPECT_EQ(events(*c, EventKind::NvtxRange).size(), 5u);
    // none: no NVTX, no OS runtime, but still the whole process tree.
    EXPECT_EQ(profile(dir.file("d.rep"), {"-t", "none"}, {client("proc_tree")}), 0);
    auto d = load(dir.file("d.rep"));
    ASSERT_TRUE(d);
    EXPECT_TRUE(events(*d, EventKind::NvtxRange).empty());
    EXPECT_TRUE(events(*d, EventKind::OsRuntime).empty());
    EXPECT_EQ(d->processes.size(), 5u);
    EXPECT_EQ(diagnostic(*d, "cuda.unavailable"), 0);
}

TEST(ProfileOptions, NvtxCaptureRangeRepeat) {
    CaptureDir dir;
    EXPECT_EQ(profile(dir.file("cr.rep"),
                      {"-c", "nvtx", "-p", "tick", "--capture-range-end", "repeat:3", "-d", "1"},
                      {client("sleeper")}),
              128 + 15);
    for (int i = 1; i <= 3; ++i) {
        auto r = load(dir.file("cr." + std::to_string(i) + ".rep"));
        ASSERT_TRUE(r) << i;
        auto ticks = events(*r, EventKind::NvtxRange);
        ASSERT_EQ(ticks.size(), 1u) << i;
        EXPECT_EQ(ticks[0].name, "tick");
        for (const auto& e : events(*r, EventKind::OsRuntime)) {
            EXPECT_GE(e.start, ticks[0].start);
            EXPECT_LE(e.start, ticks[0].end);
        }
    }
    EXPECT_FALSE(fs::exists(dir.file("cr.4.rep")));
}

TEST(ProfileOptions, NvtxCaptureRangeStopShutdown) {
    CaptureDir dir;
    auto t0 = std::chrono::steady_clock::now();
    // sleeper runs forever: only the end of the first "tick" can end it.
    EXPECT_EQ(profile(dir.file("ss.rep"),
                      {"-c", "nvtx", "-p", "tick", "--capture-range-end", "stop-shutdown"},
                      {client("sleeper")}),
              128 + 15);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
    auto r = load(dir.file("ss.rep"));
    ASSERT_TRUE(r);
    auto ticks = events(*r, EventKind::NvtxRange);
    ASSERT_EQ(ticks.size(), 1u);
    EXPECT_EQ(ticks[0].name, "tick");
    EXPECT_GE(ticks[0].end - ticks[0].start, 10'000'000);
    EXPECT_EQ(diagnostic(*r, "nvtx.unterminated_ranges"), 0);
    EXPECT_EQ(r->processes.at(0).exitSignal, 15);
}

TEST(ProfileOptions, DelaySkipsTheStart) {
    CaptureDir dir;
    EXPECT_EQ(profile(dir.file("y.rep"), {"-y", "0.5", "-d", "0.5"}, {client("sleeper")}),
              128 + 15);
    auto r = load(dir.file("y.rep"));
    ASSERT_TRUE(r);
    auto ticks = events(*r, EventKind::NvtxRange, "tick");
    ASSERT_FALSE(ticks.empty());
    for (const auto& e : ticks) EXPECT_GE(e.start, r->session.startMonotonicNs + 500'000'000);
}

// A --delay longer than the program: the empty report says why (it said "nothing was dropped").
TEST(ProfileOptions, DelayLongerThanTheProgramIsSaid) {
    CaptureDir dir;
    EXPECT_EQ(profile(dir.file("late.rep"), {"--delay", "1"}, {"/bin/sh", "-c", "exit 2"}), 2);
    auto r = load(dir.file("late.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "capture.delay_not_reached"), 1);
    CaptureDir other;  // and not when the delay ended before the program did
    EXPECT_EQ(profile(other.file("on.rep"), {"--delay", "0.1"}, {"/bin/sleep", "0.4"}), 0);
    auto on = load(other.file("on.rep"));
    ASSERT_TRUE(on);
    EXPECT_EQ(diagnostic(*on, "capture.delay_not_reached"), 0);
}

TEST(ProfileOptions, KillNoneLeavesTheProgramRunning) {
    CaptureDir dir;
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(profile(dir.file("n.rep"), {"-d", "0.3", "--kill", "none"}, {"/bin/sleep", "3"}), 0);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(secs, 2.5);  // did not wait for the 3 s sleep
    auto r = load(dir.file("n.rep"));
    ASSERT_TRUE(r);
    EXPECT_EQ(diagnostic(*r, "capture.program_still_running"), 1);
    ASSERT_EQ(r->processes.size(), 1u);
    EXPECT_EQ(r->processes[0].end, kUnknownTime);
}

// Overload: a 1 MiB in-flight budget of 64 KiB buffers holds 16 buffers; the main thread and 16
// workers need 17 at once, so drops are certain whatever the machine's speed. Every range is
// either in the report or counted in nvtx.ranges_dropped, exactly.
TEST(ProfileOptions, DropsAreCountedExactly) {
    CaptureDir dir;
    EXPECT_EQ(profile(dir.file("f.rep"),
                      {"-e", "SIGHTLINE_BUFFER_MB=1,SIGHTLINE_BUFFER_KB=64", "--cpuctxsw", "none"},
                      {client("flood"), "16", "20000"}),
              0);
    auto r = load(dir.file("f.rep"));
    ASSERT_TRUE(r);
    int64_t kept = static_cast<int64_t>(events(*r, EventKind::NvtxRange, "r").size());
    int64_t dropped = diagnostic(*r, "nvtx.ranges_dropped");
    EXPECT_GT(dropped, 0);
    EXPECT_EQ(kept + dropped, 320000);
    EXPECT_EQ(diagnostic(*r, "nvtx.unterminated_ranges"), 0);
    EXPECT_EQ(diagnostic(*r, "nvtx.unmatched_pops"), 0);
}

TEST(ProfileOptions, NoDropsWithDefaultBuffers) {
    CaptureDir dir;
    EXPECT_EQ(profile(dir.file("g.rep"), {"--cpuctxsw", "none"}, {client("flood"), "16", "20000"}),
              0);
    auto r = load(dir.file("g.rep"));
    ASSERT_TRUE(r);
    int64_t kept = static_cast<int64_t>(events(*r, EventKind::NvtxRange, "r").size());
    EXPECT_EQ(kept + diagnostic(*r, "nvtx.ranges_dropped"), 320000);
}

// The rank variables of a distributed job that the program inherits are kept in the report (the
// recipes' rank rule reads them); an -e value wins and is kept once; with -n false the program
// does not inherit them, so the report does not claim them.
TEST(ProfileOptions, RankVariablesOfTheInheritedEnvironmentAreKept) {
    CaptureDir dir;
    auto envOf = [](const Report& r) {
        std::map<std::string, std::vector<std::string>> m;
        for (const auto& [k, v] : r.session.environment) m[k].push_back(v);
        return m;
    };
    int code = 0;
    const std::string out = dir.file("ranked.rep");
    const std::string log = runCapturingStdout(
        {"env", "RANK=7", "OMPI_COMM_WORLD_RANK=3", "SLURM_PROCID=9", "UNRELATED=1", SIGHTLINE_CLI,
         "profile", "-q", "true", "-f", "true", "-s", "none", "-e", "RANK=5", "-o", out, "/bin/true"},
        &code);
    ASSERT_EQ(code, 0) << log;
    auto r = load(out);
    ASSERT_TRUE(r);
    auto env = envOf(*r);
    EXPECT_EQ(env["RANK"], std::vector<std::string>{"5"});
    EXPECT_EQ(env["OMPI_COMM_WORLD_RANK"], std::vector<std::string>{"3"});
    EXPECT_EQ(env["SLURM_PROCID"], std::vector<std::string>{"9"});
    EXPECT_EQ(env.count("UNRELATED"), 0u);

    const std::string bare = dir.file("bare.rep");
    const std::string log2 = runCapturingStdout(
        {"env", "RANK=7", SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-s", "none", "-n",
         "false", "-o", bare, "/bin/true"},
        &code);
    ASSERT_EQ(code, 0) << log2;
    auto r2 = load(bare);
    ASSERT_TRUE(r2);
    EXPECT_EQ(envOf(*r2).count("RANK"), 0u);
}

}  // namespace
}  // namespace sl::test
