#pragma once
// `sightline export --type json`: the report in the Chrome Trace Event format that Perfetto UI
// and chrome://tracing open. CPU threads carry API calls, OS runtime calls and NVTX ranges
// ("X" events, nested by time); each GPU stream is its own track (a named pseudo-thread of
// the process); flow arrows ("s"/"f", bound to the enclosing slice) join each launching API
// call to its GPU work; metric series are counters ("C"). Times are microseconds from the
// session start with nanosecond decimals.
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/export/ExportOptions.h"

namespace sl::exporter {

// `path` "-" writes to stdout.
Result<ExportStats> exportChromeTrace(const Report& report, const std::string& path, const ExportOptions& options = {});

// The pseudo thread id of a GPU stream track: 1,000,000,000 + device * 1,000,000 + stream.
int64_t streamTrackTid(int32_t device, uint32_t stream);

}  // namespace sl::exporter
