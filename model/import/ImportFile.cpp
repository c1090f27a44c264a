#include "model/import/ImportFile.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/import/ImportText.h"
#include "model/import/KinetoJsonImporter.h"
#include "model/import/NsysSqliteImporter.h"
#include "model/rep/RepReader.h"

namespace sl {
namespace {

std::string quoted(const std::string& p) {
    return "'" + p + "'";
}

// Errors are one line of valid UTF-8 whatever SQLite or the input put in them (a damaged
// schema's SQL text, with newlines and any bytes).
std::string oneLine(std::string_view message) {
    std::string out;
    bool space = false;
    for (char c : import::sanitizeUtf8(message)) {
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
    }
    constexpr size_t kMax = 400;
    if (out.size() > kMax) {
        size_t cut = kMax;
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
        out = out.substr(0, cut) + "...";
    }
    return out;
}

}  // namespace

ImportFormat detectImportFormat(const std::string& path) {
    const std::string kind = sniffFileType(path);
    if (kind == "rep") return ImportFormat::Rep;
    if (kind == "gzip") return ImportFormat::Gzip;
    if (kind == "json") return ImportFormat::ChromeJson;
    if (kind == "sqlite") {
        sqlite::Db db;
        if (db.openReadOnly(path) && import::looksLikeNsysExport(db))
            return ImportFormat::NsysSqlite;
        return ImportFormat::OtherSqlite;
    }
    return ImportFormat::Unknown;
}

namespace {

Result<std::shared_ptr<Report>> importAny(const std::string& path, const ImportOptions& options) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return makeError("cannot open " + quoted(path) + ": no such file");
    if (std::filesystem::is_directory(path, ec))
        return makeError("cannot import " + quoted(path) + ": it is a directory");
    {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return makeError("cannot read " + quoted(path) + ": permission denied or unreadable");
    }
    if (std::filesystem::file_size(path, ec) == 0)
        return makeError(quoted(path) +
                         " is empty (0 bytes): not an nsys export or a Chrome trace");
    switch (detectImportFormat(path)) {
        case ImportFormat::Rep:
            return makeError(quoted(path) +
                             " is already a Sightline report: open it directly, no import needed");
        case ImportFormat::NsysSqlite:
            return import::NsysSqliteImporter(path, options).run();
        case ImportFormat::OtherSqlite: {
            // A damaged file shows only part of its schema: say so rather than "not nsys".
            sqlite::Db db;
            if (db.openReadOnly(path)) {
                sqlite::Stmt check(db, "PRAGMA quick_check(1)");
                if (!check.valid() || !check.step() || check.text(0) != "ok")
                    return makeError(quoted(path) + " is a damaged or truncated SQLite database: " +
                                     (check.valid() && !check.isNull(0) ? std::string(check.text(0))
                                                                        : db.lastError()));
            }
            return makeError(quoted(path) +
                             " is an SQLite database but not an Nsight Systems export (no "
                             "StringIds, NVTX_EVENTS, "
                             "OSRT_API or CUPTI_ACTIVITY_KIND_* table)");
        }
        case ImportFormat::ChromeJson:
        case ImportFormat::Gzip:
            return import::importChromeTrace(path, options);
        case ImportFormat::Unknown:
            break;
    }
    return makeError(
        quoted(path) +
        " is not a supported trace: expected an nsys SQLite export (nsys export --type=sqlite; a "
        ".nsys-rep must be exported first) or a Chrome/Kineto trace (.json or .json.gz)");
}

}  // namespace

Result<std::shared_ptr<Report>> importFile(const std::string& path, const ImportOptions& options) {
    auto r = importAny(path, options);
    if (!r) return makeError(oneLine(r.error()));
    return r;
}

Result<ImportWritten> importFileToReport(const std::string& path, const std::string& output,
                                         const ImportOptions& options, const WriteOptions& write) {
    const ImportFormat format = detectImportFormat(path);
    if (format == ImportFormat::ChromeJson || format == ImportFormat::Gzip) {
        auto w = import::importChromeTraceToReport(path, output, options, write);
        if (!w) return makeError(oneLine(w.error()));
        return w;
    }
    // Everything else (nsys exports, and the errors of what is not a trace) in memory.
    auto report = importFile(path, options);
    if (!report) return Error{report.error()};
    if (Status s = writeReport(**report, output, write); !s) return Error{s.error()};
    ImportWritten out;
    out.events = (*report)->eventCount();
    out.source = (*report)->session.source;
    out.diagnostics = (*report)->diagnostics.size();
    return out;
}

}  // namespace sl
