// End to end: CPU IP/backtrace sampling (`-s process-tree`, `--sampling-frequency`, `-b`) on
// tests/clients/sampling_client, which burns known amounts of CPU time in named functions and
// writes its pids, tids and per-thread CPU times to a result file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

struct Burn {
    int64_t pid = 0, tid = 0, cpuNs = 0;
};

// "A 123 123 700000000" lines: what, pid, tid, thread CPU time.
std::map<std::string, Burn> readBurns(const std::string& path) {
    std::map<std::string, Burn> out;
    std::ifstream f(path);
    std::string what;
    Burn b;
    while (f >> what >> b.pid >> b.tid >> b.cpuNs) out[what] = b;
    return out;
}

struct Sample {
    int64_t pid, tid;
    std::vector<std::string> functions;  // leaf first
    std::vector<std::string> modules;
};

std::vector<Sample> samplesOf(const Report& r, int64_t tid = -1) {
    std::vector<Sample> out;
    for (const Track& t : r.tracks) {
        if (t.key.kind != EventKind::CpuSample || (tid >= 0 && t.key.tid != tid)) continue;
        for (size_t i = 0; i < t.size(); ++i) {
            Sample s{t.key.pid, t.key.tid, {}, {}};
            const auto stack = static_cast<uint32_t>(t.intAt(cols::CpuSample::Stack, i));
            for (uint32_t f : r.callStacks.at(stack).frames) {
                s.functions.emplace_back(r.str(r.stackFrames.at(f).function));
                s.modules.emplace_back(r.str(r.stackFrames.at(f).module));
            }
            EXPECT_EQ(r.str(t.nameAt(i)), s.functions.front());  // the name is the leaf function
            out.push_back(std::move(s));
        }
    }
    return out;
}

bool has(const Sample& s, const std::string& fn) {
    return std::find(s.functions.begin(), s.functions.end(), fn) != s.functions.end();
}

// Whether `callers` appear in this order right after the leaf `leaf`.
bool startsWith(const Sample& s, const std::vector<std::string>& frames) {
    if (s.functions.size() < frames.size()) return false;
    return std::equal(frames.begin(), frames.end(), s.functions.begin());
}

double share(const std::vector<Sample>& v, const std::function<bool(const Sample&)>& pred) {
    if (v.empty()) return 0;
    return static_cast<double>(std::count_if(v.begin(), v.end(), pred)) /
           static_cast<double>(v.size());
}

class SamplingCapture : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = new CaptureDir;
        const std::string result = s_dir->file("burns.txt");
        s_code = profile(s_dir->file("threads.rep"), {"--sampling-frequency", "1000"},
                         {client("sampling_client"), "threads", result});
        s_report = load(s_dir->file("threads.rep"));
        s_burns = readBurns(result);
    }
    static void TearDownTestSuite() {
        s_report.reset();
        delete s_dir;
    }
    static CaptureDir* s_dir;
    static int s_code;
    static std::shared_ptr<Report> s_report;
    static std::map<std::string, Burn> s_burns;
};
CaptureDir* SamplingCapture::s_dir = nullptr;
int SamplingCapture::s_code = -1;
std::shared_ptr<Report> SamplingCapture::s_report;
std::map<std::string, Burn> SamplingCapture::s_burns;

TEST_F(SamplingCapture, SamplesOnTheRightThreadsInTheRightFunctions) {
    ASSERT_EQ(s_code, 0);
    ASSERT_TRUE(s_report);
    ASSERT_EQ(s_burns.size(), 2u);
    const Burn a = s_burns["A"], b = s_burns["B"];
    EXPECT_EQ(a.pid, a.tid);  // A is the main thread
    EXPECT_NE(b.tid, a.tid);
    const auto sa = samplesOf(*s_report, a.tid), sb = samplesOf(*s_report, b.tid);
    ASSERT_FALSE(sa.empty());
    ASSERT_FALSE(sb.empty());
    for (const auto& s : sa) EXPECT_EQ(s.pid, a.pid);
    EXPECT_GT(share(sa, [](const Sample& s) { return has(s, "hotA(long)"); }), 0.9);
    EXPECT_GT(share(sb, [](const Sample& s) { return has(s, "hotB(long)"); }), 0.9);
    EXPECT_EQ(share(sa, [](const Sample& s) { return has(s, "hotB(long)"); }), 0.0);
    EXPECT_EQ(share(sb, [](const Sample& s) { return has(s, "hotA(long)"); }), 0.0);
    // Every sample of the tree is on one of the two threads' or the process's start.
    EXPECT_GE(sa.size() + sb.size(), samplesOf(*s_report).size() * 9 / 10);
}

TEST_F(SamplingCapture, CountFollowsFrequencyTimesCpuTime) {
    ASSERT_TRUE(s_report);
    for (const char* which : {"A", "B"}) {
        const Burn& burn = s_burns[which];
        const double expected = 1000.0 * static_cast<double>(burn.cpuNs) / 1e9;
        const double got = static_cast<double>(samplesOf(*s_report, burn.tid).size());
        EXPECT_GT(got, expected * 0.8)
            << which << ": " << got << " samples for " << burn.cpuNs << " ns of CPU";
        EXPECT_LT(got, expected * 1.2)
            << which << ": " << got << " samples for " << burn.cpuNs << " ns of CPU";
    }
    // The main thread burned 70% of the busy CPU time, thread B 30%.
    const double a = static_cast<double>(samplesOf(*s_report, s_burns["A"].tid).size());
    const double b = static_cast<double>(samplesOf(*s_report, s_burns["B"].tid).size());
    EXPECT_NEAR(a / (a + b), 0.7, 0.07);
}

TEST_F(SamplingCapture, StacksHaveTheCallersInOrder) {
    ASSERT_TRUE(s_report);
    const auto sa = samplesOf(*s_report, s_burns["A"].tid);
    const auto sb = samplesOf(*s_report, s_burns["B"].tid);
    EXPECT_GT(share(sa,
                    [](const Sample& s) {
                        return startsWith(s, {"hotA(long)", "runA()", "main"});
                    }),
              0.9);
    EXPECT_GT(share(sb,
                    [](const Sample& s) {
                        return startsWith(s, {"hotB(long)", "threadBEntry"});
                    }),
              0.9);
    // The frames are in the client executable (module path) at file offsets inside it.
    for (const auto& s : sa) {
        if (s.functions.front() != "hotA(long)") continue;
        EXPECT_NE(s.modules.front().find("sampling_client"), std::string::npos)
            << s.modules.front();
        break;
    }
    // Each distinct frame and stack is stored once.
    std::set<std::tuple<uint32_t, uint32_t, uint64_t>> frames;
    for (const auto& f : s_report->stackFrames) frames.insert({f.function, f.module, f.offset});
    EXPECT_EQ(frames.size(), s_report->stackFrames.size());
}

TEST_F(SamplingCapture, InfoCountsSamplesAndNothingIsLost) {
    ASSERT_TRUE(s_report);
    EXPECT_EQ(diagnostic(*s_report, "sampling.samples_lost"), 0);
    EXPECT_EQ(diagnostic(*s_report, "sampling.unavailable"), 0);
    const std::string cmd =
        std::string("'") + SIGHTLINE_CLI + "' info '" + s_dir->file("threads.rep") + "' 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    EXPECT_EQ(exitCodeOf(pclose(f)), 0);
    EXPECT_NE(out.find("CPU samples"), std::string::npos) << out;
}

TEST(SamplingOptions, SampleNoneGivesNoSamples) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("none.rep"), {"-s", "none"},
                      {client("sampling_client"), "threads", dir.file("burns.txt")}),
              0);
    auto r = load(dir.file("none.rep"));
    ASSERT_TRUE(r);
    EXPECT_TRUE(samplesOf(*r).empty());
    EXPECT_TRUE(r->callStacks.empty());
    EXPECT_EQ(readBurns(dir.file("burns.txt")).size(), 2u);  // the program did run
}

TEST(SamplingOptions, BacktraceNoneKeepsOnlyTheSampledFunction) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("leaf.rep"), {"-b", "none", "--sampling-frequency", "2000"},
                      {client("sampling_client"), "threads", dir.file("burns.txt")}),
              0);
    auto r = load(dir.file("leaf.rep"));
    ASSERT_TRUE(r);
    const auto burns = readBurns(dir.file("burns.txt"));
    const auto sa = samplesOf(*r, burns.at("A").tid);
    ASSERT_FALSE(sa.empty());
    for (const auto& s : sa) EXPECT_EQ(s.functions.size(), 1u);
    EXPECT_GT(share(sa, [](const Sample& s) { return s.functions[0] == "hotA(long)"; }), 0.9);
    // 2000 Hz: about twice the samples per CPU second.
    const double expected = 2000.0 * static_cast<double>(burns.at("A").cpuNs) / 1e9;
    EXPECT_GT(static_cast<double>(sa.size()), expected * 0.8);
    EXPECT_LT(static_cast<double>(sa.size()), expected * 1.2);
}

// Both unwinders: -b dwarf keeps a Dwfl per process (a fresh one after exec; the forked child's
// from the mappings copied from its parent).
class SamplingUnwinders : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(Backtrace, SamplingUnwinders, ::testing::Values("fp", "dwarf"));

TEST_P(SamplingUnwinders, ForkedAndExecdChildrenAreSampled) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("kids.rep"), {"-b", GetParam()},
                      {client("sampling_client"), "children", dir.file("burns.txt")}),
              0);
    auto r = load(dir.file("kids.rep"));
    ASSERT_TRUE(r);
    auto burns = readBurns(dir.file("burns.txt"));
    ASSERT_EQ(burns.size(), 2u);
    // C: fork + exec (mappings of the new image); F: fork only (mappings copied from the parent).
    for (const auto& [what, fn] : std::vector<std::pair<std::string, std::string>>{
             {"C", "childHot(long)"}, {"F", "forkedHot(long)"}}) {
        const Burn& b = burns[what];
        const auto s = samplesOf(*r, b.tid);
        ASSERT_FALSE(s.empty()) << what;
        for (const auto& x : s) EXPECT_EQ(x.pid, b.pid);
        EXPECT_GT(share(s, [&](const Sample& x) { return has(x, fn); }), 0.9) << what;
        EXPECT_GT(share(s, [&](const Sample& x) { return has(x, "main"); }), 0.9) << what;
    }
}

TEST_P(SamplingUnwinders, DlopenedLibrarySymbolsResolve) {
    CaptureDir dir;
    // The kernel reports the resolved path of the mapped file.
    const std::string lib = std::filesystem::canonical(client("libsampling_lib.so")).string();
    ASSERT_EQ(profile(dir.file("lib.rep"), {"-b", GetParam()},
                      {client("sampling_client"), "lib", lib, dir.file("burns.txt")}),
              0);
    auto r = load(dir.file("lib.rep"));
    ASSERT_TRUE(r);
    const auto burns = readBurns(dir.file("burns.txt"));
    const auto s = samplesOf(*r, burns.at("L").tid);
    ASSERT_FALSE(s.empty());
    EXPECT_GT(share(s,
                    [&](const Sample& x) {
                        return startsWith(x, {"samplelib::spinInLibrary(long)", "sampling_lib_spin",
                                              "main"}) &&
                               x.modules[0] == lib && x.modules[1] == lib;
                    }),
              0.9);
}

// -b dwarf: the user registers are those at the kernel entry (the syscall instruction).
TEST_P(SamplingUnwinders, KernelLeafIsNamed) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("k.rep"), {"-b", GetParam()},
                      {client("sampling_client"), "kernel", dir.file("burns.txt")}),
              0);
    auto r = load(dir.file("k.rep"));
    ASSERT_TRUE(r);
    const auto burns = readBurns(dir.file("burns.txt"));
    const auto s = samplesOf(*r, burns.at("K").tid);
    ASSERT_FALSE(s.empty());
    EXPECT_GT(share(s, [](const Sample& x) { return has(x, "kernelHot(long)"); }), 0.9);
    const double inKernel = share(s, [](const Sample& x) { return x.modules[0] == "[kernel]"; });
    if (inKernel == 0) GTEST_SKIP() << "perf_event_paranoid keeps kernel samples out";
    EXPECT_GT(inKernel, 0.5);  // reading /dev/zero is kernel work (clearing the user buffer)
    // The kernel leaf sits on the user stack: [kernel function], read, ..., kernelHot, main.
    EXPECT_GT(share(s,
                    [](const Sample& x) {
                        return x.modules[0] != "[kernel]" ||
                               (x.modules.size() > 1 && x.modules[1] != "[kernel]");
                    }),
              0.99);
    const double ordered = share(s, [](const Sample& x) {
        return x.modules[0] == "[kernel]" && x.functions.size() >= 3 &&
               x.functions[1] == "kernelHot(long)" && x.functions[2] == "main";
    });
    EXPECT_GT(ordered / inKernel, 0.9);
    std::ifstream kallsyms("/proc/kallsyms");
    std::string first;
    kallsyms >> first;
    if (first.empty() || first.find_first_not_of('0') == std::string::npos)
        GTEST_SKIP() << "the kernel hides addresses (kptr_restrict): no kernel names";
    const double named = share(s, [](const Sample& x) {
        return x.modules[0] == "[kernel]" && x.functions[0] != "[kernel]" &&
               !x.functions[0].empty();
    });
    EXPECT_GT(named / inKernel, 0.9);
}

TEST(SamplingOptions, DelayDropsEarlierSamples) {
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("y.rep"), {"-y", "0.4"},
                      {client("sampling_client"), "threads", dir.file("burns.txt")}),
              0);
    auto r = load(dir.file("y.rep"));
    ASSERT_TRUE(r);
    const auto burns = readBurns(dir.file("burns.txt"));
    size_t n = 0;
    for (const Track& t : r->tracks) {
        if (t.key.kind != EventKind::CpuSample) continue;
        for (size_t i = 0; i < t.size(); ++i, ++n)
            EXPECT_GE(t.start[i], r->session.startMonotonicNs + 400'000'000);
    }
    // hotA runs for at least 0.7 s of wall time: some of it is after the delay, not all of it.
    EXPECT_GT(n, 0u);
    const double full =
        1000.0 * static_cast<double>(burns.at("A").cpuNs + burns.at("B").cpuNs) / 1e9;
    EXPECT_LT(static_cast<double>(n), full * 0.9);
}

TEST(SamplingOptions, BadValuesAreUsageErrors) {
    CaptureDir dir;  // the runs that go ahead write report1.rep, report2.rep there
    auto run = [&dir](const std::vector<std::string>& extra) {
        std::string cmd = "cd '" + dir.path() + "' && '" + SIGHTLINE_CLI + "' profile -q true";
        for (const auto& a : extra) cmd += " '" + a + "'";
        FILE* f = popen((cmd + " /bin/true 2>&1").c_str(), "r");
        std::string out;
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
        return std::make_pair(exitCodeOf(pclose(f)), out);
    };
    // nsys values we cannot honour run with one warning and frame pointers.
    auto [c1, o1] = run({"-b", "lbr"});
    EXPECT_EQ(c1, 0);
    EXPECT_NE(o1.find("warning: --backtrace=lbr is not available: no last-branch-record hardware "
                      "access; frame pointers are walked"),
              std::string::npos)
        << o1;
    // dwarf is implemented (DwarfCaptureTest.cpp): no warning.
    auto [c2, o2] = run({"--backtrace=dwarf"});
    EXPECT_EQ(c2, 0);
    EXPECT_EQ(o2.find("--backtrace"), std::string::npos) << o2;
    auto [c3, o3] = run({"--sampling-frequency", "50"});
    EXPECT_EQ(c3, 2);
    EXPECT_NE(o3.find("--sampling-frequency: '50' is not a valid value (expected a whole number "
                      "from 100 to 8000 HZ)"),
              std::string::npos)
        << o3;
    auto [c4, o4] = run({"-s", "1000"});  // -s is --sample now, not the frequency
    EXPECT_EQ(c4, 2);
    EXPECT_NE(o4.find("--sample: '1000' is not a valid value"), std::string::npos) << o4;
    auto [c5, o5] = run({"--help"});
    EXPECT_EQ(c5, 0);
    for (const char* opt : {"-s, --sample", "--sampling-frequency", "-b, --backtrace"})
        EXPECT_NE(o5.find(opt), std::string::npos) << opt << "\n" << o5;
    EXPECT_EQ(o5.find("not implemented"), std::string::npos);
}

}  // namespace
}  // namespace sl::test
