#include "model/import/ImportFile.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/import/KinetoJsonImporter.h"
#include "model/import/NsysSqliteImporter.h"
#include "model/rep/RepReader.h"

namespace sl {
namespace {

std::string quoted(const std::string& p) { return "'" + p + "'"; }

}  // namespace

ImportFormat detectImportFormat(const std::string& path) {
    const std::string kind = sniffFileType(path);
    if (kind == "rep") return ImportFormat::Rep;
    if (kind == "gzip") return ImportFormat::Gzip;
    if (kind == "json") return ImportFormat::ChromeJson;
    if (kind == "sqlite") {
        sqlite::Db db;
        if (db.openReadOnly(path) && import::looksLikeNsysExport(db)) return ImportFormat::NsysSqlite;
        return ImportFormat::OtherSqlite;
    }
    return ImportFormat::Unknown;
}

Result<std::shared_ptr<Report>> importFile(const std::string& path, const ImportOptions& options) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return makeError("cannot open " + quoted(path) + ": no such file");
    if (std::filesystem::is_directory(path, ec)) return makeError("cannot import " + quoted(path) + ": it is a directory");
    {
        std::ifstream in(path, std::ios::binary);
        if (!in) return makeError("cannot read " + quoted(path) + ": permission denied or unreadable");
    }
    if (std::filesystem::file_size(path, ec) == 0)
        return makeError(quoted(path) + " is empty (0 bytes): not an nsys export or a Chrome trace");
    switch (detectImportFormat(path)) {
        case ImportFormat::Rep:
            return makeError(quoted(path) + " is already a Sightline report: open it directly, no import needed");
        case ImportFormat::NsysSqlite: return import::NsysSqliteImporter(path, options).run();
        case ImportFormat::OtherSqlite:
            return makeError(quoted(path) +
                             " is an SQLite database but not an Nsight Systems export (no StringIds, NVTX_EVENTS, "
                             "OSRT_API or CUPTI_ACTIVITY_KIND_* table)");
        case ImportFormat::ChromeJson:
        case ImportFormat::Gzip: return import::importChromeTrace(path, options);
        case ImportFormat::Unknown: break;
    }
    return makeError(quoted(path) +
                     " is not a supported trace: expected an nsys SQLite export (nsys export --type=sqlite; a "
                     ".nsys-rep must be exported first) or a Chrome/Kineto trace (.json or .json.gz)");
}

}  // namespace sl
