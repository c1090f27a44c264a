#pragma once
// Which rank of a distributed job a report is, for opening several reports as one timeline
// (issue #20). The rule is the one of `sightline stats --per-rank` and the Python recipes
// (app/python/sightline/ranks.py): the MPI rank its process recorded, else a rank variable of
// the recorded environment, else the last number in its file name.
#include <string>
#include <vector>

#include "model/core/Report.h"

namespace sl {

struct ReportRank {
    int rank = -1;         // -1: none found (the caller numbers it by its place)
    std::string source;    // "MPI rank", "RANK", ..., "file name"; "" when none
    bool several = false;  // the report holds several MPI ranks (`profile mpirun`): its
                           // processes keep their own ranks
};

// The environment variables read, in order of preference.
const std::vector<std::string>& rankEnvironmentVariables();
ReportRank rankOfReport(const Report& report, const std::string& path);

}  // namespace sl
