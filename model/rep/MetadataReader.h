#pragma once
// Reads a .rep's metadata tables (session through program_output: everything but
// sightline_meta, tracks and chunks) into a Report through the schema's generated SELECTs,
// checking ids and the references between tables.
#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/rep/Sqlite.h"

namespace sl {

Status readMetadataTables(const sqlite::Db& db, Report& report);

}  // namespace sl
