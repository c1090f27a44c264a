#pragma once
// Several reports as one tab (issue #20). A merged tab's request travels through the ordinary
// open path (ReportTab -> ReportLoader -> openReportFile) as a key that openReportFile resolves
// here, so the loader and its jobs need not know about merges. Thread-safe: keys are opened
// on worker threads and read back on the GUI thread.
#include <QString>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/merge/OpenMerged.h"

namespace sl::viewer {

// How a merged open went: its parts (ranks, offsets) and the files left out.
struct MergeOutcome {
    std::vector<MergedPart> parts;
    std::vector<std::string> skipped;
};

// A key for openReportFile; the request is kept until forgetMerge(key).
QString registerMerge(const MergeRequest& request);
bool isMergeKey(const std::string& path);
Result<std::shared_ptr<Report>> openMergeKey(const std::string& key,
                                             const std::function<bool(double)>& progress);
MergeOutcome mergeOutcome(const QString& key);
void forgetMerge(const QString& key);

// "rank0.rep + 3 more" or the folder's name: a merged tab's title.
QString mergeTitle(const QStringList& paths);

}  // namespace sl::viewer
