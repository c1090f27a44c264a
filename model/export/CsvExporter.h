#pragma once
// `sightline export --type csv`: the nsys-schema tables (NsysTables.h), one CSV file per
// table (TABLE.csv) in an output directory, with a header row; NULL is an empty field.
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/export/ExportOptions.h"

namespace sl::exporter {

Result<ExportStats> exportCsv(const Report& report, const std::string& directory, const ExportOptions& options = {});

}  // namespace sl::exporter
