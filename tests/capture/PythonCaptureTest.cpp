// Python programs under `sightline profile`, run with the interpreter of the test virtual
// environment that scripts/setup.sh makes (<build>/venv, with the `nvtx` package from PyPI):
// every call form of the package arrives with its attributes, in the processes of every
// multiprocessing start method.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "CaptureTestUtil.h"
#include "model/analysis/EventQueryDetails.h"
#include "model/rep/Sqlite.h"

using namespace sl;
using namespace sl::test;

namespace {

const std::string kVenvPython = SIGHTLINE_TEST_VENV_PYTHON;

bool haveVenv() {
    return std::filesystem::exists(kVenvPython);
}

std::string pyClient(const std::string& name) {
    return std::string(SIGHTLINE_CLIENTS_SRC) + "/python/" + name;
}

uint32_t color(const Ev& e) {
    return static_cast<uint32_t>(e.track->intAt(cols::Nvtx::Color, e.index));
}
int64_t payload(const Ev& e) {
    return e.track->intAt(cols::Nvtx::Payload, e.index);
}
PayloadType payloadType(const Ev& e) {
    return static_cast<PayloadType>(e.track->intAt(cols::Nvtx::PayloadType, e.index));
}
int64_t category(const Ev& e) {
    return e.track->intAt(cols::Nvtx::Category, e.index);
}

class NvtxPackage : public ::testing::TestWithParam<std::string> {};

}  // namespace

#define REQUIRE_VENV()                                                                        \
    if (!haveVenv())                                                                          \
    GTEST_SKIP() << "no test virtual environment at " << kVenvPython                         \
                 << ": scripts/setup.sh makes it (python3-venv, and PyPI for the nvtx package)"

TEST_P(NvtxPackage, EveryCallFormArrivesWithItsAttributes) {
    REQUIRE_VENV();
    const std::string method = GetParam();
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("nvtx.rep"), {"-t", "nvtx"},
                      {kVenvPython, pyClient("nvtx_package.py"), method}),
              0);
    auto rep = load(dir.file("nvtx.rep"));
    ASSERT_TRUE(rep);
    const Report& r = *rep;
    int64_t root = -1;
    for (const auto& p : r.processes)
        if (p.commandLine.find("nvtx_package.py " + method) != std::string::npos && root < 0)
            root = p.pid;
    ASSERT_GE(root, 0);
    const uint32_t demo = domainId(r, root, "demo"), fast = domainId(r, root, "fast");
    ASSERT_NE(demo, UINT32_MAX);
    ASSERT_NE(fast, UINT32_MAX);

    // Decorator without arguments: named after the function, the package's default color.
    auto bare = events(r, EventKind::NvtxRange, "bare");
    ASSERT_EQ(bare.size(), 3u);
    for (const auto& e : bare) EXPECT_EQ(color(e), 0x0000FFu);
    // Decorator with every attribute; a category given by name is named in its domain.
    auto decorated = events(r, EventKind::NvtxRange, "decorated");
    ASSERT_EQ(decorated.size(), 2u);
    for (const auto& e : decorated) {
        EXPECT_EQ(e.domain, demo);
        EXPECT_EQ(color(e), 0x0000FFu);
        EXPECT_EQ(payload(e), 7);
        EXPECT_EQ(r.categoryName(root, demo, uint32_t(category(e))), "io");
    }
    // Nesting, colors by name and value, int and float payloads.
    auto outer = events(r, EventKind::NvtxRange, "outer");
    auto inner = events(r, EventKind::NvtxRange, "inner");
    ASSERT_EQ(outer.size(), 1u);
    ASSERT_EQ(inner.size(), 1u);
    EXPECT_EQ(color(outer[0]), 0xFF0000u);
    EXPECT_EQ(payloadType(outer[0]), PayloadType::I64);
    EXPECT_EQ(payload(outer[0]), 42);
    EXPECT_EQ(color(inner[0]), 0xFF00FFu);
    EXPECT_EQ(payloadType(inner[0]), PayloadType::F64);
    double f;
    const int64_t bits = payload(inner[0]);
    std::memcpy(&f, &bits, sizeof f);
    EXPECT_EQ(f, 1.5);
    EXPECT_EQ(inner[0].tid, outer[0].tid);
    EXPECT_GE(inner[0].start, outer[0].start);
    EXPECT_LE(inner[0].end, outer[0].end);
    // Push/pop, default and named domain; a category by number.
    auto pushed = events(r, EventKind::NvtxRange, "pushed");
    ASSERT_EQ(pushed.size(), 1u);
    EXPECT_EQ(pushed[0].domain, 0u);
    EXPECT_EQ(color(pushed[0]), 0x7400FFu);  // "rapids"
    EXPECT_EQ(category(pushed[0]), 3);
    auto pushedDemo = events(r, EventKind::NvtxRange, "pushed_demo");
    ASSERT_EQ(pushedDemo.size(), 1u);
    EXPECT_EQ(pushedDemo[0].domain, demo);
    EXPECT_LE(pushedDemo[0].end, pushed[0].end);
    // Started on the main thread, ended on another.
    auto across = events(r, EventKind::NvtxRange, "across_threads");
    ASSERT_EQ(across.size(), 1u);
    EXPECT_EQ(across[0].domain, demo);
    EXPECT_EQ(across[0].tid, root);
    const int64_t endTid = across[0].track->intAt(cols::Nvtx::EndTid, across[0].index);
    EXPECT_NE(endTid, root);
    EXPECT_GT(endTid, 0);
    // Marks.
    auto mark = events(r, EventKind::NvtxMark, "a_mark");
    ASSERT_EQ(mark.size(), 1u);
    EXPECT_EQ(color(mark[0]), 0x800080u);
    EXPECT_EQ(payload(mark[0]), 9);
    auto demoMark = events(r, EventKind::NvtxMark, "demo_mark");
    ASSERT_EQ(demoMark.size(), 1u);
    EXPECT_EQ(r.categoryName(root, demo, uint32_t(category(demoMark[0]))), "io");
    // The Domain API (registered strings, prebuilt attributes).
    auto fastRange = events(r, EventKind::NvtxRange, "fast_range");
    ASSERT_EQ(fastRange.size(), 4u);
    for (const auto& e : fastRange) {
        EXPECT_EQ(e.domain, fast);
        EXPECT_EQ(color(e), 0xFFA500u);
    }
    EXPECT_EQ(events(r, EventKind::NvtxMark, "fast_mark").size(), 1u);
    EXPECT_EQ(events(r, EventKind::NvtxRange, "fast_startend").size(), 1u);
    // Four threads at once, 5 ranges each, each on its own thread.
    auto threaded = events(r, EventKind::NvtxRange, "threaded");
    ASSERT_EQ(threaded.size(), 20u);
    std::set<int64_t> tids;
    for (const auto& e : threaded) tids.insert(e.tid);
    EXPECT_GE(tids.size(), 2u);  // threads that end before the next starts may reuse a tid
    // nvtx.Profile: a range per Python call, in the package's own domain.
    bool profiled = false;
    for (const auto& e : events(r, EventKind::NvtxRange))
        if (e.name.find("profiled_function") != std::string::npos) profiled = true;
    EXPECT_TRUE(profiled);

    // The pool's worker processes: 6 ranges, none in the parent, with their payloads.
    auto child = events(r, EventKind::NvtxRange, "child_range");
    if (method == "none") {
        EXPECT_TRUE(child.empty());
        return;
    }
    ASSERT_EQ(child.size(), 6u);
    std::set<int64_t> payloads;
    for (const auto& e : child) {
        EXPECT_NE(e.pid, root);
        EXPECT_EQ(e.domain, domainId(r, e.pid, "demo"));
        payloads.insert(payload(e));
    }
    EXPECT_EQ(payloads, (std::set<int64_t>{0, 1, 2, 3, 4, 5}));
}

INSTANTIATE_TEST_SUITE_P(StartMethods, NvtxPackage,
                         ::testing::Values("none", "fork", "spawn", "forkserver"),
                         [](const auto& p) { return p.param; });

// --python-functions-trace with nsys's JSON format, on every interpreter the build found: the
// test environment's (Debian's Python: sys.setprofile) and any Python >= 3.12 (sys.monitoring).
namespace {

std::vector<std::string> interpreters() {
    std::vector<std::string> out;
    if (haveVenv()) out.push_back(kVenvPython);
    std::string extra = SIGHTLINE_TEST_EXTRA_PYTHONS;
    for (size_t at = 0; at < extra.size();) {
        size_t end = extra.find(':', at);
        if (end == std::string::npos) end = extra.size();
        if (end > at) out.push_back(extra.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

class FunctionsTrace : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(FunctionsTrace, ListedFunctionsInThreadsAndForkedAndSpawnedChildren) {
    const std::string python = GetParam();
    if (python.empty()) GTEST_SKIP() << "no Python";
    CaptureDir dir;
    ASSERT_EQ(profile(dir.file("ft.rep"),
                      {"-t", "nvtx", "--python-functions-trace", pyClient("functions_trace.json")},
                      {python, pyClient("functions_trace.py")}),
              0);
    auto rep = load(dir.file("ft.rep"));
    ASSERT_TRUE(rep);
    const Report& r = *rep;
    int64_t root = -1;
    for (const auto& p : r.processes)
        if (p.commandLine.find("functions_trace.py") != std::string::npos && root < 0) root = p.pid;
    ASSERT_GE(root, 0);

    // json.dumps (a Python function) everywhere it was called, under any name it was bound to.
    auto dumps = events(r, EventKind::NvtxRange, "dumps");
    ASSERT_EQ(dumps.size(), 14u);
    std::set<int64_t> pids, rootTids;
    for (const auto& e : dumps) {
        pids.insert(e.pid);
        if (e.pid == root) rootTids.insert(e.tid);
        EXPECT_EQ(e.domain, domainId(r, e.pid, "stdlib"));
        EXPECT_EQ(color(e), 0xFF9C27B0u);
        EXPECT_EQ(r.categoryName(e.pid, e.domain, uint32_t(category(e))), "std");
    }
    EXPECT_EQ(pids.size(), 3u);      // the program, its forked and its spawned child
    EXPECT_GE(rootTids.size(), 2u);  // the main thread and worker threads
    // An entry's own color and numeric category.
    auto loads = events(r, EventKind::NvtxRange, "loads");
    ASSERT_EQ(loads.size(), 3u);
    for (const auto& e : loads) {
        EXPECT_EQ(color(e), 0xFFFF0000u);
        EXPECT_EQ(category(e), 7);
    }
    // time.sleep, a built-in: 2 + 3 threads + 2 children, each as long as it slept.
    auto sleeps = events(r, EventKind::NvtxRange, "sleep");
    ASSERT_EQ(sleeps.size(), 7u);
    for (const auto& e : sleeps) {
        EXPECT_EQ(color(e), 0xFFE8B795u);
        EXPECT_GE(e.end - e.start, 9'000'000);
    }
    // Methods of a class, in the default domain; calls nest: run holds its 3 dumps and loads.
    auto run = events(r, EventKind::NvtxRange, "Worker.run");
    ASSERT_EQ(run.size(), 1u);
    EXPECT_EQ(run[0].domain, 0u);
    int inside = 0;
    for (const auto& e : dumps)
        if (e.tid == run[0].tid && e.start >= run[0].start && e.end <= run[0].end) ++inside;
    EXPECT_EQ(inside, 3);
    EXPECT_EQ(events(r, EventKind::NvtxRange, "Worker.cm").size(), 1u);
    EXPECT_EQ(events(r, EventKind::NvtxRange, "Worker.sm").size(), 1u);
    // A generator: a range each time it runs (two yields and the return).
    EXPECT_EQ(events(r, EventKind::NvtxRange, "gen").size(), 3u);
    // Nothing else became a range.
    EXPECT_EQ(events(r, EventKind::NvtxRange).size(), 14u + 3 + 7 + 1 + 1 + 1 + 3);
}

INSTANTIATE_TEST_SUITE_P(Interpreters, FunctionsTrace, ::testing::ValuesIn(interpreters()),
                         [](const auto& p) {
                             std::string name = "python" + std::to_string(p.index);
                             return name;
                         });

TEST(FunctionsTraceErrors, ABadFileStopsBeforeTheProgramStartsAndNamesTheEntry) {
    CaptureDir dir;
    const std::string marker = dir.file("program-ran");
    struct Case {
        const char* json;
        const char* expect;
    };
    const Case cases[] = {
        {"[{\"module\": \"json\", \"functions\": [\"dumps\"]", "not valid JSON"},
        {"{\"module\": \"json\"}", "must hold a list of groups"},
        {"[{\"module\": \"json\", \"functions\": [\"dumps\", \"bad name\"]}]", "group 0, function 1"},
        {"[{\"module\": \"json\", \"functions\": [\"dumps\"], \"colour\": \"red\"}]",
         "unknown key \"colour\""},
        {"[{\"module\": \"json\", \"functions\": [\"dumps\"]}, {\"functions\": [\"f\"]}]",
         "group 1, function 0"},
        {"[{\"module\": \"json\", \"color\": \"blurple\", \"functions\": [\"dumps\"]}]",
         "unknown color \"blurple\""},
        {"[{\"module\": \"__main__\", \"functions\": [\"main\"]}]", "__main__"},
    };
    int i = 0;
    for (const Case& c : cases) {
        const std::string file = dir.file("bad" + std::to_string(i++) + ".json");
        {
            std::ofstream(file) << c.json;
        }
        int code = -1;
        const std::string out = runCapturingStdout(
            {SIGHTLINE_CLI, "profile", "-q", "true", "-o", dir.file("bad.rep"),
             "--python-functions-trace=" + file, "/bin/touch", marker},
            &code);
        EXPECT_NE(code, 0) << c.json;
        EXPECT_NE(out.find(c.expect), std::string::npos) << c.json << "\n" << out;
        EXPECT_NE(out.find(file), std::string::npos) << out;  // the file is named
        EXPECT_FALSE(std::filesystem::exists(marker)) << c.json;
        EXPECT_FALSE(std::filesystem::exists(dir.file("bad.rep")));
    }
    int code = -1;
    const std::string missing = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-o", dir.file("bad.rep"),
         "--python-functions-trace=" + dir.file("none.json"), "/bin/touch", marker},
        &code);
    EXPECT_NE(code, 0);
    EXPECT_NE(missing.find("cannot read"), std::string::npos) << missing;
    EXPECT_FALSE(std::filesystem::exists(marker));
}

// --python-sampling on a pure-Python program whose hot function is known, on every interpreter.
class PythonSampling : public ::testing::TestWithParam<std::string> {};

TEST_P(PythonSampling, StacksOfEveryThreadAndForkedChildNameTheHotFunction) {
    const std::string python = GetParam();
    CaptureDir dir;
    // The program's own output must be as without the profiler: Python 3.12+ warns at fork()
    // when the process has other threads, and the sampler's thread must not count.
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-o", dir.file("ps.rep"), "-t",
         "none", "-s", "none", "--python-sampling=true", "--python-sampling-frequency=200",
         python, pyClient("sampling.py")},
        &code);
    ASSERT_EQ(code, 0) << out;
    EXPECT_EQ(out, "sampling done\n");
    auto rep = load(dir.file("ps.rep"));
    ASSERT_TRUE(rep);
    const Report& r = *rep;
    int64_t root = -1;
    for (const auto& p : r.processes)
        if (p.commandLine.find("sampling.py") != std::string::npos && root < 0) root = p.pid;
    ASSERT_GE(root, 0);
    auto samples = events(r, EventKind::CpuSample);
    auto stackOf = [&](const Ev& e) {
        return r.callStacks[size_t(e.track->intAt(cols::CpuSample::Stack, e.index))].frames;
    };
    size_t mainSamples = 0, mainHot = 0, waiterSamples = 0, childHot = 0;
    int64_t waiterTid = -1;  // (Python names its threads for itself, not for the OS)
    for (const auto& e : samples)
        if (e.pid == root && e.tid != root && e.name == "waiter") waiterTid = e.tid;
    ASSERT_GT(waiterTid, 0);
    bool hotLine = false;
    for (const auto& e : samples) {
        const auto frames = stackOf(e);
        ASSERT_FALSE(frames.empty());
        const StackFrame& leaf = r.stackFrames[frames[0]];
        EXPECT_TRUE(r.isPythonFrame(leaf)) << r.frameText(frames[0]);
        EXPECT_EQ(r.str(leaf.function), e.name);
        if (e.pid == root && e.tid == root) {
            ++mainSamples;
            if (e.name == "hot_inner") {
                ++mainHot;
                // Outer frames: hot, then main, then <module>.
                ASSERT_GE(frames.size(), 3u);
                EXPECT_EQ(r.str(r.stackFrames[frames[1]].function), "hot");
                EXPECT_EQ(r.str(r.stackFrames[frames[2]].function), "main");
                if (r.frameText(frames[0]).find("sampling.py:") != std::string::npos) hotLine = true;
            }
        } else if (e.pid == root && e.tid == waiterTid) {
            ++waiterSamples;
            EXPECT_EQ(e.name, "waiter");
        } else if (e.pid != root && e.name == "hot_inner") {
            ++childHot;
            // The forked child's only thread is its main one (threading keeps the parent's id).
            EXPECT_EQ(e.tid, e.pid);
        }
    }
    // About 1.4 s of the main thread at 200 Hz (the GIL may delay a few).
    EXPECT_GE(mainSamples, 150u);
    EXPECT_LE(mainSamples, 400u);
    EXPECT_GE(mainHot * 10, mainSamples * 6) << mainHot << " of " << mainSamples;
    EXPECT_TRUE(hotLine);
    // 0.4 s of the waiter thread, sleeping: sampled all the same (wall-clock sampling).
    EXPECT_GE(waiterSamples, 40u);
    EXPECT_LE(waiterSamples, 120u);
    // The forked child samples itself.
    EXPECT_GE(childHot, 20u);
}

INSTANTIATE_TEST_SUITE_P(Interpreters, PythonSampling, ::testing::ValuesIn(interpreters()),
                         [](const auto& p) { return "python" + std::to_string(p.index); });

// --python-sampling with native CPU sampling (the default -s process-tree): the native samples
// of Python threads show Python functions instead of the interpreter, and the sampler thread
// is not one of the program's.
TEST_P(PythonSampling, NativeSamplesOfPythonThreadsShowPythonFunctions) {
    const std::string python = GetParam();
    CaptureDir dir;
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-o", dir.file("pj.rep"), "-t",
         "none", "-s", "process-tree", "--python-sampling=true",
         "--python-sampling-frequency=200", python, pyClient("sampling.py")},
        &code);
    ASSERT_EQ(code, 0) << out;
    EXPECT_EQ(out, "sampling done\n");
    auto rep = load(dir.file("pj.rep"));
    ASSERT_TRUE(rep);
    const Report& r = *rep;
    if (r.diagnosticCount("python.samples_joined") == 0 && events(r, EventKind::CpuSample).empty())
        GTEST_SKIP() << "CPU sampling is refused here (perf_event_paranoid)";
    int64_t root = -1;
    for (const auto& p : r.processes)
        if (p.commandLine.find("sampling.py") != std::string::npos && root < 0) root = p.pid;
    ASSERT_GE(root, 0);
    size_t mainSamples = 0, mainHot = 0, interpreterLeaf = 0, childSamples = 0, childHot = 0;
    for (const auto& e : events(r, EventKind::CpuSample)) {
        if (e.pid != root && e.tid == e.pid) {  // the forked child: 0.3 s in hot_inner
            ++childSamples;
            childHot += e.name == "hot_inner";
        }
        if (e.pid != root || e.tid != root) continue;
        ++mainSamples;
        const auto& frames =
            r.callStacks[size_t(e.track->intAt(cols::CpuSample::Stack, e.index))].frames;
        ASSERT_FALSE(frames.empty());
        if (e.name == "hot_inner") {
            ++mainHot;
            bool hot = false, main = false;
            for (uint32_t f : frames) {
                hot = hot || r.str(r.stackFrames[f].function) == "hot";
                main = main || r.str(r.stackFrames[f].function) == "main";
            }
            EXPECT_TRUE(hot && main) << r.frameText(frames.back());
        }
        if (r.str(r.stackFrames[frames[0]].function) == "_PyEval_EvalFrameDefault") ++interpreterLeaf;
    }
    // About 1.3 s of CPU at the default 1000 Hz, most of it in hot_inner; few samples keep the
    // bare interpreter (those without a Python sample near enough).
    ASSERT_GE(mainSamples, 300u);
    EXPECT_GE(mainHot * 10, mainSamples * 6) << mainHot << " of " << mainSamples;
    EXPECT_LE(interpreterLeaf * 5, mainSamples) << interpreterLeaf << " of " << mainSamples;
    EXPECT_GE(childSamples, 100u);
    EXPECT_GE(childHot * 10, childSamples * 6) << childHot << " of " << childSamples;
    EXPECT_GE(r.diagnosticCount("python.samples_joined"), int64_t(mainHot + childHot));
    // Every thread of the report is the program's: the main thread, the waiter, the child's.
    for (const auto& t : r.threads) EXPECT_NE(t.name, "sightline-py") << t.tid;
    size_t rootThreads = 0;
    for (const auto& t : r.threads) rootThreads += t.pid == root;
    EXPECT_EQ(rootThreads, 2u) << "the main thread and the waiter, not the sampler";
}

// --pytorch on the PyTorch stand-in (tests/clients/python/torch_standin: the API PyTorch
// documents for emit_nvtx, global module and optimizer hooks; real PyTorch runs in
// tests/gpu/run_gpu_tests.sh where a GPU is lent).
namespace {

struct TorchRun {
    std::string output;
    std::shared_ptr<Report> report;
};

TorchRun profileTorch(CaptureDir& dir, const std::string& modes,
                      const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true",
                                     "-o", dir.file("torch.rep"), "-t", "nvtx", "-s", "none",
                                     "--pytorch=" + modes};
    args.insert(args.end(), more.begin(), more.end());
    args.push_back(kVenvPython);
    args.push_back(pyClient("torch_train_standin.py"));
    int code = -1;
    TorchRun run;
    run.output = runCapturingStdout(args, &code);
    EXPECT_EQ(code, 0) << run.output;
    run.report = load(dir.file("torch.rep"));
    return run;
}

size_t countNamed(const Report& r, const std::string& prefix) {
    size_t n = 0;
    for (const auto& e : events(r, EventKind::NvtxRange)) n += e.name.rfind(prefix, 0) == 0;
    return n;
}

}  // namespace

TEST(PyTorchOption, AutogradNvtxSwitchesPyTorchsOwnRangesOnWithoutInitializingCuda) {
    REQUIRE_VENV();
    CaptureDir dir;
    auto run = profileTorch(dir, "autograd-nvtx");
    ASSERT_TRUE(run.report);
    const Report& r = *run.report;
    // Entering emit_nvtx synchronizes CUDA: the profiler must not initialize it for the program.
    EXPECT_EQ(run.output, "cuda initialized: False\n");
    // Three steps: two linear and one relu forward, two backward operators, one optimizer op.
    EXPECT_EQ(countNamed(r, "aten::linear, seq = "), 6u);
    EXPECT_EQ(countNamed(r, "aten::mm_backward, seq = "), 3u);
    EXPECT_EQ(countNamed(r, "aten::add_, seq = "), 3u);
    for (const auto& e : events(r, EventKind::NvtxRange))
        EXPECT_EQ(e.name.find("sizes ="), std::string::npos) << e.name;
    EXPECT_EQ(r.diagnosticCount("pytorch.enabled"), 1);
    EXPECT_EQ(r.diagnosticCount("pytorch.not_found"), 0);

    auto shapes = profileTorch(dir, "autograd-shapes-nvtx");
    ASSERT_TRUE(shapes.report);
    EXPECT_EQ(countNamed(*shapes.report, "aten::linear, seq = "), 6u);
    size_t withSizes = 0;
    for (const auto& e : events(*shapes.report, EventKind::NvtxRange))
        withSizes += e.name.find(", sizes = [[64, 128]]") != std::string::npos;
    EXPECT_EQ(withSizes, 3u);  // the first linear of each step
}

TEST(PyTorchOption, FunctionsTraceRangesForForwardBackwardAndStep) {
    REQUIRE_VENV();
    CaptureDir dir;
    auto run = profileTorch(dir, "functions-trace");
    ASSERT_TRUE(run.report);
    const Report& r = *run.report;
    EXPECT_EQ(run.output, "cuda initialized: False\n");
    EXPECT_EQ(events(r, EventKind::NvtxRange, "Sequential.forward").size(), 3u);
    EXPECT_EQ(events(r, EventKind::NvtxRange, "Linear.forward").size(), 6u);
    EXPECT_EQ(events(r, EventKind::NvtxRange, "ReLU.forward").size(), 3u);
    EXPECT_EQ(events(r, EventKind::NvtxRange, "backward").size(), 3u);
    EXPECT_EQ(events(r, EventKind::NvtxRange, "SGD.step").size(), 3u);
    EXPECT_EQ(countNamed(r, "aten::"), 0u);  // PyTorch's own ranges were not asked for
    // Each layer's forward lies inside its model's forward.
    auto outer = events(r, EventKind::NvtxRange, "Sequential.forward");
    for (const auto& e : events(r, EventKind::NvtxRange, "Linear.forward")) {
        bool inside = false;
        for (const auto& o : outer) inside = inside || (e.start >= o.start && e.end <= o.end);
        EXPECT_TRUE(inside) << e.start;
    }

    auto shapes = profileTorch(dir, "functions-trace-shapes");
    ASSERT_TRUE(shapes.report);
    EXPECT_EQ(events(*shapes.report, EventKind::NvtxRange, "Linear.forward [64x128]").size(), 3u);
    EXPECT_EQ(events(*shapes.report, EventKind::NvtxRange, "Linear.forward [64x256]").size(), 3u);
    EXPECT_EQ(events(*shapes.report, EventKind::NvtxRange, "SGD.step").size(), 3u);
}

TEST(PyTorchOption, SaysWhenNoProcessImportedTorchOrWhenAnnotationsFailed) {
    REQUIRE_VENV();
    CaptureDir dir;
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-f", "true", "-o", dir.file("none.rep"), "-t", "nvtx",
         "-s", "none", "--pytorch=autograd-nvtx", kVenvPython,
         pyClient("torch_train_standin.py"), "--no-torch"},
        &code);
    ASSERT_EQ(code, 0) << out;
    EXPECT_NE(out.find("warning: pytorch.not_found"), std::string::npos) << out;
    EXPECT_NE(out.find("no process of the program imported torch"), std::string::npos) << out;
    auto rep = load(dir.file("none.rep"));
    ASSERT_TRUE(rep);
    EXPECT_EQ(rep->diagnosticCount("pytorch.not_found"), 1);

    // A torch that cannot give NVTX ranges (built without CUDA): the function trace still runs,
    // the report says what failed and why, and the program's output is its own.
    auto run = profileTorch(dir, "autograd-nvtx,functions-trace", {"-e", "TORCH_STANDIN_NO_NVTX=1"});
    ASSERT_TRUE(run.report);
    EXPECT_EQ(run.output, "cuda initialized: False\n");
    EXPECT_EQ(run.report->diagnosticCount("pytorch.failed"), 1);
    bool saidWhy = false;
    for (const auto& d : run.report->diagnostics)
        saidWhy = saidWhy || (d.name == "pytorch.failed" &&
                              d.reason.find("compiled without CUDA") != std::string::npos);
    EXPECT_TRUE(saidWhy);
    EXPECT_EQ(events(*run.report, EventKind::NvtxRange, "Linear.forward").size(), 6u);
}

// --python-backtrace=osrt,nvtx: the Python stack of a blocking read() and of an NVTX push made
// from known lines, in the main thread and in a forked child, on every interpreter; shown in the
// details and exported.
namespace {

// One value of a query on an SQLite file, as text ("" on any error).
std::string sqliteQuery(const std::string& path, const std::string& sql) {
    sqlite::Db db;
    if (!db.openReadOnly(path)) return "";
    sqlite::Stmt st(db, sql);
    if (!st.valid() || !st.step() || st.isNull(0)) return "";
    return std::to_string(st.i64(0));
}

// The line of `marker` in a client file (1-based), 0 if absent.
int lineOf(const std::string& file, const std::string& marker) {
    std::ifstream in(file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
        if (line.find(marker) != std::string::npos) return n;
    return 0;
}

}  // namespace

class PythonBacktrace : public ::testing::TestWithParam<std::string> {};

TEST_P(PythonBacktrace, OsRuntimeCallsAndNvtxPushesKnowTheirPythonLine) {
    const std::string python = GetParam();
    const std::string client = pyClient("backtrace.py");
    CaptureDir dir;
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-o", dir.file("bt.rep"), "-t",
         "nvtx,osrt", "-s", "none", "--python-backtrace=osrt,nvtx", python, client},
        &code);
    ASSERT_EQ(code, 0) << out;
    EXPECT_EQ(out, "backtrace done\n");
    auto rep = load(dir.file("bt.rep"));
    ASSERT_TRUE(rep);
    const Report& r = *rep;
    EXPECT_EQ(r.diagnosticCount("python.backtraces_unavailable"), 0);
    const int readLine = lineOf(client, "# the blocking read");
    const int pushLine = lineOf(client, "# the push");
    ASSERT_GT(readLine, 0);
    auto frameIs = [&](uint32_t f, const std::string& function, int line) {
        const StackFrame& sf = r.stackFrames[f];
        return r.str(sf.function) == function && r.str(sf.module).ends_with("backtrace.py") &&
               (line == 0 || sf.offset == uint64_t(line));
    };
    int64_t root = -1;
    for (const auto& p : r.processes)
        if (p.commandLine.find("backtrace.py") != std::string::npos && root < 0) root = p.pid;
    ASSERT_GE(root, 0);
    size_t rootReads = 0, childReads = 0;
    for (const auto& e : events(r, EventKind::OsRuntime, "read")) {
        const CallStack* bt = r.backtraceOf(EventKind::OsRuntime, e.pid, e.tid, e.start);
        if (!bt || bt->frames.empty() || !frameIs(bt->frames[0], "wait_for_data", readLine)) continue;
        ASSERT_GE(bt->frames.size(), 3u);
        EXPECT_TRUE(frameIs(bt->frames[1], "main", 0)) << r.frameText(bt->frames[1]);
        EXPECT_TRUE(frameIs(bt->frames[2], "<module>", 0)) << r.frameText(bt->frames[2]);
        EXPECT_EQ(e.tid, e.pid);  // the main thread (the child's too)
        (e.pid == root ? rootReads : childReads) += 1;
        // Shown in the details panel, leaf first.
        auto fields = analysis::eventDetails(r, {static_cast<uint32_t>(e.track - r.tracks.data()),
                                                 static_cast<uint32_t>(e.index)});
        EXPECT_EQ(analysis::detailValue(fields, "Python backtrace"),
                  "wait_for_data (backtrace.py:" + std::to_string(readLine) + ")");
    }
    EXPECT_EQ(rootReads, 2u);   // two blocking reads in the parent
    EXPECT_EQ(childReads, 1u);  // and one in the forked child
    if (python == kVenvPython) {  // the nvtx package is there
        auto pushes = events(r, EventKind::NvtxRange, "annotated");
        ASSERT_EQ(pushes.size(), 1u);
        const CallStack* bt = r.backtraceOf(EventKind::NvtxRange, pushes[0].pid, pushes[0].tid,
                                            pushes[0].start);
        ASSERT_NE(bt, nullptr);
        bool annotatedLine = false;
        for (uint32_t f : bt->frames) annotatedLine = annotatedLine || frameIs(f, "annotated", pushLine);
        EXPECT_TRUE(annotatedLine);
    }

    // Exported: the nsys schema's OSRT_API.callchainId and OSRT_CALLCHAINS.
    ASSERT_EQ(exitCodeOf(runProcess({SIGHTLINE_CLI, "export", "--type", "sqlite", "-f", "true",
                                     "-o", dir.file("bt.sqlite"), dir.file("bt.rep")})),
              0);
    const std::string q = sqliteQuery(
        dir.file("bt.sqlite"),
        "SELECT count(*) FROM OSRT_API a JOIN OSRT_CALLCHAINS c ON c.id = a.callchainId AND "
        "c.stackDepth = 0 JOIN StringIds s ON s.id = c.symbol JOIN StringIds n ON n.id = a.nameId "
        "WHERE s.value = 'wait_for_data' AND n.value = 'read'");
    EXPECT_EQ(q, "3");
}

INSTANTIATE_TEST_SUITE_P(Interpreters, PythonBacktrace, ::testing::ValuesIn(interpreters()),
                         [](const auto& p) { return "python" + std::to_string(p.index); });

// An interpreter whose frames are not read (before 3.11): no backtraces, and the report says
// why; the program runs as without the option.
TEST(PythonBacktraceOff, AnOlderInterpreterRecordsNoneAndSaysWhy) {
    std::string old;
    for (const char* candidate : {"/usr/bin/python3.10", "/usr/local/bin/python3.10",
                                  "/root/.pyenv/versions/3.10.13/bin/python3.10"})
        if (std::filesystem::exists(candidate)) old = candidate;
    if (const char* home = std::getenv("HOME"); old.empty() && home) {
        std::error_code ec;
        for (const auto& v : std::filesystem::directory_iterator(std::string(home) + "/.pyenv/versions", ec))
            if (v.path().filename().string().starts_with("3.10") &&
                std::filesystem::exists(v.path() / "bin/python3.10"))
                old = (v.path() / "bin/python3.10").string();
    }
    if (old.empty()) GTEST_SKIP() << "no Python 3.10 here (pyenv or /usr/bin) to check the refusal";
    CaptureDir dir;
    int code = -1;
    const std::string out = runCapturingStdout(
        {SIGHTLINE_CLI, "profile", "-q", "true", "-f", "true", "-o", dir.file("old.rep"), "-t",
         "osrt", "-s", "none", "--python-backtrace=osrt", old, pyClient("backtrace.py")},
        &code);
    ASSERT_EQ(code, 0) << out;
    EXPECT_EQ(out, "backtrace done\n");
    auto rep = load(dir.file("old.rep"));
    ASSERT_TRUE(rep);
    EXPECT_TRUE(rep->backtraces.empty());
    EXPECT_EQ(rep->diagnosticCount("python.backtraces_unavailable"), 2);  // the parent and its child
    bool why = false;
    for (const auto& d : rep->diagnostics)
        why = why || (d.name == "python.backtraces_unavailable" &&
                      d.reason.find("not CPython 3.11 or later") != std::string::npos);
    EXPECT_TRUE(why);
}
