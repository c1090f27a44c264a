// `sightline generate` (hidden developer tool): writes a large deterministic synthetic report
// for tests, benchmarks and demos.
#include <chrono>
#include <cstdio>

#include "app/cli/CommandLine.h"
#include "app/cli/Command.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/util/Format.h"

namespace sl::cli {
namespace {

int runGenerate(int argc, char** argv) {
    int exitCode = 0;
    auto args = parseCommandLine("generate", argc, argv, &exitCode);
    if (!args) return exitCode;
    const std::string events = args->value("events"), seed = args->value("seed"),
                      output = args->value("output"), threads = args->value("threads"),
                      gpus = args->value("gpus"), level = args->value("zstd-level"),
                      rank = args->value("rank"), hostGap = args->value("host-gap");
    const bool force = args->isTrue("force-overwrite");
    if (output.empty()) return usageError("generate", "-o/--output is required");
    GeneratorOptions o;
    WriteOptions w;
    try {
        o.events = std::stoull(events);
        o.seed = std::stoull(seed);
        o.threads = std::stoi(threads);
        o.gpus = std::stoi(gpus);
        w.zstdLevel = std::stoi(level);
        o.mpiRank = std::stoi(rank);
        o.extraHostGapNs = std::stoll(hostGap) * 1000;
    } catch (...) {
        return usageError("generate", "numeric options take whole numbers");
    }
    if (o.threads < 1 || o.gpus < 1) return usageError("generate", "--threads and --gpus must be at least 1");
    w.overwrite = force;
    auto t0 = std::chrono::steady_clock::now();
    auto r = generateReportFile(o, output, w);
    if (!r) return fail(r.error());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "Generated %s events (%s kernels, %s API calls, %s NVTX ranges) in %.2f s: %s\n",
                 formatCount(r->events).c_str(), formatCount(r->kernels).c_str(), formatCount(r->apiCalls).c_str(),
                 formatCount(r->nvtxRanges).c_str(), s, output.c_str());
    return 0;
}

const Registrar kGenerate({"generate", "write a synthetic report (developer tool)", runGenerate, true, 900});

}  // namespace
}  // namespace sl::cli
