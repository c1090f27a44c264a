#pragma once
// `sightline export --type sqlite`: the report as an SQLite database in the nsys export
// schema (see NsysTables.h), so SQL and scripts written against nsys exports run unchanged.
// Written to a temporary file in one transaction without a journal, then renamed into place.
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/export/ExportOptions.h"

namespace sl::exporter {

Result<ExportStats> exportSqlite(const Report& report, const std::string& path, const ExportOptions& options = {});

}  // namespace sl::exporter
