// bench_merge_open [--merge] REPORT...
// What the GUI does before the first frame of a tab, without the GUI: read the report(s) (with
// --merge: openMergedReports, the merged tab's path) and build the timeline's row tree. Prints
// wall times, the event count and the process's peak RSS (VmHWM), so that a run per variant
// (tests/bench/viewer/merge_open_bench.sh) compares 64 merged reports with one of 64x the events.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "model/merge/OpenMerged.h"
#include "viewer/timeline/RowTreeBuilder.h"
#include "viewer/window/ReportOpener.h"

using namespace sl;

namespace {

size_t statusBytes(const char* field) {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(field, 0) == 0) return std::stoull(line.substr(std::strlen(field))) * 1024;
    return 0;
}

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    bool merge = false;
    std::vector<std::string> paths;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--merge") == 0)
            merge = true;
        else
            paths.emplace_back(argv[i]);
    }
    if (paths.empty() || (!merge && paths.size() != 1)) {
        std::fprintf(stderr,
                     "usage: bench_merge_open [--merge] REPORT...  (one REPORT without --merge)\n");
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::shared_ptr<Report> report;
    size_t parts = 1;
    if (merge) {
        auto r = openMergedReports({paths, {}}, {});
        if (!r) {
            std::fprintf(stderr, "bench_merge_open: %s\n", r.error().c_str());
            return 1;
        }
        for (const std::string& s : r->skipped)
            std::fprintf(stderr, "bench_merge_open: left out %s\n", s.c_str());
        parts = r->merged.parts.size();
        report = r->merged.report;
    } else {
        auto r = viewer::openReportFile(paths[0], {});
        if (!r) {
            std::fprintf(stderr, "bench_merge_open: %s\n", r.error().c_str());
            return 1;
        }
        report = r.value();
    }
    const double openMs = since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    auto rows = viewer::buildRowTree(*report);
    const double rowsMs = since(t1);
    std::printf(
        "reports %zu  events %llu  tracks %zu  open_ms %.0f  row_tree_ms %.0f  total_ms %.0f  "
        "model_mb %.0f  peak_rss_mb %.0f\n",
        parts, static_cast<unsigned long long>(report->eventCount()), report->tracks.size(), openMs,
        rowsMs, openMs + rowsMs, static_cast<double>(report->memoryBytes()) / 1048576.0,
        static_cast<double>(statusBytes("VmHWM:")) / 1048576.0);
    return rows ? 0 : 1;
}
