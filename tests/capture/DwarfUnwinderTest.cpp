// Unit tests of DwarfUnwinder (-b dwarf) on this process itself: the registers and the top of
// the stack are captured the way perf copies them (PERF_SAMPLE_REGS_USER/STACK_USER) inside a
// known call chain, then unwound with the mappings of /proc/self/maps and symbolized.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "capture/launcher/CpuSampler.h"
#include "capture/launcher/DwarfUnwinder.h"
#include "capture/launcher/FrameSymbolizer.h"
#include "capture/launcher/ModuleMaps.h"
#include "tests/capture/SelfMaps.h"

namespace sl::test {
namespace {

using capture::DwarfUnwinder;
using capture::ModuleMaps;

struct Captured {
    uint64_t perf[DwarfUnwinder::kRegs];  // perf's order: AX BX CX DX SI DI BP SP IP R8-R15
    std::vector<uint8_t> stack;
};

uint64_t stackEnd() {
    pthread_attr_t attr;
    void* base = nullptr;
    size_t size = 0;
    pthread_getattr_np(pthread_self(), &attr);
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
    return reinterpret_cast<uint64_t>(base) + size;
}

// Reads the stack as perf's copy does, across the other frames' AddressSanitizer redzones:
// not instrumented, byte by byte through volatile (never turned into an intercepted memcpy).
__attribute__((noinline, no_sanitize("address"))) void copyStack(uint8_t* to, uint64_t from,
                                                                 size_t n) {
    const volatile uint8_t* src = reinterpret_cast<const volatile uint8_t*>(from);
    for (size_t i = 0; i < n; ++i) to[i] = src[i];
}

// The registers at one instruction (rip is the address after the lea, rsp unchanged in the
// block: the CFI of that address describes them), then up to 8 KiB of stack above rsp.
__attribute__((noinline, noclone)) void dwarfCaptureHere(Captured& c) {
    uint64_t* r = c.perf;
    asm volatile(
        "movq %%rax, 0(%0)\n\t"
        "movq %%rbx, 8(%0)\n\t"
        "movq %%rcx, 16(%0)\n\t"
        "movq %%rdx, 24(%0)\n\t"
        "movq %%rsi, 32(%0)\n\t"
        "movq %%rdi, 40(%0)\n\t"
        "movq %%rbp, 48(%0)\n\t"
        "movq %%rsp, 56(%0)\n\t"
        "leaq 0(%%rip), %%rax\n\t"
        "movq %%rax, 64(%0)\n\t"
        "movq %%r8, 72(%0)\n\t"
        "movq %%r9, 80(%0)\n\t"
        "movq %%r10, 88(%0)\n\t"
        "movq %%r11, 96(%0)\n\t"
        "movq %%r12, 104(%0)\n\t"
        "movq %%r13, 112(%0)\n\t"
        "movq %%r14, 120(%0)\n\t"
        "movq %%r15, 128(%0)\n\t"
        :
        : "r"(r)
        : "rax", "memory");
    const uint64_t sp = c.perf[7];
    c.stack.resize(std::min<uint64_t>(8192, stackEnd() - sp));
    copyStack(c.stack.data(), sp, c.stack.size());
}

// Calls with their results used after them: the frames stay on the stack.
__attribute__((noinline, noclone)) int dwarfMiddle(Captured& c, int depth) {
    dwarfCaptureHere(c);
    asm volatile("" ::: "memory");
    return depth + static_cast<int>(c.stack.size() & 1);
}

__attribute__((noinline, noclone)) int dwarfOuter(Captured& c) {
    const int r = dwarfMiddle(c, 1);
    asm volatile("" ::: "memory");
    return r + 1;
}

// Function names of the frames (leaf first; callers looked up at the call instruction).
std::vector<std::string> names(const ModuleMaps& maps, int64_t pid,
                               const std::vector<uint64_t>& frames) {
    capture::FrameSymbolizer symbolizer;
    std::vector<std::string> out;
    for (size_t i = 0; i < frames.size(); ++i) {
        const auto l = maps.lookup(pid, frames[i]);
        if (l.module >= maps.modules().size()) {
            out.emplace_back("?");
            continue;
        }
        out.emplace_back(symbolizer.function(maps.modules()[l.module], l.offset - (i > 0)));
    }
    return out;
}

size_t indexOf(const std::vector<std::string>& v, const std::string& part) {
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i].find(part) != std::string::npos) return i;
    return SIZE_MAX;
}

class DwarfUnwinderTest : public ::testing::Test {
protected:
    void SetUp() override {
        pid = getpid();
        tid = syscall(SYS_gettid);
        loadSelfMaps(maps, pid);
        dwarfOuter(c);
        DwarfUnwinder::toDwarf(c.perf, regs);
    }
    int64_t pid = 0, tid = 0;
    ModuleMaps maps;
    Captured c;
    uint64_t regs[DwarfUnwinder::kRegs];
};

TEST_F(DwarfUnwinderTest, UnwindsTheKnownChainToTheOutermostFrame) {
    DwarfUnwinder u(maps);
    std::vector<uint64_t> frames;
    EXPECT_TRUE(u.unwind(pid, tid, regs, c.stack.data(), c.stack.size(), frames, 127));
    const auto n = names(maps, pid, frames);
    ASSERT_GE(n.size(), 4u);
    EXPECT_EQ(frames[0], c.perf[8]);  // the interrupted address first
    EXPECT_NE(n[0].find("dwarfCaptureHere"), std::string::npos) << n[0];
    EXPECT_NE(n[1].find("dwarfMiddle"), std::string::npos) << n[1];
    EXPECT_NE(n[2].find("dwarfOuter"), std::string::npos) << n[2];
    EXPECT_LT(indexOf(n, "main"), n.size());
    EXPECT_EQ(n.back(), "_start");
    // A second sample of the process reuses its Dwfl and gives the same frames.
    std::vector<uint64_t> again;
    EXPECT_TRUE(u.unwind(pid, tid, regs, c.stack.data(), c.stack.size(), again, 127));
    EXPECT_EQ(again, frames);
}

TEST_F(DwarfUnwinderTest, ShortCopyKeepsTheFramesFoundAndSaysIncomplete) {
    DwarfUnwinder u(maps);
    std::vector<uint64_t> full, part;
    ASSERT_TRUE(u.unwind(pid, tid, regs, c.stack.data(), c.stack.size(), full, 127));
    // Only the capturing function's frame copied: the unwinding stops past it.
    const size_t copied = 64;
    EXPECT_FALSE(u.unwind(pid, tid, regs, c.stack.data(), copied, part, 127));
    ASSERT_GE(part.size(), 1u);
    ASSERT_LT(part.size(), full.size());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), full.begin()));
}

TEST_F(DwarfUnwinderTest, DepthLimitAndUnknownCode) {
    DwarfUnwinder u(maps);
    std::vector<uint64_t> frames;
    EXPECT_FALSE(u.unwind(pid, tid, regs, c.stack.data(), c.stack.size(), frames, 2));
    EXPECT_EQ(frames.size(), 2u);
    // A process without mappings (JIT code, or its records were lost): the sampled address
    // first, and never a complete stack. (Where the code keeps frame pointers, as in a sanitizer
    // build, libdwfl goes on through them without CFI: more frames, still incomplete.)
    frames.clear();
    EXPECT_FALSE(u.unwind(pid + 1'000'000, tid, regs, c.stack.data(), c.stack.size(), frames, 127));
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.front(), c.perf[8]);
}

TEST_F(DwarfUnwinderTest, ExecForgetsTheOldModules) {
    DwarfUnwinder u(maps);
    std::vector<uint64_t> frames;
    ASSERT_TRUE(u.unwind(pid, tid, regs, c.stack.data(), c.stack.size(), frames, 127));
    maps.exec(pid);
    u.exec(pid);
    frames.clear();
    EXPECT_FALSE(u.unwind(pid, tid, regs, c.stack.data(), c.stack.size(), frames, 127));
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.front(), c.perf[8]);
}

TEST_F(DwarfUnwinderTest, AnotherFileMappedOverAReportedModuleStartsAFreshDwfl) {
    DwarfUnwinder u(maps);
    std::vector<uint64_t> frames;
    ASSERT_TRUE(u.unwind(pid, tid, regs, c.stack.data(), c.stack.size(), frames, 127));
    // The executable's text range now holds another file (as after dlclose + dlopen): its
    // reported module is stale. Whatever the other file's CFI gives, the leaf stays and
    // nothing crashes; mapping the executable back gives the full stack again.
    const auto exe = maps.lookup(pid, c.perf[8]);
    ASSERT_LT(exe.module, maps.modules().size());
    const std::string exePath = maps.modules()[exe.module];
    const uint64_t pageStart = c.perf[8] & ~uint64_t{0xfff};
    const uint64_t pgoff = exe.offset & ~uint64_t{0xfff};
    maps.map(pid, pageStart, 0x1000, pgoff, "/bin/true");
    std::vector<uint64_t> other;
    u.unwind(pid, tid, regs, c.stack.data(), c.stack.size(), other, 127);
    ASSERT_FALSE(other.empty());
    EXPECT_EQ(other[0], c.perf[8]);
    maps.map(pid, pageStart, 0x1000, pgoff, exePath);
    std::vector<uint64_t> again;
    EXPECT_TRUE(u.unwind(pid, tid, regs, c.stack.data(), c.stack.size(), again, 127));
    EXPECT_EQ(again, frames);
}

// The sampler's own path: raw -b dwarf samples (as the reader stores them) unwound in the
// replay, counted, and resolved into stacks with the known chain.
TEST_F(DwarfUnwinderTest, SamplerUnwindsRawSamplesInTheReplay) {
    capture::CpuSampler s;
    forEachSelfExecMapping([&](uint64_t start, uint64_t size, uint64_t offset, const std::string& path) {
        s.addMapping(0, pid, start, size, offset, path);
    });
    for (int i = 0; i < 10; ++i)  // complete copies
        s.addDwarfSample(1000 + i, pid, tid, 0, nullptr, 0, c.perf, c.stack.data(), c.stack.size());
    s.addDwarfSample(2000, pid, tid, 0, nullptr, 0, c.perf, c.stack.data(), 64);  // cut short
    s.resolve();
    EXPECT_EQ(s.stats().samples, 11u);
    EXPECT_EQ(s.stats().dwarfSamples, 11u);
    EXPECT_EQ(s.stats().dwarfIncomplete, 1u);
    EXPECT_GT(s.stats().unwindNs, 0);
    EXPECT_NE(s.summary().find("10 of 11 DWARF-unwound to the outermost frame"), std::string::npos)
        << s.summary();
    ReportBuilder b;
    s.addTo(b, 0, INT64_MAX);
    const Report& r = b.report();
    EXPECT_EQ(r.diagnosticCount("sampling.unwind_incomplete"), 1);
    size_t withChain = 0;
    for (const CallStack& st : r.callStacks) {
        std::vector<std::string> fn;
        for (uint32_t fr : st.frames) fn.emplace_back(r.str(r.stackFrames.at(fr).function));
        withChain += fn.size() >= 3 && fn[0].find("dwarfCaptureHere") != std::string::npos &&
                     fn[1].find("dwarfMiddle") != std::string::npos &&
                     fn[2].find("dwarfOuter") != std::string::npos && fn.back() == "_start";
    }
    EXPECT_EQ(withChain, 1u);  // the ten complete samples share one stack
}

TEST(DwarfUnwinder, PerfToDwarfRegisterOrder) {
    uint64_t perf[DwarfUnwinder::kRegs], dwarf[DwarfUnwinder::kRegs];
    for (size_t i = 0; i < DwarfUnwinder::kRegs; ++i) perf[i] = 100 + i;
    DwarfUnwinder::toDwarf(perf, dwarf);
    // DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip; perf: AX BX CX DX SI DI BP SP IP R8..
    const uint64_t want[] = {100, 103, 102, 101, 104, 105, 106, 107, 109,
                             110, 111, 112, 113, 114, 115, 116, 108};
    EXPECT_TRUE(std::equal(dwarf, dwarf + DwarfUnwinder::kRegs, want));
    EXPECT_EQ(__builtin_popcountll(DwarfUnwinder::kPerfRegsMask), 17);
}

}  // namespace
}  // namespace sl::test
