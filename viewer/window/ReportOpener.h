#pragma once
// Opens a report file for the GUI: .rep files with the reader, other formats (nsys SQLite,
// Kineto JSON) through the importer when this build has it. Checks the obvious first so the
// user gets a clear one-line reason: missing file, directory, unreadable, not a report.
#include <functional>
#include <memory>
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"

namespace sl::viewer {

// progress(fraction) returns false to cancel. Safe to call from any thread.
Result<std::shared_ptr<Report>> openReportFile(const std::string& path,
                                               const std::function<bool(double)>& progress);
// The file dialog's filter.
const char* reportFileFilter();

}  // namespace sl::viewer
