#include "app/cli/RankedReports.h"

#include <cstdio>
#include <set>

#include "app/cli/ReportInput.h"

namespace sl::cli {

Result<std::vector<RankedReport>> openRankedReports(const std::vector<std::string>& inputs, const ReadOptions& read,
                                                    bool quiet) {
    std::vector<RankedReport> ranked;
    for (size_t i = 0; i < inputs.size(); ++i) {
        auto loaded = openReportInput(inputs[i], read);
        if (!loaded) return makeError(loaded.error());
        std::vector<const Process*> withRank;
        for (const auto& p : (*loaded)->processes)
            if (p.mpiRank >= 0) withRank.push_back(&p);
        if (withRank.empty()) {
            ranked.push_back({static_cast<int>(i), inputs[i], *loaded});
            if (!quiet)
                std::fprintf(stderr, "sightline: %s has no MPI rank: it is rank %zu (its place)\n", inputs[i].c_str(), i);
        } else if (withRank.size() == 1) {
            ranked.push_back({withRank[0]->mpiRank, inputs[i], *loaded});
        } else {
            // Every rank in one report: each rank's view is the report read again with only that
            // process's tracks, so the analyses need no notion of ranks.
            for (const Process* p : withRank) {
                ReadOptions one = read;
                one.wantTrack = [pid = p->pid, all = read.wantTrack](const TrackKey& k) {
                    return k.pid == pid && (!all || all(k));
                };
                auto mine = openReportInput(inputs[i], one);
                if (!mine) return makeError(mine.error());
                ranked.push_back({p->mpiRank, inputs[i], *mine});
            }
        }
    }
    std::set<int> seen;
    for (const auto& r : ranked)
        if (!seen.insert(r.rank).second)
            return makeError("rank " + std::to_string(r.rank) + " is in more than one report (" + r.from +
                             "): give each rank once");
    return ranked;
}

}  // namespace sl::cli
