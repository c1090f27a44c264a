#pragma once
// Imports other tools' traces into a Report: Nsight Systems SQLite exports (`nsys export
// --type=sqlite`, schemas 2.x to 3.x) and Chrome trace JSON (PyTorch/Kineto and any tool),
// plain or gzip-compressed. The format is recognized by content, never by extension alone.
#include <functional>
#include <memory>
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/rep/RepWriter.h"

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

// What importFileToReport wrote.
struct ImportWritten {
    uint64_t events = 0;
    std::string source;      // the session's source ("kineto-json", "nsys-sqlite", ...)
    size_t diagnostics = 0;  // diagnostics in the report
};

// Imports `path` into the report file `output`. Chrome/Kineto traces stream: their events are
// held compressed and written track by track, so memory stays at a few bytes per event (an
// nsys export is imported in memory, then written). On failure nothing is left at `output`.
Result<ImportWritten> importFileToReport(const std::string& path, const std::string& output,
                                         const ImportOptions& options = {},
                                         const WriteOptions& write = {});

}  // namespace sl
