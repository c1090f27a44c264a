// bench_import [--events N] [--dir DIR]: generates an nsys-style SQLite export and a Kineto JSON
// trace of about N events each (default 3,000,000), imports each with importFile() and writes
// the report, and prints events/s for the import alone and for import + write.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "TraceGenerators.h"
#include "model/import/ImportFile.h"
#include "model/rep/RepWriter.h"

namespace {

// CPU time of the process (user + system): on a shared machine, wall time also counts waiting.
double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int measure(const char* label, const std::string& input, const std::string& output,
            const sl::bench::GeneratedTrace& g) {
    const double c0 = cpuSeconds();
    auto t0 = std::chrono::steady_clock::now();
    auto r = sl::importFile(input);
    const double tImport = seconds(t0);
    const double cImport = cpuSeconds() - c0;
    if (!r) {
        std::fprintf(stderr, "%s: import failed: %s\n", label, r.error().c_str());
        return 1;
    }
    const uint64_t events = (*r)->eventCount();
    if (events != g.events) {
        std::fprintf(stderr, "%s: expected %llu events, imported %llu\n", label,
                     static_cast<unsigned long long>(g.events),
                     static_cast<unsigned long long>(events));
        return 1;
    }
    auto t1 = std::chrono::steady_clock::now();
    if (auto st = sl::writeReport(**r, output); !st) {
        std::fprintf(stderr, "%s: write failed: %s\n", label, st.error().c_str());
        return 1;
    }
    const double tWrite = seconds(t1);
    const double ev = static_cast<double>(events);
    std::printf(
        "%-12s %10llu events, input %7.1f MiB: import %5.2f s wall = %5.2f M events/s (CPU %5.2f "
        "s); "
        "import+write %5.2f s = %5.2f M events/s\n",
        label, static_cast<unsigned long long>(events), static_cast<double>(g.bytes) / (1 << 20),
        tImport, ev / tImport / 1e6, cImport, tImport + tWrite, ev / (tImport + tWrite) / 1e6);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    uint64_t events = 3000000;
    std::string dir = std::filesystem::temp_directory_path() / "sightline_bench_import";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--events"))
            events = std::stoull(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
    }
    std::filesystem::create_directories(dir);
    const std::string sqlitePath = dir + "/bench.sqlite", jsonPath = dir + "/bench.pt.trace.json";
    auto t0 = std::chrono::steady_clock::now();
    auto nsys = sl::bench::writeNsysSqlite(sqlitePath, events);
    if (!nsys) return std::fprintf(stderr, "generate: %s\n", nsys.error().c_str()), 1;
    auto kineto = sl::bench::writeKinetoJson(jsonPath, events);
    if (!kineto) return std::fprintf(stderr, "generate: %s\n", kineto.error().c_str()), 1;
    std::printf("generated inputs in %.1f s (%s)\n", seconds(t0), dir.c_str());
    int rc = measure("nsys-sqlite", sqlitePath, dir + "/bench_nsys.rep", *nsys);
    rc |= measure("kineto-json", jsonPath, dir + "/bench_kineto.rep", *kineto);
    std::filesystem::remove_all(dir);
    return rc;
}
