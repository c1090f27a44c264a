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
#include "model/import/TrackSpool.h"

namespace sl::import {

// Traces of at least minBytes are parsed in chunks of about chunkBytes (TraceEventChunks.h).
struct ChunkPolicy {
    size_t minBytes = size_t{64} << 20;
    size_t chunkBytes = size_t{256} << 10;  // small: a parsed chunk waits as ~1 KiB per event
};

Result<std::shared_ptr<Report>> importChromeTrace(const std::string& path,
                                                  const ImportOptions& options,
                                                  const ChunkPolicy& chunking = {});

// The same import streamed into the report `output`: events are held compressed (TrackSpool)
// and each track written once all are seen, so memory stays at a few bytes per event.
Result<ImportWritten> importChromeTraceToReport(const std::string& path, const std::string& output,
                                                const ImportOptions& options,
                                                const WriteOptions& write,
                                                const ChunkPolicy& chunking = {},
                                                const SpoolPolicy& spooling = {});

}  // namespace sl::import
