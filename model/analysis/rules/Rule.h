#pragma once
// The rules of `sightline analyze` and the Insights dock: each checks a report for one
// performance problem of the user guides' checklist and returns a Finding: how often and how
// much time it costs, what to do about it, the worst instances (to jump to on the timeline) and
// a table of every instance (nsys analyze's columns where nsys has the rule). Pure functions of
// a report and options, no Qt.
#include <atomic>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/analysis/StatsCommon.h"
#include "model/analysis/Table.h"
#include "model/core/Result.h"
#include "model/rep/RepReader.h"

namespace sl::analysis {

// No finding (count 0); something worth knowing; something worth fixing.
enum class Severity : uint8_t { None, Info, Warning };
std::string_view severityName(Severity s);

// One instance a finding points at: an event (track and index) or a time region with no event
// of its own (a gap: track = UINT32_MAX), with what to call it.
struct FindingExample {
    uint32_t track = UINT32_MAX;
    uint32_t index = 0;
    int64_t start = 0, end = 0;
    int64_t pid = 0;
    int32_t device = -1;
    std::string name;
};

struct Finding {
    std::string rule;   // "gpu_gaps"
    std::string title;  // "GPU Gaps"
    Severity severity = Severity::None;
    int64_t count = 0;    // instances found
    int64_t totalNs = 0;  // the time they account for (what the Insights dock sorts by)
    std::string summary;  // one or two sentences with the numbers
    std::string advice;   // what to do about it
    std::vector<FindingExample> examples;  // the worst first, at most kMaxExamples
    Table table;  // every instance (up to the rule's row limit), nsys's columns where nsys has it
};
inline constexpr size_t kMaxExamples = 10;

// A rule's option: "gap" with its default and what it means (nsys's where nsys has one).
struct RuleOption {
    std::string_view name;
    int64_t defaultValue;
    std::string_view help;
};

// Options of one run: the stats window (--filter-time/--filter-nvtx, shared indexes) and the
// rule's own ("gpu_gaps:gap=100:rows=20").
struct RuleContext {
    StatsOptions window;
    std::map<std::string, int64_t, std::less<>> values;  // given or default, by option name
    int64_t value(std::string_view name) const;
    int64_t rows() const { return value("rows"); }  // -1: no limit
};

using RuleFn = Finding (*)(const Report&, const RuleContext&);

struct RuleInfo {
    std::string_view name;
    std::string_view title;
    RuleFn run;
    bool fromNsys;  // the rule and its meaning are nsys analyze's
    std::span<const RuleOption> options;
    std::string_view description;
};

std::span<const RuleInfo> allRules();
// Whether the rules read events of this track (GPU operations, CUDA API calls, NVTX ranges): a
// report loaded for the rules alone needs no other.
bool rulesReadTrack(const TrackKey& key);
// What a report loaded for the rules alone needs: the tracks of rulesReadTrack, of each kind
// only the columns the rules and the correlation index read, and no level of detail.
ReadOptions rulesReadOptions();
const RuleInfo* findRule(std::string_view name);
// Runs "name[:option=value[:option=value]]"; unknown names, options and bad values are errors
// naming them.
Result<Finding> runRule(const Report& r, const std::string& spec, const StatsOptions& window);
// Runs several, on up to `threads` threads (0: one per core), in the order given. The indexes
// they share (correlation, GPU operations) are built first, once. Once `*cancel` is true
// (the GUI superseded the request), the rules not yet started are errors "cancelled".
std::vector<Result<Finding>> runRules(const Report& r, const std::vector<std::string>& specs,
                                      const StatsOptions& window, unsigned threads = 0,
                                      const std::atomic<bool>* cancel = nullptr);

}  // namespace sl::analysis
