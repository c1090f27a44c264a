#pragma once
// CPU samples in the nsys export schema: COMPOSITE_EVENTS (one row per sample) and
// SAMPLING_CALLCHAINS (one row per frame, stackDepth 0 = the sampled instruction), as nsys
// writes them, so SQL written against nsys exports and our nsys importer both read them back.
#include <functional>
#include <string>

#include "model/export/NsysTables.h"

namespace sl::exporter {

// `extraString` returns a StringIds id for text the report's string table lacks (the
// "0x7fd9a16fe558" names nsys gives unresolved frames); `origin` is the report's time origin.
Status emitSampleTables(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats,
                        int64_t origin,
                        const std::function<uint32_t(const std::string&)>& extraString);

}  // namespace sl::exporter
