// gpu_capture_check REPORT EXPECTATIONS [--graph-mode graph|node] [--profiler-range]
//                   [--no-nvtx] [--min-kernels] [--gpu-metrics] [--pytorch]
// Compares a captured report with what the client says it did; prints one line per check and
// exits 1 if any failed (2 on bad input).
#include <cstdio>
#include <cstring>
#include <string>

#include "model/rep/RepReader.h"
#include "tests/gpu/GpuCaptureCheck.h"

int main(int argc, char** argv) {
    using namespace sl::gpucheck;
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: %s REPORT EXPECTATIONS [--graph-mode graph|node] [--profiler-range] "
                     "[--no-nvtx] "
                     "[--min-kernels] [--gpu-metrics] [--pytorch]\n",
                     argv[0]);
        return 2;
    }
    CheckOptions o;
    for (int i = 3; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--graph-mode" && i + 1 < argc) {
            std::string m = argv[++i];
            if (m != "graph" && m != "node") {
                std::fprintf(stderr, "--graph-mode: '%s' is not graph or node\n", m.c_str());
                return 2;
            }
            o.graphMode = m == "graph" ? GraphMode::Graph : GraphMode::Node;
        } else if (a == "--profiler-range") {
            o.profilerRangeOnly = true;
        } else if (a == "--no-nvtx") {
            o.checkNvtx = false;
        } else if (a == "--min-kernels") {
            o.minimumKernels = true;
        } else if (a == "--pytorch") {
            o.pytorch = true;
        } else if (a == "--gpu-metrics") {
            o.gpuMetrics = true;
        } else {
            std::fprintf(stderr, "unknown option '%s'\n", a.c_str());
            return 2;
        }
    }
    auto report = sl::readReport(argv[1]);
    if (!report) {
        std::fprintf(stderr, "%s\n", report.error().c_str());
        return 2;
    }
    auto expected = Expectations::read(argv[2]);
    if (!expected) {
        std::fprintf(stderr, "%s\n", expected.error().c_str());
        return 2;
    }
    CheckResult r = checkGpuCapture(**report, *expected, o);
    for (const auto& p : r.passed) std::printf("PASS %s\n", p.c_str());
    for (const auto& f : r.failed) std::printf("FAIL %s\n", f.c_str());
    return r.ok() ? 0 : 1;
}
