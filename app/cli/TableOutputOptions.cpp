#include "app/cli/TableOutputOptions.h"

#include <algorithm>
#include <cstdio>

#include "model/analysis/StatsReports.h"
#include "model/analysis/TimeRange.h"
#include "model/options/OptionParser.h"

namespace sl::cli {

using namespace sl::analysis;

// Resolves --filter-time and --filter-nvtx to an absolute window.
Status applyFilters(const Report& r, const std::string& time, const std::string& nvtx, StatsOptions& o) {
    if (!time.empty()) {
        auto w = parseTimeRange(time);
        if (!w) return makeError("--filter-time: " + w.error());
        const int64_t origin = r.timeOrigin();
        if (w->first != INT64_MIN) o.start = origin + w->first;
        if (w->second != INT64_MAX) o.end = origin + w->second;
    }
    if (!nvtx.empty()) {
        std::string range = nvtx, domain;
        size_t index = 0;
        if (size_t slash = range.rfind('/'); slash != std::string::npos) {
            try {
                index = std::stoul(range.substr(slash + 1));
            } catch (...) {
                return makeError("--filter-nvtx: '" + range.substr(slash + 1) + "' is not an instance number");
            }
            range.resize(slash);
        }
        if (size_t at = range.rfind('@'); at != std::string::npos) {
            domain = range.substr(at + 1);
            range.resize(at);
        }
        auto w = nvtxFilterWindow(r, range, domain, index);
        if (!w) return makeError("--filter-nvtx: " + w.error());
        o.start = std::max(o.start, w->first);
        o.end = std::min(o.end, w->second);
    }
    return {};
}

std::vector<std::string> flatten(const std::vector<std::string>& given) {
    std::vector<std::string> out;
    for (const auto& g : given)
        for (auto& item : options::splitCommaList(g)) out.push_back(std::move(item));
    return out;
}

const std::string& nth(const std::vector<std::string>& list, size_t i, const std::string& dflt) {
    if (list.empty()) return dflt;
    return list[std::min(i, list.size() - 1)];
}

void printTableFormats() {
    std::printf("Available formats (-f/--format):\n\n"
                "  column  aligned columns for people (the console default)\n"
                "  table   the same with borders\n"
                "  csv     comma-separated values (the file default)\n"
                "  tsv     tab-separated values\n"
                "  json    one array of objects per report\n"
                "  hdoc    written as table\n"
                "  htable  written as table\n"
                "  .       the output's default: column on the console, csv in files\n");
}

}  // namespace sl::cli
