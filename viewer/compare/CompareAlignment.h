#pragma once
// The Qt-free computations of the compare view: where each report's t=0 lies (the session
// start or the start of the Nth instance of an NVTX range), which NVTX range names both
// reports share, and where a diff item's instances lie in a report. Names are matched exactly
// as ReportDiff aggregates them, so a diff row always finds the events it counted.
#include <cstdint>
#include <string>
#include <vector>

#include "model/analysis/CorrelationIndex.h"
#include "model/analysis/ReportDiff.h"
#include "model/core/Report.h"
#include "model/core/Result.h"

namespace sl::viewer {

// NVTX range names (as the diff names them: "domain:message" outside the default domain)
// present in both reports, sorted.
std::vector<std::string> commonNvtxNames(const Report& baseline, const Report& comparison);

// The report time shown as 0 in the compare view: the session start (Report::timeOrigin())
// when nvtxName is empty, else the start of the nth (1-based, in start order) instance of that
// range. An error names the range and how many instances exist when there is no nth.
Result<int64_t> alignmentOffset(const Report& r, const std::string& nvtxName, int n);

// Where one diff item's events lie: from the first start to the last end, and how many.
struct InstanceSpan {
    int64_t start = 0, end = 0;
    int64_t count = 0;
};
InstanceSpan itemInstances(const Report& r, analysis::DiffCategory category,
                           const std::string& name,
                           analysis::DiffMatch match = analysis::DiffMatch::Demangled);
// The same events as (track index, event index), at most `limit` of them, in track order.
std::vector<analysis::EventRef> itemInstanceRefs(
    const Report& r, analysis::DiffCategory category, const std::string& name, size_t limit,
    analysis::DiffMatch match = analysis::DiffMatch::Demangled);

}  // namespace sl::viewer
