// CPU sampling benchmarks (figures in docs/capture.md):
//   sampling_bench overhead [RUNS]   sampling_client `work` (a fixed amount of CPU work) under
//                                    `sightline profile -s none` and `-s process-tree` at
//                                    1000 Hz: thread CPU time and wall time of each (median)
//   sampling_bench resolve [SAMPLES [DISTINCT [STACKS]]]
//                                    SAMPLES synthetic samples of depth 12 over DISTINCT
//                                    addresses in this executable's code, drawn from STACKS
//                                    distinct stacks (0: every sample its own): mapping + ELF
//                                    symbolization (resolve), then addTo + finish (the merge)
//   sampling_bench elf PATH [LOOKUPS]
//                                    one ELF parse of PATH (the per-module cost of a session),
//                                    then LOOKUPS random function lookups in its code
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "capture/launcher/CpuSampler.h"
#include "capture/launcher/ElfSymbols.h"

namespace fs = std::filesystem;

namespace {

double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Runs the client under sightline; returns (client thread CPU s, wall s of the whole profile).
std::pair<double, double> profileOnce(const std::string& sample, const std::string& dir) {
    const std::string burns = dir + "/burns.txt";
    fs::remove(burns);
    const std::string cmd = std::string("'") + SIGHTLINE_CLI + "' profile -q true -f true -o '" +
                            dir + "/b.rep' -s " + sample + " --sampling-frequency 1000 '" +
                            SIGHTLINE_CLIENT + "' work 400 '" + burns + "'";
    const auto t0 = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "failed: %s\n", cmd.c_str());
    const double wall = seconds(t0);
    std::ifstream f(burns);
    std::string what;
    long long pid = 0, tid = 0, cpu = 0;
    f >> what >> pid >> tid >> cpu;
    return {static_cast<double>(cpu) / 1e9, wall};
}

int overhead(int runs) {
    char tmpl[] = "/tmp/sightline-sampling-bench-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    std::vector<double> cpuOff, cpuOn, wallOff, wallOn;
    for (int i = 0; i < runs; ++i) {  // interleaved, so load changes hit both alike
        auto off = profileOnce("none", dir);
        auto on = profileOnce("process-tree", dir);
        cpuOff.push_back(off.first);
        wallOff.push_back(off.second);
        cpuOn.push_back(on.first);
        wallOn.push_back(on.second);
    }
    const double c0 = median(cpuOff), c1 = median(cpuOn), w0 = median(wallOff), w1 = median(wallOn);
    std::printf("client CPU time (median of %d): -s none %.3f s, -s process-tree %.3f s: %+.1f%%\n",
                runs, c0, c1, 100.0 * (c1 - c0) / c0);
    std::printf(
        "profile wall time (median of %d): -s none %.3f s, -s process-tree %.3f s: %+.1f%%\n", runs,
        w0, w1, 100.0 * (w1 - w0) / w0);
    fs::remove_all(dir);
    return 0;
}

int resolve(size_t samples, size_t distinct, size_t stacks) {
    // This executable's code mapping, as the kernel would report it.
    std::ifstream maps("/proc/self/maps");
    std::string line, exe = fs::canonical("/proc/self/exe").string();
    uint64_t start = 0, end = 0, pgoff = 0;
    while (std::getline(maps, line)) {
        std::istringstream in(line);
        std::string range, perms, offset, dev, inode, path;
        in >> range >> perms >> offset >> dev >> inode >> path;
        if (path != exe || perms.find('x') == std::string::npos) continue;
        start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
        end = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
        pgoff = std::stoull(offset, nullptr, 16);
    }
    if (!start) return 1;
    std::mt19937_64 rng(42);
    std::vector<uint64_t> pool(distinct);
    for (auto& a : pool) a = start + rng() % (end - start);
    std::vector<std::array<uint64_t, 12>> stackPool(stacks);
    for (auto& st : stackPool)
        for (auto& ip : st) ip = pool[rng() % distinct];
    sl::capture::CpuSampler s;
    s.addMapping(0, 100, start, end - start, pgoff, exe);
    uint64_t ips[12];
    for (size_t i = 0; i < samples; ++i) {
        if (stacks) {
            const auto& st = stackPool[rng() % stacks];
            std::copy(st.begin(), st.end(), ips);
        } else {
            for (auto& ip : ips) ip = pool[rng() % distinct];
        }
        s.addSample(static_cast<int64_t>(i + 1) * 1000, 100, 100 + static_cast<int64_t>(i % 8), 0,
                    ips, 12);
    }
    auto t0 = std::chrono::steady_clock::now();
    s.resolve();
    const double tResolve = seconds(t0);
    t0 = std::chrono::steady_clock::now();
    sl::ReportBuilder b;
    s.addTo(b, 0, INT64_MAX);
    auto r = b.finish();
    const double tMerge = seconds(t0);
    std::printf(
        "%zu samples x 12 frames, %zu distinct addresses (%llu distinct frames), %s in %s:\n",
        samples, distinct, static_cast<unsigned long long>(s.stats().distinctFrames),
        stacks ? (std::to_string(stacks) + " distinct stacks").c_str() : "every stack distinct",
        exe.c_str());
    std::printf("  resolve (mapping + ELF symbolization): %.3f s = %.1f ms per 100k samples\n",
                tResolve, tResolve * 1e3 * 1e5 / static_cast<double>(samples));
    std::printf("  of which ELF symbolization (%llu distinct frames): %.1f ms\n",
                static_cast<unsigned long long>(s.stats().distinctFrames),
                static_cast<double>(s.stats().symbolizeNs) / 1e6);
    std::printf("  addTo + finish (merge into the report): %.3f s = %.2f M samples/s\n", tMerge,
                static_cast<double>(samples) / tMerge / 1e6);
    std::printf("  unresolved frames: %llu of %llu; call stacks: %zu\n",
                static_cast<unsigned long long>(s.stats().unresolvedFrames),
                static_cast<unsigned long long>(s.stats().frames), r->callStacks.size());
    return 0;
}

int elf(const std::string& path, size_t lookups) {
    auto t0 = std::chrono::steady_clock::now();
    auto e = sl::capture::ElfSymbols::load(path);
    const double tLoad = seconds(t0);
    if (!e) {
        std::fprintf(stderr, "%s\n", e.error().c_str());
        return 1;
    }
    const auto size = fs::file_size(path);
    std::mt19937_64 rng(7);
    size_t named = 0;
    t0 = std::chrono::steady_clock::now();
    uint64_t addr = 0;
    for (size_t i = 0; i < lookups; ++i) {
        const uint64_t off = rng() % size;
        if (!e->addressOf(off, &addr)) continue;
        named += !e->functionAt(off).empty();
    }
    const double tLookup = seconds(t0);
    std::printf(
        "%s (%.1f MiB, %zu function symbols%s): parse %.1f ms; %zu lookups (%zu named, "
        "demangled on first use) in %.1f ms = %.0f ns each\n",
        path.c_str(), static_cast<double>(size) / 1048576.0, e->symbolCount(),
        e->fromDebugFile() ? ", .symtab" : ", .dynsym", tLoad * 1e3, lookups, named, tLookup * 1e3,
        tLookup * 1e9 / static_cast<double>(lookups));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "overhead") return overhead(argc > 2 ? std::atoi(argv[2]) : 5);
    if (what == "resolve")
        return resolve(argc > 2 ? std::stoul(argv[2]) : 100000,
                       argc > 3 ? std::stoul(argv[3]) : 5000, argc > 4 ? std::stoul(argv[4]) : 0);
    if (what == "elf" && argc > 2) return elf(argv[2], argc > 3 ? std::stoul(argv[3]) : 100000);
    std::fprintf(stderr,
                 "usage: sampling_bench overhead [RUNS] | resolve [SAMPLES [DISTINCT [STACKS]]] | "
                 "elf PATH [LOOKUPS]\n");
    return 2;
}
