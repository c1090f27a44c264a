// Python programs under `sightline profile`, run with the interpreter of the test virtual
// environment that scripts/setup.sh makes (<build>/venv, with the `nvtx` package from PyPI):
// every call form of the package arrives with its attributes, in the processes of every
// multiprocessing start method.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <set>

#include "CaptureTestUtil.h"

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
