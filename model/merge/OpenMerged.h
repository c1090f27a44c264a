#pragma once
// Opens several reports (or every report of a folder) and merges them into one timeline
// (mergeReports). A file that cannot be opened is named in `skipped` and the others still
// open; only when fewer than one opens is it an error.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/merge/ReportMerge.h"

namespace sl {

struct MergeRequest {
    std::vector<std::string> paths;            // files, or folders (their *.rep files, by name)
    std::map<std::string, int64_t> offsetsNs;  // per path, added to the wall-clock alignment
};

struct OpenedMerge {
    MergedReport merged;
    std::vector<std::string> skipped;  // "path: reason" of each file left out
};

// The report files a request names: folders expand to their *.rep files sorted by name.
Result<std::vector<std::string>> expandReportPaths(const std::vector<std::string>& paths);

// progress(fraction) returns false to cancel ("cancelled").
Result<OpenedMerge> openMergedReports(const MergeRequest& request,
                                      const std::function<bool(double)>& progress);

}  // namespace sl
