#pragma once
// The reports of a per-rank command (stats --per-rank, analyze over several reports), one per
// MPI rank: a report of one ranked process is that rank; a report of several (`sightline
// profile mpirun ...`) gives one view per rank, read again with only that process's tracks; a
// report with no rank is numbered by its place on the command line.
#include <string>
#include <vector>

#include "model/core/Result.h"
#include "model/rep/RepReader.h"

namespace sl::cli {

struct RankedReport {
    int rank = 0;
    std::string from;  // the file it came from
    std::shared_ptr<Report> report;
};

// In the order given (a report's ranks ascending by process). Errors name the file that could
// not be read, or the rank given twice. Unless quiet, each report numbered by its place says so
// on stderr.
Result<std::vector<RankedReport>> openRankedReports(const std::vector<std::string>& inputs, const ReadOptions& read,
                                                    bool quiet);

}  // namespace sl::cli
