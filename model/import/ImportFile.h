#pragma once
// Imports other tools' traces into a Report: Nsight Systems SQLite exports (`nsys export
// --type=sqlite`, schemas 2.x to 3.x) and Chrome trace JSON (PyTorch/Kineto and any tool),
// plain or gzip-compressed. The format is recognized by content, never by extension alone.
#include <functional>
#include <memory>
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"

namespace sl {

struct ImportOptions {
    // Called with the fraction done in [0, 1]; return false to cancel (the import then fails
    // with "cancelled").
    std::function<bool(double)> progress;
};

enum class ImportFormat { Unknown, Rep, NsysSqlite, OtherSqlite, ChromeJson, Gzip };

// What `path` holds, by content: a Sightline report, an nsys export, another SQLite database,
// JSON (a Chrome trace or not), gzip (inflated on import). Unknown for anything else.
ImportFormat detectImportFormat(const std::string& path);

// Imports an nsys export or a Chrome/Kineto trace. A .rep file is refused (it needs no import);
// an unsupported, truncated or malformed file gives a one-line error naming the file and the
// byte offset, table or column at fault.
Result<std::shared_ptr<Report>> importFile(const std::string& path,
                                           const ImportOptions& options = {});

}  // namespace sl
