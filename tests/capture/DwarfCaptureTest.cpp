// End to end: `-s process-tree -b dwarf` on tests/clients/dwarf/dwarf_client, a C program and
// library built with -O2 -fomit-frame-pointer whose CPU time is spent in two spin loops of a
// known call tree. DWARF unwinding must give that tree for (nearly) every sample; the
// frame-pointer walk of the same program must not (the reason -b dwarf exists).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/capture/CaptureTestUtil.h"

namespace sl::test {
namespace {

struct Sample {
    std::vector<std::string> functions;  // leaf first
    std::vector<std::string> modules;
};

std::vector<Sample> samplesOf(const Report& r) {
    std::vector<Sample> out;
    for (const Track& t : r.tracks) {
        if (t.key.kind != EventKind::CpuSample) continue;
        for (size_t i = 0; i < t.size(); ++i) {
            Sample s;
            const auto stack = static_cast<uint32_t>(t.intAt(cols::CpuSample::Stack, i));
            for (uint32_t f : r.callStacks.at(stack).frames) {
                s.functions.emplace_back(r.str(r.stackFrames.at(f).function));
                s.modules.emplace_back(r.str(r.stackFrames.at(f).module));
            }
            out.push_back(std::move(s));
        }
    }
    return out;
}

bool startsWith(const Sample& s, const std::vector<std::string>& frames) {
    return s.functions.size() >= frames.size() &&
           std::equal(frames.begin(), frames.end(), s.functions.begin());
}

bool reachesMain(const Sample& s) {
    return std::find(s.functions.begin(), s.functions.end(), "main") != s.functions.end();
}

const std::vector<std::string> kExeTree = {"dwarf_spin_exe", "dwarf_b", "dwarf_a", "main"};
const std::vector<std::string> kLibTree = {"dwarf_lib_spin", "dwarf_lib_entry", "dwarf_b",
                                           "dwarf_a", "main"};

struct Capture {
    int code = -1;
    std::shared_ptr<Report> report;
    std::vector<Sample> exeSpin, libSpin;  // samples whose leaf is a spin loop
    size_t samples = 0;
};

Capture profileWith(CaptureDir& dir, const std::string& backtrace) {
    Capture r;
    const std::string out = dir.file(backtrace + ".rep");
    r.code = profile(out, {"-s", "process-tree", "-b", backtrace, "--sampling-frequency", "1000"},
                     {client("dwarf_client"), "600"});
    r.report = load(out);
    if (!r.report) return r;
    for (Sample& s : samplesOf(*r.report)) {
        ++r.samples;
        if (s.functions.front() == "dwarf_spin_exe") r.exeSpin.push_back(s);
        if (s.functions.front() == "dwarf_lib_spin") r.libSpin.push_back(s);
    }
    return r;
}

double share(const std::vector<Sample>& v, bool (*pred)(const Sample&)) {
    return v.empty() ? 0.0
                     : static_cast<double>(std::count_if(v.begin(), v.end(), pred)) /
                           static_cast<double>(v.size());
}

class DwarfCapture : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = new CaptureDir;
        s_dwarf = new Capture(profileWith(*s_dir, "dwarf"));
        s_fp = new Capture(profileWith(*s_dir, "fp"));
    }
    static void TearDownTestSuite() {
        delete s_dwarf;
        delete s_fp;
        delete s_dir;
    }
    static CaptureDir* s_dir;
    static Capture* s_dwarf;
    static Capture* s_fp;
};
CaptureDir* DwarfCapture::s_dir = nullptr;
Capture* DwarfCapture::s_dwarf = nullptr;
Capture* DwarfCapture::s_fp = nullptr;

TEST_F(DwarfCapture, SpinSamplesUnwindToMainThroughTheKnownTree) {
    ASSERT_EQ(s_dwarf->code, 0);
    ASSERT_TRUE(s_dwarf->report);
    // 600 ms of CPU at 1000 Hz, half in each loop: ~300 samples each.
    ASSERT_GE(s_dwarf->exeSpin.size(), 150u);
    ASSERT_GE(s_dwarf->libSpin.size(), 150u);
    std::vector<Sample> all = s_dwarf->exeSpin;
    all.insert(all.end(), s_dwarf->libSpin.begin(), s_dwarf->libSpin.end());
    EXPECT_GE(share(all, reachesMain), 0.95);
    EXPECT_GE(share(s_dwarf->exeSpin, [](const Sample& s) { return startsWith(s, kExeTree); }), 0.95);
    EXPECT_GE(share(s_dwarf->libSpin, [](const Sample& s) { return startsWith(s, kLibTree); }), 0.95);
    // The library's frames are the library's.
    for (const Sample& s : s_dwarf->libSpin) {
        if (!startsWith(s, kLibTree)) continue;
        EXPECT_NE(s.modules[0].find("libdwarf_lib.so"), std::string::npos) << s.modules[0];
        EXPECT_NE(s.modules[1].find("libdwarf_lib.so"), std::string::npos) << s.modules[1];
        EXPECT_NE(s.modules[2].find("dwarf_client"), std::string::npos) << s.modules[2];
        break;
    }
    // Below main: the C library's start-up, ending at the executable's _start.
    size_t toStart = 0;
    for (const Sample& s : all) toStart += s.functions.back() == "_start";
    EXPECT_GE(static_cast<double>(toStart), 0.95 * static_cast<double>(all.size()));
}

TEST_F(DwarfCapture, IncompleteUnwindsAreCountedAndFew) {
    ASSERT_TRUE(s_dwarf->report);
    const int64_t incomplete = s_dwarf->report->diagnosticCount("sampling.unwind_incomplete");
    EXPECT_LE(static_cast<double>(incomplete), 0.05 * static_cast<double>(s_dwarf->samples));
}

TEST_F(DwarfCapture, FramePointersLoseTheCallersOfTheSameProgram) {
    // Why -b dwarf exists: without frame pointers, the walk ends at the sampled function.
    ASSERT_EQ(s_fp->code, 0);
    ASSERT_TRUE(s_fp->report);
    std::vector<Sample> all = s_fp->exeSpin;
    all.insert(all.end(), s_fp->libSpin.begin(), s_fp->libSpin.end());
    ASSERT_GE(all.size(), 300u);
    EXPECT_LT(share(all, reachesMain), 0.5);
    EXPECT_EQ(s_fp->report->diagnosticCount("sampling.unwind_incomplete"), 0);
}

TEST(DwarfCaptureSummary, SummaryLineSaysHowManyReachedTheOutermostFrame) {
    CaptureDir dir;
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-f", "true", "-o", dir.file("s.rep"), "-s", "process-tree",
         "-b", "dwarf", client("dwarf_client"), "200"},
        &code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_NE(out.find("DWARF-unwound to the outermost frame"), std::string::npos) << out;
}

}  // namespace
}  // namespace sl::test
