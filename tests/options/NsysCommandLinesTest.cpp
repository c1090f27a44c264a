// nsys command lines from the nsys documentation, user guides and scripts, with `nsys` replaced
// by `sightline` and the program by a test client: each must exit 0 and write its report (and
// the exports and stats it asks for). Usage errors: exit 2, one line, the program never started.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

struct CliRun {
    int code = -1;
    std::string out, err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs `sightline ARGS` in `dir` through the shell (the lines are written as users type them).
CliRun sightline(const fs::path& dir, const std::string& args) {
    const std::string cmd = "cd '" + dir.string() + "' && '" SIGHTLINE_CLI "' " + args +
                            " >out.txt 2>err.txt </dev/null";
    CliRun r;
    const int st = std::system(cmd.c_str());
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = slurp(dir / "out.txt");
    r.err = slurp(dir / "err.txt");
    return r;
}

fs::path freshDir(const std::string& name) {
    fs::path d = fs::path(::testing::TempDir()) / ("sl_nsys_lines_" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

const std::string kClient = std::string(SIGHTLINE_CLIENTS) + "/nvtx_threads";

struct Line {
    const char* name;
    std::string args;                  // with {P} for the test client, {J} a function-trace file
    std::vector<std::string> files;    // that must exist afterwards
    const char* stdoutHas = nullptr;   // text stdout must contain
};

void PrintTo(const Line& l, std::ostream* os) { *os << l.args; }

std::string withClient(std::string s) {
    for (size_t at; (at = s.find("{P}")) != std::string::npos;) s.replace(at, 3, kClient);
    // A real --python-functions-trace file (nsys's JSON format).
    const std::string json = std::string(SIGHTLINE_CLIENTS_SRC) + "/python/functions_trace.json";
    for (size_t at; (at = s.find("{J}")) != std::string::npos;) s.replace(at, 3, json);
    return s;
}

}  // namespace

class NsysLine : public ::testing::TestWithParam<Line> {};

TEST_P(NsysLine, RunsUnchanged) {
    const Line& l = GetParam();
    const fs::path dir = freshDir(l.name);
    const CliRun r = sightline(dir, withClient(l.args));
    EXPECT_EQ(r.code, 0) << l.args << "\nstderr:\n" << r.err;
    EXPECT_EQ(r.err.find("unknown option"), std::string::npos) << r.err;
    for (const auto& f : l.files) EXPECT_TRUE(fs::exists(dir / f)) << f << " missing after " << l.args;
    if (l.stdoutHas) {
        EXPECT_NE(r.out.find(l.stdoutHas), std::string::npos) << r.out;
    }
}

// The lines as the guides write them (PyTorch, HPC, the nsys user guide's examples).
INSTANTIATE_TEST_SUITE_P(
    Guides, NsysLine,
    ::testing::Values(
        Line{"basic", "profile -o baseline {P}", {"baseline.rep"}},
        Line{"pytorch_guide",
             "profile -t cuda,nvtx,osrt,cudnn,cublas -s cpu -w true -x true --cudabacktrace=true "
             "-f true -o pytorch_profile {P}",
             {"pytorch_profile.rep"}},
        Line{"stats_export",
             "profile --stats=true --export=sqlite,json --force-overwrite true -o run {P}",
             {"run.rep", "run.sqlite", "run.json"},
             "NVTX Range Summary"},
        Line{"hpc_mpi", "profile -t mpi,nccl,openmp,ucx --mpi-impl=openmpi --sample=cpu -o rank_%h_%p {P}",
             {}},
        Line{"python_options",
             "profile --python-backtrace=cuda --python-sampling=true --pytorch=autograd-nvtx "
             "--python-functions-trace={J} --resolve-symbols=true --debug-symbols=/tmp "
             "-o py {P}",
             {"py.rep"}},
        Line{"capture_range", "profile -c nvtx -p level0@* --capture-range-end=repeat:2 -o range {P}",
             {"range.1.rep", "range.2.rep"}},
        Line{"stop_on_range_end_old_switch",
             "profile --capture-range=nvtx --nvtx-capture=level0 --stop-on-range-end false -o old {P}",
             {"old.rep"}},
        Line{"old_gpu_metrics", "profile --gpu-metrics-device=0 --gpu-metrics-frequency=20 -o gm {P}",
             {"gm.rep"}},
        Line{"duration_kill_wait",
             "profile -y 0 -d 10 --kill=15 --wait=all -n true -e A=1,B=2 --show-output=false "
             "-o dk {P}",
             {"dk.rep"}},
        Line{"output_dir_pattern", "profile --output-dir out -o r%n {P}", {"out/r1.rep"}},
        Line{"text_export", "profile --export text -o t {P}", {"t.rep", "t.txt"}},
        Line{"quiet", "profile --quiet -o q {P}", {"q.rep"}}),
    [](const auto& param) { return std::string(param.param.name); });

TEST(NsysLines, StatsAndExportOfAReport) {
    const fs::path dir = freshDir("stats_export_cmds");
    ASSERT_EQ(sightline(dir, withClient("profile -o r {P}")).code, 0);
    CliRun r = sightline(dir, "stats --report nvtx_sum,osrt_sum --format csv,column --output .,- "
                           "--timeunit=msec r.rep");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "r_nvtx_sum.csv")) << r.err;
    EXPECT_NE(r.out.find("OS Runtime Summary"), std::string::npos) << r.out;
    // The same output again needs --force-overwrite, as in nsys.
    r = sightline(dir, "stats -r nvtx_sum -o . r.rep");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
    r = sightline(dir, "stats -r nvtx_sum -o . --force-overwrite true r.rep");
    EXPECT_EQ(r.code, 0) << r.err;
    r = sightline(dir, "export --type sqlite --force-overwrite true r.rep");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "r.sqlite"));
    r = sightline(dir, "export --type=text -o - r.rep");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("Processes"), std::string::npos) << r.out;
    r = sightline(dir, "status --environment");
    EXPECT_NE(r.out.find("perf_event_paranoid"), std::string::npos) << r.out;
    r = sightline(dir, "profile --list-options --format json");
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("\"name\": \"cudabacktrace\""), std::string::npos);
}

// repeat-shutdown:N records N ranges, then ends the program with --kill's signal.
TEST(NsysLines, RepeatShutdownEndsTheProgramAfterNRanges) {
    const fs::path dir = freshDir("repeat_shutdown");
    const CliRun r = sightline(dir, withClient("profile -c nvtx -p level0 "
                                               "--capture-range-end=repeat-shutdown:2 -o rs {P}"));
    // The client may finish on its own before the signal arrives: both are right.
    EXPECT_TRUE(r.code == 0 || r.code == 128 + 15) << r.code << "\n" << r.err;
    EXPECT_TRUE(fs::exists(dir / "rs.1.rep")) << r.err;
    EXPECT_TRUE(fs::exists(dir / "rs.2.rep")) << r.err;
    EXPECT_FALSE(fs::exists(dir / "rs.3.rep")) << r.err;
}

// Usage errors: exit 2, one line on stderr, the program never started.
TEST(NsysLines, UsageErrorsStopBeforeTheProgramStarts) {
    const fs::path dir = freshDir("usage");
    const std::string prog = "touch started";
    for (const std::string args :
         {"--outptu x", "--sampling-frequency=50", "-t cuda,nvtxx", "--stats=maybe",
          "--kill=sighup", "-x false", "--capture-range=nvtx", "--delay=-1",
          "--capture-range-end=repeat:0", "-c bogus"}) {
        const CliRun r = sightline(dir, "profile " + args + " " + prog);
        EXPECT_EQ(r.code, 2) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
        EXPECT_EQ(r.err.rfind("sightline profile: error: ", 0), 0u) << r.err;
        EXPECT_FALSE(fs::exists(dir / "started")) << args;
    }
}
