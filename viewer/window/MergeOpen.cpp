#include "viewer/window/MergeOpen.h"

#include <QFileInfo>
#include <map>
#include <mutex>

namespace sl::viewer {

namespace {

// Not a path a user passes (a URL-like scheme no file name starts with in practice).
const std::string kPrefix = "sightline-merge://";

struct Entry {
    MergeRequest request;
    MergeOutcome outcome;
};

std::mutex& registryMutex() {
    static std::mutex m;
    return m;
}

std::map<std::string, Entry>& registry() {
    static std::map<std::string, Entry> r;
    return r;
}

}  // namespace

QString registerMerge(const MergeRequest& request) {
    static int next = 0;
    std::lock_guard lock(registryMutex());
    const std::string key = kPrefix + std::to_string(++next);
    registry()[key].request = request;
    return QString::fromStdString(key);
}

bool isMergeKey(const std::string& path) {
    return path.rfind(kPrefix, 0) == 0;
}

Result<std::shared_ptr<Report>> openMergeKey(const std::string& key,
                                             const std::function<bool(double)>& progress) {
    MergeRequest request;
    {
        std::lock_guard lock(registryMutex());
        auto it = registry().find(key);
        if (it == registry().end()) return makeError("the merged reports were closed");
        request = it->second.request;
    }
    auto r = openMergedReports(request, progress);
    if (!r) return makeError(r.error());
    std::lock_guard lock(registryMutex());
    if (auto it = registry().find(key); it != registry().end())
        it->second.outcome = {r->merged.parts, r->skipped};
    return std::move(r->merged.report);
}

MergeOutcome mergeOutcome(const QString& key) {
    std::lock_guard lock(registryMutex());
    auto it = registry().find(key.toStdString());
    return it == registry().end() ? MergeOutcome{} : it->second.outcome;
}

void forgetMerge(const QString& key) {
    std::lock_guard lock(registryMutex());
    registry().erase(key.toStdString());
}

QString mergeTitle(const QStringList& paths) {
    if (paths.size() == 1) return QFileInfo(paths[0]).fileName() + "/";
    if (paths.isEmpty()) return "(no reports)";
    return QFileInfo(paths[0]).fileName() + QString(" + %1 more").arg(paths.size() - 1);
}

}  // namespace sl::viewer
