#pragma once
// Options and results shared by the exporters.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace sl::exporter {

struct ExportOptions {
    // Only events inside [start, end] (report clock, ns) are exported.
    int64_t start = INT64_MIN;
    int64_t end = INT64_MAX;
    // ECMAScript regular expression; only tables whose name it matches (search) are written.
    std::string tablesRegex;
    bool overwrite = false;
    // SQLite: with at least this many kernels the kernel table is written by a second thread.
    uint64_t parallelKernelRows = 200'000;
    std::function<void(double)> progress;  // fraction done, may be empty

    bool inWindow(int64_t s, int64_t e) const { return s >= start && e <= end; }
};

struct ExportStats {
    uint64_t rows = 0;
    std::vector<std::pair<std::string, uint64_t>> tables;  // name, rows (in write order)
};

}  // namespace sl::exporter
