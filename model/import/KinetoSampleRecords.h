#pragma once
// Parsers of the Chrome trace format's CPU-sample records at the top level of a trace:
// "stackFrames" (a tree of frames) and "samples". Internal to the JSON importer.
#include <simdjson.h>

#include <string>
#include <unordered_map>

#include "model/import/KinetoEventMapper.h"

namespace sl::import {

// Values of another shape than the format's are skipped, not errors; only malformed JSON is.
simdjson::error_code parseStackFrames(simdjson::ondemand::value v,
                                      std::unordered_map<std::string, ChromeStackFrame>& out);
// Entries without a numeric tid or a ts are counted in h.badSamples.
simdjson::error_code parseSamples(simdjson::ondemand::value v, TraceHeader& h);

}  // namespace sl::import
