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

// `read` chooses what a .rep file loads (ReadOptions: some kinds, no level of detail).
inline Result<std::shared_ptr<Report>> openReportInput(const std::string& path, const ReadOptions& read = {}) {
#ifdef SIGHTLINE_CLI_OPEN_ANY
    return openAnyReport(path, {}, read);
#else
    return readReport(path, read);
#endif
}

}  // namespace sl::cli
