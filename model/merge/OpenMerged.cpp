#include "model/merge/OpenMerged.h"

#include <algorithm>
#include <filesystem>

#include "model/import/OpenAny.h"

namespace sl {

Result<std::vector<std::string>> expandReportPaths(const std::vector<std::string>& paths) {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const std::string& p : paths) {
        std::error_code ec;
        if (!fs::is_directory(p, ec)) {
            files.push_back(p);
            continue;
        }
        std::vector<std::string> here;
        for (const auto& e : fs::directory_iterator(p, ec))
            if (e.is_regular_file() && e.path().extension() == ".rep")
                here.push_back(e.path().string());
        if (ec) return makeError(p + ": cannot list the folder: " + ec.message());
        if (here.empty()) return makeError(p + ": the folder holds no .rep report");
        std::sort(here.begin(), here.end());
        files.insert(files.end(), here.begin(), here.end());
    }
    if (files.empty()) return makeError("no reports to open");
    return files;
}

Result<OpenedMerge> openMergedReports(const MergeRequest& request,
                                      const std::function<bool(double)>& progress) {
    auto files = expandReportPaths(request.paths);
    if (!files) return makeError(files.error());
    OpenedMerge result;
    std::vector<MergeInput> inputs;
    const size_t n = files->size();
    bool cancelled = false;
    for (size_t i = 0; i < n && !cancelled; ++i) {
        const std::string& path = (*files)[i];
        // Each file's share of the bar; the merge itself is quick next to reading.
        auto step = [&](double f) {
            if (progress && !progress((static_cast<double>(i) + f) / static_cast<double>(n)))
                cancelled = true;
            return !cancelled;
        };
        auto r = openAnyReport(path, step);
        if (cancelled) break;
        if (!r) {
            // The reader's messages start with the path; others get it.
            const std::string& e = r.error();
            result.skipped.push_back(e.rfind(path, 0) == 0 ? e : path + ": " + e);
            continue;
        }
        MergeInput in;
        in.report = std::move(r.value());
        in.path = path;
        if (auto it = request.offsetsNs.find(path); it != request.offsetsNs.end())
            in.offsetNs = it->second;
        inputs.push_back(std::move(in));
    }
    if (cancelled) return makeError("cancelled");
    if (inputs.empty()) {
        std::string why;
        for (const std::string& s : result.skipped) why += (why.empty() ? "" : "; ") + s;
        return makeError("none of the reports could be opened: " + why);
    }
    auto merged = mergeReports(std::move(inputs));
    if (!merged) return makeError(merged.error());
    result.merged = std::move(merged.value());
    return result;
}

}  // namespace sl
