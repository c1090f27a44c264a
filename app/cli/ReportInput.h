#pragma once
// Opens the REPORT argument of stats, export and diff: a .rep file, or, when the importers are
// part of the build (model/import), anything they read (an nsys SQLite export, a Chrome or
// Kineto trace), imported on the fly.
#include <memory>
#include <string>

#include "model/rep/RepReader.h"
#if __has_include("model/import/OpenAny.h")
#include "model/import/OpenAny.h"
#define SIGHTLINE_CLI_OPEN_ANY 1
#endif

namespace sl::cli {

inline Result<std::shared_ptr<Report>> openReportInput(const std::string& path) {
#ifdef SIGHTLINE_CLI_OPEN_ANY
    return openAnyReport(path, {});
#else
    return readReport(path);
#endif
}

}  // namespace sl::cli
