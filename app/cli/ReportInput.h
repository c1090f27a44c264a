#pragma once
// Opens the REPORT argument of stats, export and diff: a .rep file, or, when the importers are
// part of the build (model/import), anything they read (an nsys SQLite export, a Chrome or
// Kineto trace), imported on the fly.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "model/rep/RepReader.h"
#include "model/rep/ReportName.h"
#if __has_include("model/import/OpenAny.h")
#include "model/import/OpenAny.h"
#define SIGHTLINE_CLI_OPEN_ANY 1
#endif

namespace sl::cli {

// `read` chooses what a .rep file loads (ReadOptions: some kinds, no level of detail).
inline Result<std::shared_ptr<Report>> openReportInput(const std::string& path, const ReadOptions& read = {}) {
#ifdef SIGHTLINE_CLI_OPEN_ANY
    return openAnyReport(path, {}, read);
#else
    return readReport(path, read);
#endif
}

// The REPORT arguments as files to read. nsys scripts name the report `sightline profile -o X`
// wrote as X.nsys-rep (or X.qdrep); where that file does not exist and X.rep does, X.rep is read,
// and a note says so.
inline std::vector<std::string> reportPaths(const std::vector<std::string>& given) {
    std::vector<std::string> paths;
    for (const std::string& g : given) {
        const std::string_view ext = reportExtensionOf(g);
        std::error_code ec;
        if (!ext.empty() && ext != ".rep" && !std::filesystem::exists(g, ec)) {
            const std::string rep = g.substr(0, g.size() - ext.size()) + ".rep";
            if (std::filesystem::is_regular_file(rep, ec)) {
                std::fprintf(stderr, "sightline: note: %s does not exist; reading %s\n", g.c_str(), rep.c_str());
                paths.push_back(rep);
                continue;
            }
        }
        paths.push_back(g);
    }
    return paths;
}

}  // namespace sl::cli
