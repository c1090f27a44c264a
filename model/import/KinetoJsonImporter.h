#pragma once
// Imports Chrome trace JSON (.json or .json.gz): PyTorch profiler (Kineto) traces of every
// format since 2021, and generic Chrome traces from any tool. Parses with simdjson On Demand,
// reading numbers from their text so microsecond timestamps with fractional nanoseconds
// convert exactly; KinetoEventMapper maps the events onto the report model.
#include <memory>
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/import/ImportFile.h"

namespace sl::import {

Result<std::shared_ptr<Report>> importChromeTrace(const std::string& path, const ImportOptions& options);

}  // namespace sl::import
