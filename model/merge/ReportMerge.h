#pragma once
// Several reports as one (issue #20: the ranks of a distributed job on one timeline). Each
// input keeps its processes, threads, GPUs and tracks; its times move onto the first input's
// clock through the wall-clock start each report records (Session::startUtcNs), plus an offset
// the user chose. Ids that two inputs share (pids, GPU ordinals, metric series) move apart, and
// string, kernel-launch and call-stack ids are remapped into the merged tables. Each input's
// processes carry its rank (Process::mpiRank), which the viewer groups rows by.
//
// The inputs' event columns are moved, not copied (a merge of 64 x 1 M events costs about one
// report's memory): shifting and remapping happen in place.
#include <memory>
#include <string>
#include <vector>

#include "model/core/Report.h"
#include "model/core/Result.h"

namespace sl {

struct MergeInput {
    std::shared_ptr<Report> report;  // consumed: emptied by the merge
    std::string path;                // for the rank (file name rule) and messages
    int64_t offsetNs = 0;            // added to the wall-clock alignment
};

// One input as it went into the merged report.
struct MergedPart {
    std::string path;
    int rank = -1;
    std::string rankSource;   // "MPI rank", "RANK", "file name", "place"
    int64_t alignNs = 0;      // the wall-clock alignment applied (before the offset)
    int64_t offsetNs = 0;     // the user's offset
    int64_t pidDelta = 0;     // added to its pids (0 unless another input had the same pid)
    int32_t deviceDelta = 0;  // added to its GPU ordinals (0 unless another input had the same)
    uint64_t events = 0;
};

struct MergedReport {
    std::shared_ptr<Report> report;
    std::vector<MergedPart> parts;  // in input order
};

// Errors: no input, two inputs of one rank, times that the alignment would move out of range.
Result<MergedReport> mergeReports(std::vector<MergeInput> inputs);

// "Rank 3" when the part has one rank, else its file name.
std::string partTitle(const MergedPart& part);

}  // namespace sl
