#include "viewer/window/ReportOpener.h"

#include <filesystem>
#include <fstream>

#include "model/rep/RepReader.h"
#include "viewer/window/MergeOpen.h"

#ifdef SIGHTLINE_HAVE_IMPORT
#include "model/import/OpenAny.h"
#endif

namespace sl::viewer {

const char* reportFileFilter() {
#ifdef SIGHTLINE_HAVE_IMPORT
    return "Reports (*.rep *.nsys-rep *.qdrep *.sqlite *.json *.json.gz);;Sightline reports (*.rep *.nsys-rep *.qdrep);;All files (*)";
#else
    return "Sightline reports (*.rep *.nsys-rep *.qdrep);;All files (*)";
#endif
}

Result<std::shared_ptr<Report>> openReportFile(const std::string& path,
                                               const std::function<bool(double)>& progress) {
    if (isMergeKey(path)) return openMergeKey(path, progress);  // several reports as one
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(path, ec)) return makeError(path + ": no such file");
    if (fs::is_directory(path, ec)) return makeError(path + ": is a directory, not a report");
    if (!std::ifstream(path, std::ios::binary))
        return makeError(path + ": cannot be read (permission denied?)");
    if (fs::file_size(path, ec) == 0) return makeError(path + ": the file is empty, not a report");
#ifdef SIGHTLINE_HAVE_IMPORT
    return openAnyReport(path, progress);
#else
    const std::string type = sniffFileType(path);
    if (type != "rep") {
        const std::string what = type.empty() ? "an unknown format" : "a " + type + " file";
        return makeError(path + ": not a Sightline report (" + what +
                         "); this build cannot import other formats");
    }
    ReadOptions options;
    options.progress = progress;
    return readReport(path, options);
#endif
}

}  // namespace sl::viewer
