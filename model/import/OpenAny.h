#pragma once
// File > Open for the GUI (and any tool that takes "a trace"): a Sightline report is read as is,
// anything else goes through importFile(). The format is recognized by content.
#include <functional>
#include <memory>
#include <string>

#include "model/core/Report.h"
#include "model/core/Result.h"
#include "model/rep/RepReader.h"

namespace sl {

// `progress` gets the fraction done; returning false cancels ("cancelled"). `read` applies to
// .rep files (which tracks to load, with or without the level of detail); an import is built
// whole and then empties the tracks `read.wantTrack` does not want, as a partial .rep read does.
Result<std::shared_ptr<Report>> openAnyReport(const std::string& path,
                                              const std::function<bool(double)>& progress,
                                              const ReadOptions& read = {});

}  // namespace sl
