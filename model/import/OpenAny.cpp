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
    // An import is built whole; the tracks a partial read does not want are emptied after, as a
    // partial .rep read leaves them (key kept, no events, their time bounds kept as the report's),
    // so callers (stats --per-rank of one rank's process, the Python API's pids=) see the same.
    Report& r = **imported;
    for (Track& t : r.tracks) {
        if (read.wantTrack(t.key) || t.empty()) continue;
        r.unloadedTMin = std::min(r.unloadedTMin, t.tMin);
        r.unloadedTMax = std::max(r.unloadedTMax, t.tMax);
        t = Track(t.key);
    }
    return imported;
}

}  // namespace sl
