#include "model/import/OpenAny.h"

#include <algorithm>

#include "model/import/ImportFile.h"
#include "model/rep/RepReader.h"

namespace sl {

Result<std::shared_ptr<Report>> openAnyReport(const std::string& path,
                                              const std::function<bool(double)>& progress,
                                              const ReadOptions& read) {
    if (detectImportFormat(path) == ImportFormat::Rep) {
        ReadOptions o = read;
        o.progress = progress;
        return readReport(path, o);
    }
    ImportOptions o;
    o.progress = progress;
    auto imported = importFile(path, o);
    if (!imported || !read.wantTrack) return imported;
    // An import is built whole; the tracks a partial read does not want are dropped after, so
    // callers (stats --per-rank of one rank's process) see the same report as from a .rep.
    Report& r = **imported;
    std::vector<Track> kept;
    kept.reserve(r.tracks.size());
    for (Track& t : r.tracks) {
        if (read.wantTrack(t.key)) {
            kept.push_back(std::move(t));
        } else if (!t.empty()) {
            r.unloadedTMin = std::min(r.unloadedTMin, t.tMin);
            r.unloadedTMax = std::max(r.unloadedTMax, t.tMax);
        }
    }
    r.tracks = std::move(kept);
    return imported;
}

}  // namespace sl
