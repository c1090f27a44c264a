// `sightline generate` (hidden developer tool): writes a large deterministic synthetic report
// for tests, benchmarks and demos.
#include <chrono>
#include <cstdio>

#include "app/cli/ArgParser.h"
#include "app/cli/Command.h"
#include "model/gen/SyntheticGenerator.h"
#include "model/util/Format.h"

namespace sl::cli {
namespace {

int runGenerate(int argc, char** argv) {
    std::string events = "1000000", seed = "1", output, threads = "4", gpus = "2", level = "1";
    bool force = false;
    ArgParser p("sightline generate [options] -o OUT.rep",
                "Writes a synthetic report with realistic shapes (a training loop on several threads launching\n"
                "kernels and copies on two GPUs, nested NVTX ranges, metric samples), deterministic from a seed.");
    p.option('n', "events", "N", "approximate number of events", &events, "1000000");
    p.option('s', "seed", "N", "random seed", &seed, "1");
    p.option(0, "threads", "N", "CPU threads launching work", &threads, "4");
    p.option(0, "gpus", "N", "GPUs", &gpus, "2");
    p.option(0, "zstd-level", "N", "zstd compression level", &level, "1");
    p.option('o', "output", "FILE", "output report", &output);
    p.flag('f', "force-overwrite", "replace an existing output file", &force);
    switch (p.parse(argc, argv)) {
        case ArgParser::Outcome::Help: std::printf("%s", p.help().c_str()); return 0;
        case ArgParser::Outcome::Error: return usageError("generate", p.error());
        case ArgParser::Outcome::Ok: break;
    }
    if (output.empty()) return usageError("generate", "-o/--output is required");
    GeneratorOptions o;
    WriteOptions w;
    try {
        o.events = std::stoull(events);
        o.seed = std::stoull(seed);
        o.threads = std::stoi(threads);
        o.gpus = std::stoi(gpus);
        w.zstdLevel = std::stoi(level);
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
