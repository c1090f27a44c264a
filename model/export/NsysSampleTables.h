#pragma once
// Call stacks in the nsys export schema: CPU samples as COMPOSITE_EVENTS (one row per sample)
// and SAMPLING_CALLCHAINS (one row per frame, stackDepth 0 = the sampled instruction), and the
// backtraces of OS runtime calls as OSRT_CALLCHAINS, as nsys writes them, so SQL written
// against nsys exports and our nsys importer both read them back.
#include <functional>
#include <string>

#include "model/export/NsysTables.h"

namespace sl::exporter {

// `extraString` returns a StringIds id for text the report's string table lacks (the
// "0x7fd9a16fe558" names nsys gives unresolved frames); `origin` is the report's time origin.
Status emitSampleTables(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats,
                        int64_t origin,
                        const std::function<uint32_t(const std::string&)>& extraString);
// The Python backtraces of events (--python-backtrace) in the callchain layout, as nsys keeps
// them: OS runtime calls in OSRT_CALLCHAINS (OSRT_API.callchainId), CUDA API calls in
// CUDA_CALLCHAINS (CUPTI_ACTIVITY_KIND_RUNTIME.callchainId). callchainIdOf() gives the id of
// an event's backtrace (0: none, written as NULL).
Status emitBacktraceCallchains(const Report& r, const ExportOptions& o, RowSink& sink, ExportStats& stats,
                               const std::function<uint32_t(const std::string&)>& extraString);
int64_t callchainIdOf(const Report& r, const Track& t, size_t i);

}  // namespace sl::exporter
