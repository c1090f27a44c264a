// Benchmark of the CPU sampling aggregation (model/analysis/SampleTree.h) behind the GUI's
// "CPU sampling" dock: a report of N samples (default 1M) on 8 threads over S distinct stacks
// (default 5,000; 2,000 functions in 40 modules, depth 8-40), aggregated over the whole report,
// half of it, and one thread. Prints wall and process CPU time (best of R runs).
// Usage: bench_sample_tree [samples=1000000] [stacks=5000] [repeats=5]
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "model/analysis/SampleTree.h"
#include "tests/bench/analysis-gui/SampleBenchReport.h"
#include "tests/bench/ProcessCpu.h"

using namespace sl;
using namespace sl::analysis;
using Clock = std::chrono::steady_clock;

namespace {

template <class Fn>
void measure(const char* what, int repeats, Fn&& fn) {
    double best = 1e300, bestCpu = 0;
    SampleTree t;
    for (int k = 0; k < repeats; ++k) {
        const auto t0 = Clock::now();
        const double c0 = bench::processCpuMs();
        t = fn();
        const double wall = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (wall < best) best = wall, bestCpu = bench::processCpuMs() - c0;
    }
    std::printf(
        "  %-22s %8.1f ms wall, %8.1f ms CPU: %lld samples, %zu stacks, %zu functions, "
        "%zu top-down nodes, %zu bottom-up nodes\n",
        what, best, bestCpu, static_cast<long long>(t.sampleCount()), t.stackCount(),
        t.functions().size(), t.topDown().size(), t.bottomUp().size());
}

}  // namespace

int main(int argc, char** argv) {
    const uint64_t samples = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
    const auto stacks = static_cast<uint32_t>(argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 5000);
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
    const auto t0 = Clock::now();
    const auto report = bench::makeSampleBenchReport(samples, stacks);
    std::printf("report: %llu samples, %zu stacks, %zu frames (built in %.0f ms)\n",
                static_cast<unsigned long long>(report->eventCount()), report->callStacks.size(),
                report->stackFrames.size(),
                std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    measure("whole report", repeats, [&] { return SampleTree::compute(*report, {}); });
    SampleRequest half;
    half.t0 = report->tMin();
    half.t1 = report->tMin() + (report->tMax() - report->tMin()) / 2;
    measure("first half", repeats, [&] { return SampleTree::compute(*report, half); });
    SampleRequest one;
    one.threads = {{1, 100}};
    measure("one thread of 8", repeats, [&] { return SampleTree::compute(*report, one); });
    return 0;
}
